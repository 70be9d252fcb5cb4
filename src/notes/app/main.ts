/**
 * The notes app in the page: draws the list and the editor from this browser's copy
 * (local.ts), writes every edit there first, and lets the sync (sync.ts) carry it to the
 * server. Note text is only ever set as text (`textContent`, `value`), never as HTML.
 *
 * @module
 */
import { mergeText } from '../merge.ts'
import { createAddress } from './address.ts'
import { conflictWords } from './conflict-words.ts'
import { combined, drawParts, lineParts } from './diff-view.ts'
import { exportZip } from './export.ts'
import { openLocal, type EditStart, type Local, type LocalNote } from './local.ts'
import { createLocalLock, createSync, type Lock, type RequestWatch, type Send, type Sync, type SyncEvent } from './sync.ts'
import { movedCaret, newNoteId, previewOf, shortTime, statusText, titleOf } from './text.ts'
import { parseQuery, search } from './search.ts'
import { moveTo, SEARCH_BOX } from './list-keys.ts'
import { deviceName, versionDevice, versionTimes, type Version } from './versions.ts'

/** A pause in typing this long saves the note. */
const SAVE_AFTER_MS = 600
/** Typing this recent keeps changes from elsewhere out of the editor. */
const TYPING_MS = 1_500
const UNDO_MS = 5_000
const POLL_MS = 5_000
/** The list draws this many notes at most; a search narrows the rest. */
const LIST_LIMIT = 200
/** The status line of a tab whose copy was taken over by a newer version of the app. */
const OUTDATED = 'Notes was updated in another tab: reload this tab to go on'

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

const ui = {
  app: $('app'),
  status: $('status'),
  list: $<HTMLUListElement>('list'),
  empty: $('empty'),
  search: $<HTMLInputElement>('search'),
  newNote: $<HTMLButtonElement>('new-note'),
  editor: $<HTMLTextAreaElement>('editor'),
  edited: $('edited'),
  notice: $('notice'),
  back: $<HTMLButtonElement>('back'),
  del: $<HTMLButtonElement>('delete'),
  historyButton: $<HTMLButtonElement>('history-button'),
  history: $('history'),
  historyHint: $('history-hint'),
  revisions: $<HTMLOListElement>('revisions'),
  compare: $('compare'),
  placeholder: $('placeholder'),
  toast: $('toast'),
  toastText: $('toast-text'),
  toastAction: $<HTMLButtonElement>('toast-action'),
  update: $('update'),
}

interface Shown extends LocalNote {
  /** Lower-case text, for the search. */
  lower: string
  /** Lower-case title, for the search's order. */
  titleLower: string
  /** Made by "New note" and not written to yet: kept in memory only. */
  draft?: boolean
}

const state = {
  notes: new Map<string, Shown>(),
  order: [] as Shown[],
  openId: null as string | null,
  /** Every stored note is in `notes` (not only the first screen's). */
  loaded: false,
  /** How many notes are stored, known before they are all read. */
  stored: 0,
  /** The editor holds text not yet in the copy. */
  dirty: false,
  lastInput: 0,
  saveTimer: 0,
  refreshTimer: 0,
  /** The server's `edited` of the text the editor started from. */
  editorBase: 0,
  /** The copy's text the editor last matched (opened, saved or taken from elsewhere). */
  editorText: '',
  problem: null as string | null,
  /** The copy was handed to a newer version of the app in another tab: this tab must reload. */
  outdated: false,
  /** The last request failed on the network. */
  unreachable: false,
  device: '',
  /** What {@link tellConflict} last said, and of which note and copy. */
  conflictNotice: null as { ids: string[]; text: string } | null,
}

const userId = document.querySelector<HTMLMetaElement>('meta[name="notes-user"]')?.content ?? ''
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(`notes-${userId}`) : null
let local: Local
let sync: Sync
const address = createAddress(window)

void start()

