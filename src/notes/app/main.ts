/**
 * The notes app in the page: draws the list and the editor from this browser's copy
 * (local.ts), writes every edit there first, and lets the sync (sync.ts) carry it to the
 * server. Note text is only ever set as text (`textContent`, `value`), never as HTML.
 *
 * This module builds the one {@link App} object the views share, opens the copy, starts the
 * sync and wires the page's events; the state and its rules are in controller.ts, the drawing
 * in the `*-view.ts` modules.
 *
 * @module
 */
import { mergeText } from '../merge.ts'
import { createAccountView } from './account-view.ts'
import { createAddress } from './address.ts'
import { $, findElements, POLL_MS, type Actions, type App } from './app.ts'
import { createConflictView } from './conflict-view.ts'
import { conflictWords } from './conflict-words.ts'
import { createAppState, createNotesController, shown } from './controller.ts'
import { createEditorView } from './editor-view.ts'
import { createHistoryView } from './history-view.ts'
import { createListView } from './list-view.ts'
import { openLocal } from './local.ts'
import { createNotePrefs } from './note-prefs.ts'
import { applyRescue, forgetRescue, keepRescue } from './rescue.ts'
import { createSend } from './send.ts'
import { createStatusView, describe } from './status-view.ts'
import { createTagsView } from './tags-view.ts'
import { createTrashView } from './trash-view.ts'
import { createShareView } from './share-view.ts'
import { createImportView } from './import-view.ts'
import { createFollow } from './follow.ts'
import { createPinSync } from './pins.ts'
import { createLocalLock, createSync, type Lock, type ShareOut, type SyncEvent } from './sync.ts'
import { titleOf } from './text.ts'
import { DEVICE_NAME_KEY, deviceWords } from './versions.ts'

const userId = document.querySelector<HTMLMetaElement>('meta[name="notes-user"]')?.content ?? ''
const state = createAppState()
// `notes`, `local` and `sync` are set once the copy is open; until then (and for good in a tab
// too old to open it) only the status and account views run, and they refuse before reading them.
const app = {
  ui: findElements(),
  state,
  send: createSend(state),
  channel: typeof BroadcastChannel === 'function' ? new BroadcastChannel(`notes-${userId}`) : null,
  address: createAddress(window),
  prefs: createNotePrefs(userId, localStorage),
  userId,
  act: {} as Actions,
} as App
const { ui, act } = app
state.pinned = app.prefs.all('pinned')
state.sharesOut = readSharesOut()
const status = createStatusView(app)
const list = createListView(app)
const editor = createEditorView(app)
const conflicts = createConflictView(app)
const history = createHistoryView(app)
const tags = createTagsView(app)
const trash = createTrashView(app)
const share = createShareView(app)
const importer = createImportView(app)
const account = createAccountView(app)
const follow = createFollow(app)
const pins = createPinSync(app)
const actions: Actions = {
  ...status,
  drawList: list.drawList,
  sortAndDraw: list.sortAndDraw,
  drawSoon: list.drawSoon,
  reloadIds: list.reloadIds,
  drawTags: tags.drawTags,
  openNote: editor.openNote,
  closeNote: editor.closeNote,
  refreshOpen: editor.refreshOpen,
  setEditorText: editor.setEditorText,
  showMode: editor.showMode,
  drawMeta: editor.drawMeta,
  saveNow: editor.saveNow,
  backToList: editor.backToList,
  tellConflict: conflicts.tellConflict,
  showCompare: conflicts.showCompare,
  closeHistory: history.closeHistory,
  closeTrash: trash.closeTrash,
  closeShare: share.closeShare,
  closeImport: importer.closeImport,
  followOpen: follow.followOpen,
  choosePin: pins.choosePin,
  syncPins: pins.syncPins,
}
Object.assign(act, actions)

void start()

