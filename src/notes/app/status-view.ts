/**
 * The status line, notices, the toast at the foot of the screen, and what a tab too old for
 * the copy still does (it says so where the person acted, never failing out of sight); also the
 * runs of the sync, which end by saying where the edits are.
 *
 * @module
 */
import { $, OUTDATED, UNDO_MS, type Actions, type App, type ToastAction } from './app.ts'
import { statusText } from './text.ts'

type StatusActions = Pick<
  Actions,
  | 'refreshStatus'
  | 'showProblem'
  | 'noteError'
  | 'showNotice'
  | 'toast'
  | 'refusedOutdated'
  | 'outdated'
  | 'runSync'
  | 'flushSoon'
>

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function isQuota(error: unknown): boolean {
  const e = error as { name?: string; inner?: { name?: string } } | null
  return e?.name === 'QuotaExceededError' || e?.inner?.name === 'QuotaExceededError'
}

/** `app.local` and `app.sync` are read only once the copy is open. */
export function createStatusView(
  app: Pick<App, 'ui' | 'state' | 'local' | 'sync' | 'act'>,
): StatusActions {
  const { ui, state } = app
  let toastTimer = 0

  /** Offline: the browser says so, or the last request did not reach the server. */
  const online = () => navigator.onLine && !state.unreachable

  const view: StatusActions = {
    async refreshStatus() {
      const waiting = (await app.local.waiting().catch(() => 0)) + (state.dirty ? 1 : 0)
      const text = statusText({ online: online(), waiting, problem: state.problem })
      if (ui.status.textContent !== text) ui.status.textContent = text
      ui.status.dataset.state = !online()
        ? 'offline'
        : state.problem
          ? 'problem'
          : waiting > 0
            ? 'waiting'
            : 'saved'
    },

    showProblem(text) {
      state.problem = text
      ui.status.textContent = text
      ui.status.dataset.state = 'problem'
    },

    noteError(error) {
      // The copy was closed for a newer version: the status line already asks for a reload.
      if (state.outdated) return
      if (isQuota(error)) {
        state.problem = 'Storage full: the last edit is not kept on this device'
        view.showNotice(
          'This device is out of storage space, so your last edit could not be kept here. It stays in the editor: free some space, then keep typing.',
        )
      } else {
        state.problem = `Not kept: ${describe(error)}`
      }
      void view.refreshStatus()
    },

    showNotice(text) {
      ui.notice.textContent = text
      ui.notice.hidden = false
    },

    /** A message at the foot of the screen, with an action (Undo, unless it says otherwise). */
    toast(text: string, action: ToastAction) {
      clearTimeout(toastTimer)
      const act = typeof action === 'function' ? { label: 'Undo', run: action } : action
      ui.toastText.textContent = text
      ui.toastAction.hidden = act === null
      ui.toastAction.textContent = act?.label ?? 'Undo'
      ui.toastAction.onclick =
        act === null
          ? null
          : () => {
              ui.toast.hidden = true
              void act.run()
            }
      ui.toast.hidden = false
      toastTimer = window.setTimeout(
        () => (ui.toast.hidden = true),
        typeof action === 'function' ? UNDO_MS : 8_000,
      )
    },

    /**
     * In a tab that must reload (see `outdated`), says so where the person acted, naming what
     * they tried (`to export your notes`), and returns true: the action is not taken.
     */
    refusedOutdated(what) {
      if (!state.outdated) return false
      view.toast(`Notes was updated in another tab: reload this tab ${what}.`, null)
      return true
    },

    /**
     * Stops this tab from editing and asks for a reload, which opens the copy with the new app.
     * The notes in memory can still be read and searched; whatever would write the copy (or
     * clear it, as signing out does) is disabled or, when pressed, refused with a word.
     */
    outdated() {
      if (state.outdated) return
      state.outdated = true
      ui.editor.readOnly = true
      ui.newNote.disabled = true
      ui.del.disabled = true
      view.showProblem(OUTDATED)
      ui.update.hidden = false
      $('update-reload').addEventListener('click', () => location.reload())
    },

    async runSync() {
      if (state.outdated) return
      if (!navigator.onLine) return view.refreshStatus()
      const synced = await app.sync.run().catch((error: unknown) => view.noteError(error))
      await app.act.syncPins().catch(() => {})
      // The first sync of a new device is over: an empty list now means there are no notes.
      if (synced === true && state.firstSync) {
        state.firstSync = false
        app.act.drawList()
      }
      await view.refreshStatus()
    },

    async flushSoon() {
      if (state.outdated) return
      await view.refreshStatus()
      if (!navigator.onLine) return
      await app.sync.flush().catch((error: unknown) => view.noteError(error))
      await view.refreshStatus()
    },
  }
  return view
}