async function start(): Promise<void> {
  // Until every note is read; the bench (bench/notes-app.bench.ts) waits for it to go.
  ui.list.setAttribute('aria-busy', 'true')
  try {
    local = await openLocal(`notes-${userId}`, {
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
      outdated()
      // Nothing was read, so there is nothing to search; the account's buttons say why they
      // cannot act rather than doing nothing.
      ui.search.disabled = true
      ui.historyButton.disabled = true
      wireAccount()
    } else showProblem(`This browser cannot keep notes (${describe(error)})`)
    return
  }
  const lock: Lock = navigator.locks
    ? (name, fn) => navigator.locks.request(name, fn)
    : createLocalLock()
  sync = createSync({ local, send, clock: Date.now, lock, onEvent, retry: (fn, ms) => setTimeout(fn, ms), deviceName: deviceName(navigator.userAgent) })
  state.device = await local.device()
  await applyRescue()
  // The first screen comes from the newest notes alone; reading every note (for the search
  // and the rest of the list) grows with their number and follows.
  await firstScreen()
  ui.editor.disabled = false
  wire()
  await openFromAddress()
  await refreshStatus()
  await reload()
  if (state.openId === null) await openFromAddress()
  void navigator.storage?.persist?.().catch(() => false)
  registerWorker()
  void runSync()
  setInterval(() => {
    if (document.visibilityState === 'visible') void runSync()
  }, POLL_MS)
}

// ---- a newer version in another tab -------------------------------------------------------

/**
 * Another tab opened the copy with a newer version of the app, which needs this tab's
 * connection closed to change the copy's layout. The editor's text not yet kept is written
 * now, in a transaction that finishes before the connection closes (and to localStorage too,
 * which the next start puts into the copy should that write not finish); then the tab stops
 * writing and offers the reload that brings the new version.
 */
function letGo(): void {
  clearTimeout(state.saveTimer)
  const id = state.openId
  if (state.dirty && id !== null) {
    const text = ui.editor.value
    try {
      localStorage.setItem(RESCUE_KEY, JSON.stringify({ id, text, at: Date.now(), base: state.editorBase, from: state.editorText }))
    } catch {
      // A full disk: the write below is the only chance left.
    }
    state.dirty = false
    const at = Date.now()
    void local.edit(id, text, at, editStart()).then(forgetRescue, () => {})
    // The list and its search, which this tab still shows, show the text kept.
    const note = state.notes.get(id)
    if (note) {
      const kept = shown({ ...note, text, edited: at })
      delete kept.draft
      state.notes.set(id, kept)
      sortAndDraw()
    }
  }
  outdated()
}

/**
 * Stops this tab from editing and asks for a reload, which opens the copy with the new app.
 * The notes in memory can still be read and searched; whatever would write the copy (or clear
 * it, as signing out does) is disabled or, when pressed, says that the tab must reload
 * ({@link refusedOutdated}), never failing out of sight.
 */
function outdated(): void {
  if (state.outdated) return
  state.outdated = true
  ui.editor.readOnly = true
  ui.newNote.disabled = true
  ui.del.disabled = true
  showProblem(OUTDATED)
  ui.update.hidden = false
  $('update-reload').addEventListener('click', () => location.reload())
}

/**
 * In a tab that must reload (see {@link outdated}), says so where the person acted, naming
 * what they tried (`to export your notes`), and returns true: the action is not taken.
 */
function refusedOutdated(what: string): boolean {
  if (!state.outdated) return false
  toast(`Notes was updated in another tab: reload this tab ${what}.`, null)
  return true
}

// ---- the text of a closing page ----------------------------------------------------------

// A page being closed or reloaded may end before an IndexedDB write started in `pagehide`
// finishes; localStorage is written at once, so the editor's last words wait there until the
// next start puts them into the copy.
const RESCUE_KEY = `notes-rescue-${userId}`

function rescue(): void {
  if (!state.dirty || state.openId === null) return
  try {
    localStorage.setItem(RESCUE_KEY, JSON.stringify({ id: state.openId, text: ui.editor.value, at: Date.now(), base: state.editorBase, from: state.editorText }))
  } catch {
    // A full disk: the IndexedDB write below is the only chance left.
  }
  void saveNow()
}

function forgetRescue(): void {
  try {
    localStorage.removeItem(RESCUE_KEY)
  } catch {
    // Nothing kept, nothing to forget.
  }
}

async function applyRescue(): Promise<void> {
  // `from` is missing from what an older version of the app kept.
  let kept: { id: string; text: string; at: number; base: number; from?: string } | null = null
  try {
    kept = JSON.parse(localStorage.getItem(RESCUE_KEY) ?? 'null')
  } catch {
    kept = null
  }
  if (kept === null || typeof kept.id !== 'string' || typeof kept.text !== 'string') return
  const note = await local.get(kept.id)
  if (note?.text !== kept.text) await local.edit(kept.id, kept.text, kept.at, { base: kept.base, ...(typeof kept.from === 'string' ? { text: kept.from } : {}) })
  forgetRescue()
}

// ---- sending -------------------------------------------------------------------------------

const send: Send = async (method, path, body, watch) => {
  try {
    const res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
      ...(watch ? { signal: watch.signal } : {}),
    })
    state.unreachable = false
    watch?.alive()
    const text = watch && res.body ? await readWatched(res.body, watch) : await res.text()
    let parsed: unknown = null
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = null
    }
    return { status: res.status, body: parsed }
  } catch {
    state.unreachable = true
    return null
  }
}

/** A body as text, telling `watch` of each piece as it arrives (the sync's time limit is for silence). */
async function readWatched(body: ReadableStream<Uint8Array>, watch: RequestWatch): Promise<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    watch.alive()
    text += decoder.decode(value, { stream: true })
  }
}

/** Offline: the browser says so, or the last request did not reach the server. */
function online(): boolean {
  return navigator.onLine && !state.unreachable
}