async function start(): Promise<void> {
  // Until every note is read; the bench (bench/notes-app.bench.ts) waits for it to go.
  ui.list.setAttribute('aria-busy', 'true')
  try {
    app.local = await openLocal(`notes-${userId}`, {
      onBlocking: (next) => {
        if (next !== null) letGo()
      },
      onBlocked: () => {
        ui.status.textContent = 'Waiting for another tab of Notes to close…'
      },
    })
  } catch (error) {
    ui.list.removeAttribute('aria-busy')
    // This page is older than the copy (an old page kept by the browser, another tab updated).
    if ((error as { name?: string } | null)?.name === 'VersionError') {
      act.outdated()
      // Nothing was read, so there is nothing to search; the account's buttons say why they
      // cannot act rather than doing nothing.
      ui.search.disabled = true
      ui.historyButton.disabled = true
      account.wireAccount()
    } else act.showProblem(`This browser cannot keep notes (${describe(error)})`)
    return
  }
  const lock: Lock = navigator.locks
    ? (name, fn) => navigator.locks.request(name, fn)
    : createLocalLock()
  app.notes = createNotesController({ state, local: app.local, clock: Date.now })
  app.sync = createSync({
    local: app.local,
    send: app.send,
    clock: Date.now,
    lock,
    onEvent: (event) => void handle(event),
    retry: (fn, ms) => setTimeout(fn, ms),
    deviceName: () => deviceWords(localStorage.getItem(DEVICE_NAME_KEY), navigator.userAgent),
  })
  state.device = await app.local.device()
  await applyRescue(app.local, userId)
  // The first screen comes from the newest notes alone; reading every note (for the search
  // and the rest of the list) grows with their number and follows.
  await firstScreen()
  ui.editor.disabled = false
  wire()
  await openFromAddress()
  await act.refreshStatus()
  await readAll()
  if (state.openId === null) await openFromAddress()
  void navigator.storage?.persist?.().catch(() => false)
  account.registerWorker()
  void act.runSync()
  setInterval(() => {
    if (document.visibilityState === 'visible') void act.runSync()
  }, POLL_MS)
}

async function firstScreen(): Promise<void> {
  const started = performance.now()
  await app.notes.firstScreen()
  act.sortAndDraw()
  // With notes:read-all, shows in the browser's performance panel where opening spends its time.
  performance.measure('notes:first-screen', { start: started })
}

/** Reads every note into memory, keeping what changed in memory while it read. */
async function readAll(): Promise<void> {
  const started = performance.now()
  await app.notes.readAll()
  ui.list.removeAttribute('aria-busy')
  act.sortAndDraw()
  performance.measure('notes:read-all', { start: started })
}

// ---- a newer version in another tab, a closing page -----------------------------------------

/**
 * Another tab opened the copy with a newer version of the app, which needs this tab's
 * connection closed to change the copy's layout. The editor's text not yet kept is written
 * now, in a transaction that finishes before the connection closes (and to localStorage too,
 * which the next start puts into the copy should that write not finish); then the tab stops
 * writing and offers the reload that brings the new version.
 */
function letGo(): void {
  editor.cancelSave()
  const id = state.openId
  if (state.dirty && id !== null) {
    const text = ui.editor.value
    // A full disk leaves the write below as the only chance.
    keepRescue(userId, { id, text, at: Date.now(), base: state.editorBase, from: state.editorText })
    state.dirty = false
    const at = Date.now()
    void app.local.edit(id, text, at, app.notes.editStart()).then(
      () => forgetRescue(userId),
      () => {},
    )
    // The list and its search, which this tab still shows, show the text kept.
    const note = state.notes.get(id)
    if (note) {
      const kept = shown({ ...note, text, edited: at })
      delete kept.draft
      state.notes.set(id, kept)
      act.sortAndDraw()
    }
  }
  act.outdated()
}

function rescue(): void {
  if (!state.dirty || state.openId === null) return
  // A full disk leaves the IndexedDB write of `saveNow` as the only chance.
  keepRescue(userId, {
    id: state.openId,
    text: ui.editor.value,
    at: Date.now(),
    base: state.editorBase,
    from: state.editorText,
  })
  void act.saveNow()
}

// ---- what the sync tells ------------------------------------------------------------------

