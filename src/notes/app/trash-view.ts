/**
 * "Recently deleted": the deleted notes of the last 30 days with their last text, read from the
 * copy (so offline too) and brought up to date from the server when it can be reached;
 * **Restore** brings one back as an edit queued like a save, **Empty trash** removes them all for
 * good on the server.
 *
 * @module
 */
import { $, type App } from './app.ts'
import type { TrashEntry } from './local.ts'
import { shortTime, titleOf } from './text.ts'

/** How long the server keeps a deleted note's text (docs/notes-api.md, "Recently deleted"). */
export const TRASH_DAYS = 30
const TRASH_MS = TRASH_DAYS * 24 * 60 * 60 * 1000

const DATE = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'long', year: 'numeric' })

/** The entries of `trash` the list shows at `now`: within their 30 days, and not live again. */
export function shownTrash(
  trash: readonly TrashEntry[],
  live: ReadonlyMap<string, unknown>,
  now: number,
): TrashEntry[] {
  return trash.filter((entry) => entry.deleted + TRASH_MS > now && !live.has(entry.id))
}

/** The first lines of a deleted note, to know it again by. */
function excerpt(text: string): string {
  const lines = text.split('\n')
  const head = lines.slice(0, 6).join('\n').slice(0, 600)
  return head.length < text.length ? `${head.trimEnd()}\n…` : head
}

export function createTrashView(app: App) {
  const { ui, state, act } = app
  let shown: TrashEntry[] = []

  function item(entry: TrashEntry, now: number): HTMLLIElement {
    const li = document.createElement('li')
    const head = document.createElement('div')
    head.className = 'revision-head'
    const said = document.createElement('div')
    said.className = 'revision-said'
    const title = document.createElement('strong')
    title.id = `trash-title-${entry.id}`
    title.textContent = titleOf(entry.text)
    const when = document.createElement('span')
    when.className = 'muted'
    const time = document.createElement('time')
    time.dateTime = new Date(entry.deleted).toISOString()
    time.textContent = shortTime(entry.deleted, now)
    when.append('Deleted ', time, `, kept until ${DATE.format(new Date(entry.deleted + TRASH_MS))}`)
    said.append(title, when)
    const restore = document.createElement('button')
    restore.type = 'button'
    restore.textContent = 'Restore'
    restore.dataset.restore = entry.id
    restore.setAttribute('aria-describedby', title.id)
    head.append(said, restore)
    const pre = document.createElement('pre')
    pre.className = 'diff'
    pre.textContent = excerpt(entry.text)
    li.append(head, pre)
    return li
  }

  async function draw(): Promise<void> {
    const now = Date.now()
    shown = shownTrash(await app.local.trash(), state.notes, now)
    ui.trashList.replaceChildren(...shown.map((entry) => item(entry, now)))
    $('trash-hint').textContent =
      shown.length === 0
        ? 'Nothing deleted in the last 30 days.'
        : `Deleted notes stay here for ${TRASH_DAYS} days with their last text, then are removed for good.`
    $<HTMLButtonElement>('empty-trash').disabled = shown.length === 0
  }

  /** The server's trash into the copy, when it can be reached; the list is drawn again. */
  async function refresh(): Promise<void> {
    const answer = await app.send('GET', '/api/notes/trash')
    if (answer?.status !== 200 || ui.trash.hidden) return
    await app.local.replaceTrash(answer.body.notes as TrashEntry[])
    await draw()
  }

  async function restore(id: string): Promise<void> {
    if (act.refusedOutdated('to restore a note')) return
    let note
    try {
      note = await app.notes.restore(id)
    } catch (error) {
      act.noteError(error)
      return
    }
    if (!note) return draw()
    act.sortAndDraw()
    app.channel?.postMessage({ ids: [id] })
    act.toast(`Restored “${titleOf(note.text)}”.`, null)
    await act.openNote(id, { save: false })
    await act.refreshStatus()
    void act.flushSoon()
  }

  async function emptyTrash(): Promise<void> {
    if (act.refusedOutdated('to empty the trash')) return
    const count = shown.length
    if (count === 0) return
    if (
      !confirm(
        `Remove the ${count === 1 ? 'note' : `${count} notes`} in Recently deleted for good? This cannot be undone.`,
      )
    )
      return
    // Deletes waiting here go first, so that the trash emptied holds them too.
    if (navigator.onLine) await app.sync.flush().catch(() => false)
    const answer = await app.send('POST', '/api/notes/trash', { op: 'empty' })
    if (answer?.status !== 200) {
      $('trash-hint').textContent =
        answer === null
          ? 'Emptying the trash needs a connection: try again when this device is online.'
          : `The trash could not be emptied (${answer.body?.error ?? answer.status}).`
      return
    }
    const waiting = new Set(
      (await app.local.pending()).filter((e) => e.op === 'delete').map((e) => e.id),
    )
    await app.local.dropTrash(
      (await app.local.trash()).map((e) => e.id).filter((id) => !waiting.has(id)),
    )
    await draw()
    act.toast(
      `Removed ${answer.body.removed} ${answer.body.removed === 1 ? 'note' : 'notes'} for good.`,
      null,
    )
  }

  const view = {
    async showTrash(): Promise<void> {
      await act.saveNow()
      if (state.openId !== null) act.closeNote()
      act.closeImport()
      ui.app.dataset.view = 'note'
      ui.placeholder.hidden = true
      ui.editor.hidden = true
      ui.trash.hidden = false
      $('show-trash').setAttribute('aria-current', 'true')
      await draw()
      $('trash-title').focus()
      await refresh()
    },

    closeTrash(): void {
      if (ui.trash.hidden) return
      ui.trash.hidden = true
      $('show-trash').removeAttribute('aria-current')
      ui.editor.hidden = false
      if (state.openId === null) {
        ui.placeholder.hidden = false
        ui.app.dataset.view = 'list'
      }
    },

    wireTrash(): void {
      $('show-trash').addEventListener('click', () => void view.showTrash())
      $('trash-close').addEventListener('click', () => {
        view.closeTrash()
        $('show-trash').focus()
      })
      $('empty-trash').addEventListener('click', () => void emptyTrash())
      ui.trashList.addEventListener('click', (e) => {
        const id = (e.target as HTMLElement).closest<HTMLButtonElement>('button[data-restore]')
          ?.dataset.restore
        if (id !== undefined) void restore(id)
      })
    },
  }
  return view
}