async function runSync(): Promise<void> {
  if (state.outdated) return
  if (!navigator.onLine) return refreshStatus()
  await sync.run().catch((error: unknown) => noteError(error))
  await refreshStatus()
}

async function flushSoon(): Promise<void> {
  if (state.outdated) return
  await refreshStatus()
  if (!navigator.onLine) return
  await sync.flush().catch((error: unknown) => noteError(error))
  await refreshStatus()
}

function onEvent(event: SyncEvent): void {
  void handle(event)
}

async function handle(event: SyncEvent): Promise<void> {
  if (event.kind === 'changed') {
    if (event.notes) applyNotes(event.ids, event.notes)
    else await reloadIds(event.ids)
    channel?.postMessage({ ids: event.ids })
  } else if (event.kind === 'merged') {
    // What was typed since the save was sent stays: the answer is merged into the editor's text.
    if (state.openId === event.id && ui.editor.value !== event.text) {
      const merged = mergeText(event.sent, event.text, ui.editor.value)
      if (merged.ok) {
        setEditorText(merged.text)
        const note = state.notes.get(event.id)
        if (note) {
          state.editorText = note.text
          state.editorBase = note.base
        }
      }
    }
  } else if (event.kind === 'copy') {
    await reloadIds([event.id, event.copyId])
    const notice = conflictWords(true).notice(titleOf(state.notes.get(event.id)?.text ?? ''))
    if (state.openId === event.id) {
      if (state.dirty) {
        state.dirty = false
        await local.edit(event.copyId, ui.editor.value, Date.now()).catch(noteError)
        await reloadIds([event.copyId])
      }
      await openNote(event.copyId, { save: false })
    }
    tellConflict(notice, event.id, event.copyId)
  } else if (event.kind === 'kept') {
    await reloadIds([event.id])
    const note = state.notes.get(event.id)
    toast(`“${titleOf(note?.text ?? '')}” was edited on another device, so it was not deleted.`, null)
    if (state.openId === event.id || state.openId === null) await openNote(event.id, { save: state.openId !== null })
    showNotice('This note was edited on another device after you deleted it, so it was kept.')
  } else if (event.kind === 'refused') {
    state.problem = `Not saved: ${event.error}`
  } else if (event.kind === 'signed-out') {
    state.problem = 'Signed out: sign in again to sync'
  }
  await refreshStatus()
}

// ---- the copy in memory -------------------------------------------------------------------

function shown(note: LocalNote): Shown {
  return { ...note, lower: note.text.toLowerCase(), titleLower: titleOf(note.text).toLowerCase() }
}

async function firstScreen(): Promise<void> {
  const started = performance.now()
  const { notes, count } = await local.newest(LIST_LIMIT)
  for (const n of notes) if (!state.notes.has(n.id)) state.notes.set(n.id, shown(n))
  state.stored = count
  sortAndDraw()
  // With notes:read-all, shows in the browser's performance panel where opening spends its time.
  performance.measure('notes:first-screen', { start: started })
}

/** Reads every note into memory, keeping what changed in memory while it read. */
async function reload(): Promise<void> {
  const started = performance.now()
  const before = new Map(state.notes)
  const all = await local.all()
  const notes = new Map(all.map((n) => [n.id, shown(n)]))
  for (const id of new Set([...before.keys(), ...state.notes.keys()])) {
    const now = state.notes.get(id)
    if (now === before.get(id) && !now?.draft) continue
    if (now) notes.set(id, now)
    else notes.delete(id)
  }
  state.notes = notes
  state.loaded = true
  ui.list.removeAttribute('aria-busy')
  sortAndDraw()
  performance.measure('notes:read-all', { start: started })
}

async function reloadIds(ids: readonly string[]): Promise<void> {
  const found = await local.getMany(ids)
  applyNotes(ids, found)
}

/** Takes the stored state of the notes `ids` (`notes`: those still stored) into the screen. */
function applyNotes(ids: readonly string[], notes: readonly LocalNote[]): void {
  const stored = new Map(notes.map((n) => [n.id, n]))
  const arrived: LocalNote[] = []
  for (const id of ids) {
    const note = stored.get(id)
    if (note?.conflictOf && !note.conflictHere && !state.notes.has(id)) arrived.push(note)
    if (note && !note.deleted) state.notes.set(id, shown(note))
    else if (!state.notes.get(id)?.draft) state.notes.delete(id)
  }
  // A conflicted copy made by another device's save: this device is told as well.
  for (const copy of arrived) tellConflict(conflictWords(false).notice(titleOf(state.notes.get(copy.conflictOf!)?.text ?? copy.text)), copy.conflictOf!, copy.id)
  // Sorted and drawn once the sync has sent its next write: pages of a first sync come
  // faster than 10,000 notes are sorted and drawn, and the write need not wait for them.
  drawSoon()
  if (state.openId !== null && ids.includes(state.openId)) refreshOpen()
}