async function handle(event: SyncEvent): Promise<void> {
  if (event.kind === 'changed') {
    if (event.notes) list.applyNotes(event.ids, event.notes)
    else await act.reloadIds(event.ids)
    app.channel?.postMessage({ ids: event.ids })
  } else if (event.kind === 'merged') {
    // What was typed since the save was sent stays: the answer is merged into the editor's text.
    if (state.openId === event.id && ui.editor.value !== event.text) {
      const merged = mergeText(event.sent, event.text, ui.editor.value)
      if (merged.ok) {
        act.setEditorText(merged.text)
        const note = state.notes.get(event.id)
        if (note) {
          state.editorText = note.text
          state.editorBase = note.base
        }
      }
    }
  } else if (event.kind === 'copy') {
    await act.reloadIds([event.id, event.copyId])
    const notice = conflictWords(true, state.notes.get(event.copyId)?.conflictBy).notice(
      titleOf(state.notes.get(event.id)?.text ?? ''),
    )
    if (state.openId === event.id) {
      if (state.dirty) {
        state.dirty = false
        await app.local.edit(event.copyId, ui.editor.value, Date.now()).catch(act.noteError)
        await act.reloadIds([event.copyId])
      }
      await act.openNote(event.copyId, { save: false })
    }
    act.tellConflict(notice, event.id, event.copyId)
  } else if (event.kind === 'kept') {
    await act.reloadIds([event.id])
    const note = state.notes.get(event.id)
    act.toast(
      `“${titleOf(note?.text ?? '')}” was edited on another device, so it was not deleted.`,
      null,
    )
    if (state.openId === event.id || state.openId === null)
      await act.openNote(event.id, { save: state.openId !== null })
    act.showNotice('This note was edited on another device after you deleted it, so it was kept.')
  } else if (event.kind === 'unshared') {
    const title = titleOf(event.title)
    if (state.openId === event.id) {
      if (event.kept !== null) await act.openNote(event.kept, { save: false })
      else act.closeNote()
    }
    act.toast(
      event.kept === null
        ? `“${title}” is no longer shared with you.`
        : `“${title}” is no longer shared with you: what you wrote in it is kept as a note of your own.`,
      event.kept === null
        ? null
        : { label: 'Open', run: () => act.openNote(event.kept!, { save: true }) },
    )
  } else if (event.kind === 'shares') {
    const next = sharesByNote(event.shares)
    if (JSON.stringify([...next]) !== JSON.stringify([...state.sharesOut])) {
      state.sharesOut = next
      keepSharesOut(event.shares)
      act.drawList()
      const open = state.openId === null ? undefined : state.notes.get(state.openId)
      if (open) act.drawMeta(open)
    }
    act.followOpen()
  } else if (event.kind === 'refused') {
    state.problem = `Not saved: ${event.error}`
  } else if (event.kind === 'signed-out') {
    state.problem = 'Signed out: sign in again to sync'
  }
  await act.refreshStatus()
}

// ---- the shares of this person's notes, kept for the list's marks offline -------------------

function sharesByNote(shares: readonly ShareOut[]): Map<string, ShareOut[]> {
  const out = new Map<string, ShareOut[]>()
  for (const share of shares) out.set(share.note, [...(out.get(share.note) ?? []), share])
  return out
}

function readSharesOut(): Map<string, ShareOut[]> {
  try {
    const kept = JSON.parse(localStorage.getItem(`notes-shares-${userId}`) ?? '[]') as ShareOut[]
    return sharesByNote(Array.isArray(kept) ? kept : [])
  } catch {
    return new Map()
  }
}

function keepSharesOut(shares: readonly ShareOut[]): void {
  try {
    localStorage.setItem(`notes-shares-${userId}`, JSON.stringify(shares))
  } catch {
    // A full storage loses only the marks, until the next sync.
  }
}

// ---- wiring -------------------------------------------------------------------------------

