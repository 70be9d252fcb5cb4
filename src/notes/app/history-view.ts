/**
 * A note's history: its saved versions from the server, each with its differences from the one
 * before, and restoring one.
 *
 * @module
 */
import type { Actions, App } from './app.ts'
import { drawParts, lineParts } from './diff-view.ts'
import {
  DEVICE_NAME_KEY,
  DEVICE_NAME_MAX,
  deviceName,
  versionDevice,
  versionTimes,
  type Version,
} from './versions.ts'

interface Revision extends Version {
  at: number
  text: string
  /** Who saved it (docs/notes-api.md, "History"), shown on a shared note. */
  by?: string | null
}

export function createHistoryView(app: App) {
  const { ui, state, act } = app

  async function restoreRevision(id: string, text: string): Promise<void> {
    if (act.refusedOutdated('to restore this version')) return
    try {
      await app.local.edit(id, text, Date.now())
    } catch (error) {
      act.noteError(error)
      return
    }
    await act.reloadIds([id])
    view.closeHistory()
    ui.editor.value = text
    state.editorText = text
    act.toast('Restored: the old text is the note again, and it syncs like any edit.', null)
    void act.flushSoon()
  }

  function revisionItem(
    id: string,
    rev: Revision,
    time: string,
    older: string,
    first: boolean,
    byWhom: boolean,
  ): HTMLLIElement {
    const li = document.createElement('li')
    const head = document.createElement('div')
    head.className = 'revision-head'
    const when = document.createElement('strong')
    when.textContent = time
    const who = document.createElement('span')
    who.className = 'muted'
    const device = versionDevice(rev, state.device, localStorage.getItem(DEVICE_NAME_KEY) ?? '')
    who.textContent = byWhom && rev.by ? `by ${rev.by}, ${device}` : device
    const said = document.createElement('div')
    said.className = 'revision-said'
    said.append(when, ' ', who)
    head.append(said)
    if ((!first || rev.text !== ui.editor.value) && !ui.editor.readOnly) {
      const restore = document.createElement('button')
      restore.type = 'button'
      restore.textContent = 'Restore'
      restore.setAttribute('aria-label', `Restore the version of ${when.textContent}`)
      restore.addEventListener('click', () => void restoreRevision(id, rev.text))
      head.append(restore)
    }
    const pre = document.createElement('pre')
    pre.className = 'diff'
    drawParts(pre, lineParts(older, rev.text), new Set(['same', 'added', 'removed']))
    li.append(head, pre)
    return li
  }

  const view = {
    /** The form that names this device: kept in this browser, sent with each save from now on. */
    wireDeviceName(): void {
      ui.deviceName.maxLength = DEVICE_NAME_MAX
      ui.deviceName.placeholder = deviceName(navigator.userAgent)
      ui.deviceName.value = localStorage.getItem(DEVICE_NAME_KEY) ?? ''
      ui.deviceForm.addEventListener('submit', (e) => {
        e.preventDefault()
        const name = ui.deviceName.value.replace(/\s+/g, ' ').trim().slice(0, DEVICE_NAME_MAX)
        if (name === '') localStorage.removeItem(DEVICE_NAME_KEY)
        else localStorage.setItem(DEVICE_NAME_KEY, name)
        ui.deviceName.value = name
        act.toast(
          name === ''
            ? `This device is called by its browser again: ${deviceName(navigator.userAgent)}.`
            : `This device is now called ${name}. Versions saved here from now on say so.`,
          null,
        )
      })
    },

    async showHistory(): Promise<void> {
      const id = state.openId
      if (id === null) return
      await act.saveNow()
      ui.history.hidden = false
      ui.editor.hidden = true
      ui.reading.hidden = true
      ui.share.hidden = true
      ui.compare.hidden = true
      ui.revisions.replaceChildren()
      ui.historyHint.textContent = 'Loading the history…'
      const answer = await app.send('GET', `/api/notes/revisions?id=${encodeURIComponent(id)}`)
      if (state.openId !== id || ui.history.hidden) return
      if (answer === null) {
        ui.historyHint.textContent =
          'The history is kept on the server: it shows when this device is online.'
        return
      }
      if (answer.status === 404) {
        ui.historyHint.textContent =
          'This note has not reached the server yet, so it has no history.'
        return
      }
      if (answer.status !== 200) {
        ui.historyHint.textContent = `The history could not be read (${answer.body?.error ?? answer.status}).`
        return
      }
      const revisions = answer.body.revisions as Revision[]
      ui.historyHint.textContent = `${revisions.length} saved ${revisions.length === 1 ? 'version' : 'versions'}, newest first. Added lines are marked, removed lines struck through.`
      const times = versionTimes(revisions.map((rev) => rev.edited))
      // Who wrote each version, on a note that is or was written by more than one person.
      const note = state.notes.get(id)
      const byWhom =
        note?.shared !== undefined ||
        state.sharesOut.has(id) ||
        new Set(revisions.map((rev) => rev.by)).size > 1
      ui.revisions.replaceChildren(
        ...revisions.map((rev, i) =>
          revisionItem(id, rev, times[i]!, revisions[i + 1]?.text ?? '', i === 0, byWhom),
        ),
      )
    },

    closeHistory(): void {
      ui.history.hidden = true
      const note = state.openId === null ? undefined : state.notes.get(state.openId)
      if (note?.conflictOf) act.showCompare(note)
      else act.showMode()
    },
  } satisfies Partial<Actions> & Record<string, unknown>
  return view
}