let drawTimer = 0
function drawSoon(): void {
  if (drawTimer !== 0) return
  drawTimer = window.setTimeout(() => {
    drawTimer = 0
    sortAndDraw()
  })
}

/** Shows the open note's newer text unless the person is typing in it. */
function refreshOpen(): void {
  const id = state.openId
  if (id === null) return
  const note = state.notes.get(id)
  if (!note) {
    closeNote()
    return
  }
  if (note.conflictOf && ui.compare.hidden) return void openNote(id, { save: false })
  drawMeta(note)
  const typing = state.dirty || Date.now() - state.lastInput < TYPING_MS
  // Our own text came back accepted: its new base is the one to edit from.
  if (note.text === state.editorText) state.editorBase = note.base
  if (ui.editor.value === note.text) return
  if (!typing) {
    setEditorText(note.text)
    state.editorText = note.text
    state.editorBase = note.base
  }
  else {
    // Looked at again once the typing stops.
    clearTimeout(state.refreshTimer)
    state.refreshTimer = window.setTimeout(refreshOpen, TYPING_MS)
  }
}

function setEditorText(text: string): void {
  const editor = ui.editor
  const before = editor.value
  const focused = document.activeElement === editor
  const start = movedCaret(before, text, editor.selectionStart)
  const end = movedCaret(before, text, editor.selectionEnd)
  editor.value = text
  if (focused) editor.setSelectionRange(start, end)
}

function sortAndDraw(): void {
  const started = performance.now()
  clearTimeout(drawTimer)
  drawTimer = 0
  state.order = [...state.notes.values()].sort((a, b) => b.edited - a.edited || (a.id < b.id ? -1 : 1))
  drawList()
  // Read by the bench (bench/notes-app.bench.ts): the time the list takes to sort and draw.
  performance.measure('notes:draw', { start: started })
}

// ---- the list -----------------------------------------------------------------------------

function drawList(): void {
  const query = parseQuery(ui.search.value)
  const found = query === null ? state.order : search(state.order, query)
  const now = Date.now()
  const items = found.slice(0, LIST_LIMIT).map((note) => listItem(note, now))
  let matches = found.length
  // Before every note is read, the list without a search counts the stored ones; a search
  // is drawn again when they are all read.
  if (!state.loaded && query === null) matches = Math.max(matches, state.stored)
  if (matches > LIST_LIMIT) {
    const more = document.createElement('li')
    more.className = 'more'
    more.textContent = `${matches - LIST_LIMIT} more: search to find them`
    items.push(more)
  }
  ui.list.replaceChildren(...items)
  ui.empty.hidden = matches > 0
  ui.empty.textContent = !state.loaded ? 'Looking through every note…' : state.notes.size === 0 ? 'No notes yet. “New note” starts one.' : 'No note has these words.'
}

function listItem(note: Shown, now: number): HTMLLIElement {
  const li = document.createElement('li')
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'item'
  button.dataset.id = note.id
  if (note.id === state.openId) button.setAttribute('aria-current', 'true')
  const title = document.createElement('span')
  title.className = 'title'
  title.textContent = titleOf(note.text)
  button.append(title)
  if (note.conflictOf) {
    const badge = document.createElement('span')
    badge.className = 'badge'
    badge.textContent = 'Conflicted copy'
    button.append(' ', badge)
  }
  const meta = document.createElement('span')
  meta.className = 'meta'
  const time = document.createElement('time')
  time.dateTime = new Date(note.edited).toISOString()
  time.textContent = shortTime(note.edited, now)
  meta.append(time)
  const preview = previewOf(note.text)
  if (preview) meta.append(` ${preview}`)
  button.append(meta)
  li.append(button)
  return li
}

// ---- the editor ---------------------------------------------------------------------------

async function openNote(id: string, options: { save?: boolean; focus?: boolean } = {}): Promise<void> {
  // Another note opens at once, with the text of the one left taken for saving first, so
  // that what is typed next lands in the note now shown.
  const saved = options.save !== false ? saveNow() : Promise.resolve()
  if (state.openId === id) await saved
  else dropEmptyDraft()
  const note = state.notes.get(id)
  if (!note) return
  state.openId = id
  state.dirty = false
  address.show(id)
  ui.app.dataset.view = 'note'
  ui.placeholder.hidden = true
  ui.history.hidden = true
  ui.notice.hidden = true
  // The last conflict's notice stays with its note and copy until one of them is sorted out.
  if (state.conflictNotice?.ids.includes(id)) showNotice(state.conflictNotice.text)
  ui.del.disabled = state.outdated
  ui.historyButton.disabled = false
  drawMeta(note)
  if (note.conflictOf) {
    showCompare(note)
  } else {
    ui.compare.hidden = true
    ui.editor.hidden = false
    ui.editor.value = note.text
    state.editorText = note.text
    state.editorBase = note.base
    if (options.focus) ui.editor.focus()
  }
  drawList()
  await saved
}