function wire(): void {
  ui.newNote.addEventListener('click', () => void editor.newNote())
  ui.list.addEventListener('click', (e) => {
    const item = (e.target as HTMLElement).closest<HTMLButtonElement>('button.item')
    // From the keyboard (no pointer: `detail` 0) the editor takes the focus on a phone too,
    // rather than the list item it hides.
    if (item?.dataset.id)
      void act.openNote(item.dataset.id, {
        focus: e.detail === 0 || window.matchMedia('(min-width: 44rem)').matches,
      })
  })
  // The search box names its key (/) only where there is a keyboard to press it: the same test
  // as the stylesheet's `.keys-hint`.
  if (!window.matchMedia('(hover: none) and (pointer: coarse)').matches)
    ui.search.placeholder = ui.search.dataset.keysPlaceholder ?? ui.search.placeholder
  ui.search.addEventListener('input', () => act.drawList())
  tags.wireTags()
  trash.wireTrash()
  share.wireShare()
  importer.wireImport()
  ui.search.addEventListener('keydown', list.onListKey)
  ui.list.addEventListener('keydown', list.onListKey)
  ui.editor.addEventListener('input', editor.onInput)
  ui.writeMode.addEventListener('click', () => void editor.chooseReading(false))
  ui.readMode.addEventListener('click', () => void editor.chooseReading(true))
  ui.pin.addEventListener('click', editor.togglePin)
  ui.reading.addEventListener('change', editor.onTick)
  ui.editor.addEventListener('blur', () => void act.saveNow())
  ui.back.addEventListener('click', () => void act.backToList())
  ui.del.addEventListener('click', () => void editor.deleteOpen())
  ui.historyButton.addEventListener('click', () => void history.showHistory())
  $('history-close').addEventListener('click', act.closeHistory)
  history.wireDeviceName()
  $('keep-both').addEventListener('click', () => void conflicts.resolveConflict('both'))
  $('keep-this').addEventListener('click', () => void conflicts.resolveConflict('this'))
  $('edit-by-hand').addEventListener('click', () => void conflicts.resolveConflict('hand'))
  account.wireAccount()
  ui.del.disabled = true
  ui.historyButton.disabled = true
  ui.pin.disabled = true
  ui.shareButton.disabled = true
  ui.writeMode.disabled = ui.readMode.disabled = true

  window.addEventListener('online', () => void act.runSync())
  window.addEventListener('offline', () => void act.refreshStatus())
  window.addEventListener('focus', () => void act.runSync())
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') rescue()
    else void act.runSync()
  })
  window.addEventListener('pagehide', rescue)
  window.addEventListener('beforeunload', rescue)
  app.channel?.addEventListener('message', (e: MessageEvent) => {
    const data = e.data as { ids?: string[]; signedOut?: boolean }
    if (data.signedOut) location.assign('/')
    else if (data.ids && !state.outdated) void act.reloadIds(data.ids).then(act.refreshStatus)
  })
  document.addEventListener('keydown', onKey)
  window.addEventListener('popstate', () => void followAddress())
}

/** Opens the note the address names (a reload, a link), or forgets an address of no note. */
async function openFromAddress(): Promise<void> {
  const id = app.address.current()
  if (id === null) return
  if (state.notes.has(id)) {
    app.address.adopt()
    await act.openNote(id, { save: false })
  } else if (state.loaded) app.address.show(null)
}

/** The browser's back and forward buttons: the screen follows the address. */
async function followAddress(): Promise<void> {
  const id = app.address.current()
  // The trash has the list's address: going back to it from a note leaves the trash open.
  const noteShown = ui.app.dataset.view === 'note' && ui.trash.hidden && ui.importPanel.hidden
  if (id === null) {
    if (noteShown) await act.backToList()
  } else if ((id !== state.openId || !noteShown) && state.notes.has(id)) await act.openNote(id)
}

function onKey(e: KeyboardEvent): void {
  const typingField =
    e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement
  if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyN') {
    e.preventDefault()
    void editor.newNote()
  } else if ((e.key === 'k' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !typingField)) {
    e.preventDefault()
    ui.search.focus()
    ui.search.select()
  } else if (e.key === 'Escape') {
    if (e.target === ui.search && ui.search.value !== '') {
      ui.search.value = ''
      act.drawList()
    } else if (!ui.history.hidden) act.closeHistory()
    else if (!ui.trash.hidden) act.closeTrash()
    else if (!ui.share.hidden) act.closeShare()
    else if (!ui.importPanel.hidden) act.closeImport()
    else if (state.openId !== null) void act.backToList()
  }
}
