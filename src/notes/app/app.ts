/**
 * The one object the notes app's views share: the page's elements, the state and its
 * controller, the copy, the sync, and the actions each view offers the others. main.ts builds it
 * once. A view module takes from here only types, constants and `$`; views reach each other
 * through `app.act`, so no view imports another and the import graph has no cycle.
 *
 * @module
 */
import type { Address } from './address.ts'
import type { AppState, NotesController, Shown } from './controller.ts'
import type { Local } from './local.ts'
import type { NotePrefs } from './note-prefs.ts'
import type { Send, Sync } from './sync.ts'

/** A pause in typing this long saves the note. */
export const SAVE_AFTER_MS = 600
/** Typing this recent keeps changes from elsewhere out of the editor. */
export const TYPING_MS = 1_500
export const UNDO_MS = 5_000
export const POLL_MS = 5_000
/** The status line of a tab whose copy was taken over by a newer version of the app. */
export const OUTDATED = 'Notes was updated in another tab: reload this tab to go on'

export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

/** The page's elements (src/notes/pages.ts renders them). */
export function findElements() {
  return {
    app: $('app'),
    status: $('status'),
    list: $<HTMLUListElement>('list'),
    tags: $<HTMLUListElement>('tags'),
    empty: $('empty'),
    search: $<HTMLInputElement>('search'),
    newNote: $<HTMLButtonElement>('new-note'),
    editor: $<HTMLTextAreaElement>('editor'),
    reading: $('reading'),
    writeMode: $<HTMLButtonElement>('write-mode'),
    readMode: $<HTMLButtonElement>('read-mode'),
    pin: $<HTMLButtonElement>('pin'),
    edited: $('edited'),
    notice: $('notice'),
    back: $<HTMLButtonElement>('back'),
    del: $<HTMLButtonElement>('delete'),
    historyButton: $<HTMLButtonElement>('history-button'),
    history: $('history'),
    historyHint: $('history-hint'),
    revisions: $<HTMLOListElement>('revisions'),
    deviceForm: $<HTMLFormElement>('device-form'),
    deviceName: $<HTMLInputElement>('device-name'),
    trash: $('trash'),
    importPanel: $('import'),
    share: $('share'),
    shareButton: $<HTMLButtonElement>('share-button'),
    trashList: $<HTMLOListElement>('trash-list'),
    compare: $('compare'),
    placeholder: $('placeholder'),
    toast: $('toast'),
    toastText: $('toast-text'),
    toastAction: $<HTMLButtonElement>('toast-action'),
    update: $('update'),
  }
}

export type Elements = ReturnType<typeof findElements>

/** An action of a toast: Undo (a function) or one with its own label. */
export type ToastAction = (() => Promise<void>) | { label: string; run: () => Promise<void> } | null

/** What the views offer each other. */
export interface Actions {
  // status.ts
  refreshStatus(): Promise<void>
  showProblem(text: string): void
  noteError(error: unknown): void
  showNotice(text: string): void
  toast(text: string, action: ToastAction): void
  refusedOutdated(what: string): boolean
  outdated(): void
  runSync(): Promise<void>
  flushSoon(): Promise<void>
  // list-view.ts
  drawList(): void
  sortAndDraw(): void
  drawSoon(): void
  reloadIds(ids: readonly string[]): Promise<void>
  // tags-view.ts
  drawTags(): void
  // editor-view.ts
  openNote(id: string, options?: { save?: boolean; focus?: boolean }): Promise<void>
  closeNote(): void
  refreshOpen(): void
  setEditorText(text: string): void
  /** Shows the open note as its choice says: the editor, or the reading view drawn anew. */
  showMode(): void
  drawMeta(note: Shown): void
  saveNow(): Promise<void>
  backToList(): Promise<void>
  // conflict-view.ts
  tellConflict(text: string, noteId: string, copyId: string): void
  showCompare(copy: Shown): void
  // history-view.ts
  closeHistory(): void
  // trash-view.ts
  closeTrash(): void
  // import-view.ts
  closeImport(): void
  // share-view.ts
  closeShare(): void
  // follow.ts
  followOpen(): void
  // pins.ts
  choosePin(id: string, pinned: boolean): void
  syncPins(): Promise<void>
}

export interface App {
  ui: Elements
  state: AppState
  /**
   * `notes`, `local` and `sync` are set once the copy is open (never in a tab too old to open
   * it, where every action that would read them is refused first).
   */
  notes: NotesController
  local: Local
  sync: Sync
  send: Send
  prefs: NotePrefs
  channel: BroadcastChannel | null
  address: Address
  userId: string
  act: Actions
}