function drawMeta(note: Shown): void {
  ui.edited.textContent = note.draft ? 'New note' : `Edited ${new Date(note.edited).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`
}

function closeNote(): void {
  state.openId = null
  state.dirty = false
  address.show(null)
  ui.app.dataset.view = 'list'
  ui.editor.value = ''
  ui.editor.hidden = false
  ui.compare.hidden = true
  ui.history.hidden = true
  ui.notice.hidden = true
  ui.placeholder.hidden = false
  ui.edited.textContent = ''
  ui.del.disabled = true
  ui.historyButton.disabled = true
  drawList()
}

/** A draft left without a word is forgotten. */
function dropEmptyDraft(): void {
  const open = state.openId === null ? undefined : state.notes.get(state.openId)
  if (open?.draft && ui.editor.value === '') {
    state.notes.delete(open.id)
    sortAndDraw()
  }
}

async function newNote(): Promise<void> {
  // The button is disabled then; Alt+N still comes here.
  if (refusedOutdated('to write a new note')) return
  const saved = saveNow()
  const now = Date.now()
  const id = newNoteId(now)
  state.notes.set(id, { id, text: '', base: 0, edited: now, lower: '', titleLower: '', draft: true })
  if (ui.search.value !== '') ui.search.value = ''
  sortAndDraw()
  await openNote(id, { save: false, focus: true })
  await saved
}

function onInput(): void {
  if (state.outdated) return
  state.dirty = true
  state.lastInput = Date.now()
  clearTimeout(state.saveTimer)
  state.saveTimer = window.setTimeout(() => void saveNow(), SAVE_AFTER_MS)
  void refreshStatus()
}

let saving: Promise<void> = Promise.resolve()

/** What the editor's text started from, for `local.edit`. */
function editStart(): EditStart {
  return { base: state.editorBase, text: state.editorText }
}

/**
 * Writes the editor's text to the copy (and queues its save), then sends. The note and its
 * text are taken at the call, not when the write before it is done: a person who clicks
 * another note or "New note" and types at once must not have the old note's text read
 * from an editor that already shows the new one.
 */
function saveNow(): Promise<void> {
  clearTimeout(state.saveTimer)
  const id = state.openId
  if (!state.dirty || id === null) return saving
  const text = ui.editor.value
  const from = editStart()
  state.dirty = false
  saving = saving.then(async () => {
    try {
      const started = performance.now()
      const note = await local.edit(id, text, Date.now(), from)
      if (state.openId === id) state.editorText = text
      // Read by the bench (bench/notes-app.bench.ts): how long a keystroke takes to be kept.
      performance.measure('notes:keep-edit', { start: started })
      forgetRescue()
      if (state.problem?.startsWith('Storage full')) state.problem = null
      state.notes.set(id, shown(note))
      if (state.openId === id) drawMeta(state.notes.get(id)!)
      sortAndDraw()
      channel?.postMessage({ ids: [id] })
    } catch (error) {
      if (state.openId === id && ui.editor.value === text) state.dirty = true
      noteError(error)
      await refreshStatus()
      return
    }
    void flushSoon()
  })
  return saving
}

async function deleteOpen(): Promise<void> {
  const id = state.openId
  if (id === null || refusedOutdated('to delete a note')) return
  const note = state.notes.get(id)
  if (!note) return
  clearTimeout(state.saveTimer)
  if (note.draft) {
    state.dirty = false
    state.notes.delete(id)
    closeNote()
    sortAndDraw()
    return
  }
  await saveNow()
  try {
    await local.remove(id, Date.now(), UNDO_MS)
  } catch (error) {
    noteError(error)
    return
  }
  state.notes.delete(id)
  closeNote()
  sortAndDraw()
  channel?.postMessage({ ids: [id] })
  await refreshStatus()
  toast(`Deleted “${titleOf(note.text)}”.`, async () => {
    if (refusedOutdated('to undo the delete')) return
    if (await local.undoRemove(id)) {
      await reloadIds([id])
      channel?.postMessage({ ids: [id] })
      await openNote(id, { save: true })
      await refreshStatus()
    }
  })
  setTimeout(() => void flushSoon(), UNDO_MS + 100)
}

// ---- conflicted copies --------------------------------------------------------------------

/**
 * Says that a conflict happened: above the note or the copy when one of them is open (and again
 * whenever one of them is opened, until the copy is sorted out), and in a message that opens the
 * copy unless it is open.
 */
function tellConflict(text: string, noteId: string, copyId: string): void {
  state.conflictNotice = { ids: [noteId, copyId], text }
  if (state.openId === noteId || state.openId === copyId) showNotice(text)
  // The copy open shows both versions already; anywhere else a message leads to it.
  if (state.openId !== copyId) toast(text, { label: 'Compare', run: () => openNote(copyId) })
}

function showCompare(copy: Shown): void {
  const original = copy.conflictOf ? state.notes.get(copy.conflictOf) : undefined
  ui.editor.hidden = !original ? false : true
  if (!original) {
    // The note it came from is gone here: it is an ordinary note now.
    if (!state.outdated) void local.mark(copy.id, {}).then(() => reloadIds([copy.id]), noteError)
    ui.compare.hidden = true
    ui.editor.value = copy.text
    state.editorText = copy.text
    state.editorBase = copy.base
    return
  }
  const words = conflictWords(copy.conflictHere === true)
  $('compare-hint').textContent = words.hint
  $('compare-original-title').textContent = words.noteSide
  $('compare-copy-title').textContent = words.copySide
  $('keep-this').textContent = words.keepCopy
  const parts = lineParts(original.text, copy.text)
  drawParts($('compare-original'), parts, new Set(['same', 'removed']))
  drawParts($('compare-copy'), parts, new Set(['same', 'added']))
  ui.compare.hidden = false
}

async function resolveConflict(how: 'both' | 'this' | 'hand'): Promise<void> {
  const copy = state.openId === null ? undefined : state.notes.get(state.openId)
  if (!copy?.conflictOf || refusedOutdated('to sort out this conflicted copy')) return
  const original = state.notes.get(copy.conflictOf)
  if (state.conflictNotice?.ids.includes(copy.id)) state.conflictNotice = null
  try {
    if (how === 'both' || !original) {
      await local.mark(copy.id, {})
      await reloadIds([copy.id])
      await openNote(copy.id, { save: false, focus: true })
    } else if (how === 'this') {
      await local.mark(copy.id, {})
      await local.remove(original.id, Date.now(), 0)
      await reloadIds([copy.id, original.id])
      await openNote(copy.id, { save: false, focus: true })
    } else {
      await local.edit(original.id, combined(original.text, copy.text), Date.now())
      await local.remove(copy.id, Date.now(), 0)
      await reloadIds([copy.id, original.id])
      await openNote(original.id, { save: false, focus: true })
    }
    channel?.postMessage({ ids: [copy.id, original?.id ?? copy.id] })
  } catch (error) {
    noteError(error)
  }
  void flushSoon()
}

// ---- history ------------------------------------------------------------------------------

interface Revision extends Version {
  at: number
  text: string
}

async function showHistory(): Promise<void> {
  const id = state.openId
  if (id === null) return
  await saveNow()
  ui.history.hidden = false
  ui.editor.hidden = true
  ui.compare.hidden = true
  ui.revisions.replaceChildren()
  ui.historyHint.textContent = 'Loading the history…'
  const answer = await send('GET', `/api/notes/revisions?id=${encodeURIComponent(id)}`)
  if (state.openId !== id || ui.history.hidden) return
  if (answer === null) {
    ui.historyHint.textContent = 'The history is kept on the server: it shows when this device is online.'
    return
  }
  if (answer.status === 404) {
    ui.historyHint.textContent = 'This note has not reached the server yet, so it has no history.'
    return
  }
  if (answer.status !== 200) {
    ui.historyHint.textContent = `The history could not be read (${answer.body?.error ?? answer.status}).`
    return
  }
  const revisions = answer.body.revisions as Revision[]
  ui.historyHint.textContent = `${revisions.length} saved ${revisions.length === 1 ? 'version' : 'versions'}, newest first. Added lines are marked, removed lines struck through.`
  const times = versionTimes(revisions.map((rev) => rev.edited))
  const items = revisions.map((rev, i) => {
    const li = document.createElement('li')
    const head = document.createElement('div')
    head.className = 'revision-head'
    const when = document.createElement('strong')
    when.textContent = times[i]!
    const who = document.createElement('span')
    who.className = 'muted'
    who.textContent = versionDevice(rev, state.device)
    const said = document.createElement('div')
    said.className = 'revision-said'
    said.append(when, ' ', who)
    head.append(said)
    if (i > 0 || rev.text !== ui.editor.value) {
      const restore = document.createElement('button')
      restore.type = 'button'
      restore.textContent = 'Restore'
      restore.setAttribute('aria-label', `Restore the version of ${when.textContent}`)
      restore.addEventListener('click', () => void restoreRevision(id, rev.text))
      head.append(restore)
    }
    const pre = document.createElement('pre')
    pre.className = 'diff'
    const older = revisions[i + 1]?.text ?? ''
    drawParts(pre, lineParts(older, rev.text), new Set(['same', 'added', 'removed']))
    li.append(head, pre)
    return li
  })
  ui.revisions.replaceChildren(...items)
}

async function restoreRevision(id: string, text: string): Promise<void> {
  if (refusedOutdated('to restore this version')) return
  try {
    await local.edit(id, text, Date.now())
  } catch (error) {
    noteError(error)
    return
  }
  await reloadIds([id])
  closeHistory()
  ui.editor.value = text
  state.editorText = text
  toast('Restored: the old text is the note again, and it syncs like any edit.', null)
  void flushSoon()
}

function closeHistory(): void {
  ui.history.hidden = true
  const note = state.openId === null ? undefined : state.notes.get(state.openId)
  if (note?.conflictOf) showCompare(note)
  else ui.editor.hidden = false
}

// ---- export, sign-out ---------------------------------------------------------------------

async function exportAll(): Promise<void> {
  // The copy belongs to the newer version now, and the notes in memory may be behind it.
  if (refusedOutdated('to export your notes')) return
  await saveNow()
  const notes = (await local.all()).sort((a, b) => b.edited - a.edited)
  const zip = exportZip(notes, Date.now())
  const url = URL.createObjectURL(new Blob([zip as BlobPart], { type: 'application/zip' }))
  const a = document.createElement('a')
  a.href = url
  a.download = `notes-${new Date().toISOString().slice(0, 10)}.zip`
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

async function signOut(): Promise<void> {
  // This tab can no longer see whether edits are waiting, so it never clears the copy.
  if (refusedOutdated('to sign out')) return
  await saveNow()
  if (navigator.onLine) await sync.flush().catch(() => false)
  const waiting = await local.waiting()
  if (waiting > 0 && !confirm(`${waiting} ${waiting === 1 ? 'change has' : 'changes have'} not reached the server yet, and signing out deletes this browser's copy. Sign out anyway and lose ${waiting === 1 ? 'it' : 'them'}?`)) return
  const answer = await send('POST', '/logout', {})
  if (answer === null || answer.status !== 200) {
    state.problem = 'Signing out needs a connection'
    await refreshStatus()
    return
  }
  channel?.postMessage({ signedOut: true })
  await local.destroy().catch(() => {})
  if ('caches' in window) for (const key of await caches.keys()) await caches.delete(key)
  location.assign('/')
}

// ---- status, notices ----------------------------------------------------------------------

async function refreshStatus(): Promise<void> {
  const waiting = (await local.waiting().catch(() => 0)) + (state.dirty ? 1 : 0)
  const text = statusText({ online: online(), waiting, problem: state.problem })
  if (ui.status.textContent !== text) ui.status.textContent = text
  ui.status.dataset.state = !online() ? 'offline' : state.problem ? 'problem' : waiting > 0 ? 'waiting' : 'saved'
}

function showProblem(text: string): void {
  state.problem = text
  ui.status.textContent = text
  ui.status.dataset.state = 'problem'
}

function noteError(error: unknown): void {
  // The copy was closed for a newer version: the status line already asks for a reload.
  if (state.outdated) return
  if (isQuota(error)) {
    state.problem = 'Storage full: the last edit is not kept on this device'
    showNotice('This device is out of storage space, so your last edit could not be kept here. It stays in the editor: free some space, then keep typing.')
  } else {
    state.problem = `Not kept: ${describe(error)}`
  }
  void refreshStatus()
}

function isQuota(error: unknown): boolean {
  const e = error as { name?: string; inner?: { name?: string } } | null
  return e?.name === 'QuotaExceededError' || e?.inner?.name === 'QuotaExceededError'
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function showNotice(text: string): void {
  ui.notice.textContent = text
  ui.notice.hidden = false
}

let toastTimer = 0
/** A message at the foot of the screen, with an action (Undo, unless it says otherwise). */
function toast(text: string, action: (() => Promise<void>) | { label: string; run: () => Promise<void> } | null): void {
  clearTimeout(toastTimer)
  const act = typeof action === 'function' ? { label: 'Undo', run: action } : action
  ui.toastText.textContent = text
  ui.toastAction.hidden = act === null
  ui.toastAction.textContent = act?.label ?? 'Undo'
  ui.toastAction.onclick = act === null ? null : () => {
    ui.toast.hidden = true
    void act.run()
  }
  ui.toast.hidden = false
  toastTimer = window.setTimeout(() => (ui.toast.hidden = true), typeof action === 'function' ? UNDO_MS : 8_000)
}

// ---- service worker -----------------------------------------------------------------------

function registerWorker(): void {
  if (!('serviceWorker' in navigator)) return
  let reloadAsked = false
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).then((reg) => {
    // A worker waiting while another controls the page is a new version: offer it. (The first
    // worker of all takes over by itself and needs no reload.)
    const offer = () => {
      if (reg.waiting && navigator.serviceWorker.controller) ui.update.hidden = false
    }
    offer()
    reg.addEventListener('updatefound', () => {
      reg.installing?.addEventListener('statechange', offer)
    })
  }).catch(() => {})
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (reloadAsked) location.reload()
  })
  $('update-reload').addEventListener('click', async () => {
    // Queued edits are in IndexedDB and survive the reload; the editor's text is written first.
    await saveNow()
    reloadAsked = true
    const reg = await navigator.serviceWorker.getRegistration()
    if (reg?.waiting) {
      reg.waiting.postMessage('skip-waiting')
      // The person asked for the new version: reload even if the switch is slow to be told.
      setTimeout(() => location.reload(), 3_000)
    } else location.reload()
  })
}

// ---- wiring -------------------------------------------------------------------------------

function wire(): void {
  ui.newNote.addEventListener('click', () => void newNote())
  ui.list.addEventListener('click', (e) => {
    const item = (e.target as HTMLElement).closest<HTMLButtonElement>('button.item')
    // From the keyboard (no pointer: `detail` 0) the editor takes the focus on a phone too,
    // rather than the list item it hides.
    if (item?.dataset.id) void openNote(item.dataset.id, { focus: e.detail === 0 || window.matchMedia('(min-width: 44rem)').matches })
  })
  ui.search.addEventListener('input', () => drawList())
  ui.search.addEventListener('keydown', onListKey)
  ui.list.addEventListener('keydown', onListKey)
  ui.editor.addEventListener('input', onInput)
  ui.editor.addEventListener('blur', () => void saveNow())
  ui.back.addEventListener('click', () => void backToList())
  ui.del.addEventListener('click', () => void deleteOpen())
  ui.historyButton.addEventListener('click', () => void showHistory())
  $('history-close').addEventListener('click', closeHistory)
  $('keep-both').addEventListener('click', () => void resolveConflict('both'))
  $('keep-this').addEventListener('click', () => void resolveConflict('this'))
  $('edit-by-hand').addEventListener('click', () => void resolveConflict('hand'))
  wireAccount()
  ui.del.disabled = true
  ui.historyButton.disabled = true

  window.addEventListener('online', () => void runSync())
  window.addEventListener('offline', () => void refreshStatus())
  window.addEventListener('focus', () => void runSync())
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') rescue()
    else void runSync()
  })
  window.addEventListener('pagehide', rescue)
  window.addEventListener('beforeunload', rescue)
  channel?.addEventListener('message', (e: MessageEvent) => {
    const data = e.data as { ids?: string[]; signedOut?: boolean }
    if (data.signedOut) location.assign('/')
    else if (data.ids && !state.outdated) void reloadIds(data.ids).then(refreshStatus)
  })
  document.addEventListener('keydown', onKey)
  window.addEventListener('popstate', () => void followAddress())
}

/** Opens the note the address names (a reload, a link), or forgets an address of no note. */
async function openFromAddress(): Promise<void> {
  const id = address.current()
  if (id === null) return
  if (state.notes.has(id)) {
    address.adopt()
    await openNote(id, { save: false })
  } else if (state.loaded) address.show(null)
}

/** The browser's back and forward buttons: the screen follows the address. */
async function followAddress(): Promise<void> {
  const id = address.current()
  const noteShown = ui.app.dataset.view === 'note'
  if (id === null) {
    if (noteShown) await backToList()
  } else if ((id !== state.openId || !noteShown) && state.notes.has(id)) await openNote(id)
}

/** "Export all notes" and "Sign out", also wired in a tab that could not open the copy. */
function wireAccount(): void {
  $('export').addEventListener('click', () => void exportAll())
  $('sign-out').addEventListener('click', () => void signOut())
}

async function backToList(): Promise<void> {
  await saveNow()
  const id = state.openId
  dropEmptyDraft()
  address.show(null)
  ui.app.dataset.view = 'list'
  ui.history.hidden = true
  const item = id === null ? null : ui.list.querySelector<HTMLButtonElement>(`button.item[data-id="${CSS.escape(id)}"]`)
  ;(item ?? ui.search).focus()
}

/** Arrow keys from the search box through the results; Enter in the box opens the first. */
function onListKey(e: KeyboardEvent): void {
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return
  const items = [...ui.list.querySelectorAll<HTMLButtonElement>('button.item')]
  if (e.target === ui.search && e.key === 'Enter') {
    if (items[0]) {
      e.preventDefault()
      items[0].click()
    }
    return
  }
  const from = e.target === ui.search ? SEARCH_BOX : items.indexOf(e.target as HTMLButtonElement)
  if (from === SEARCH_BOX && e.target !== ui.search) return
  const to = moveTo(e.key, from, items.length)
  if (to === null) return
  e.preventDefault()
  ;(to === SEARCH_BOX ? ui.search : items[to]!).focus()
}

function onKey(e: KeyboardEvent): void {
  const typingField = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement
  if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyN') {
    e.preventDefault()
    void newNote()
  } else if ((e.key === 'k' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !typingField)) {
    e.preventDefault()
    ui.search.focus()
    ui.search.select()
  } else if (e.key === 'Escape') {
    if (e.target === ui.search && ui.search.value !== '') {
      ui.search.value = ''
      drawList()
    } else if (!ui.history.hidden) closeHistory()
    else if (state.openId !== null) void backToList()
  }
}
