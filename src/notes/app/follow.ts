/**
 * The open note follows the other people's saves while it is shared (docs/notes-app.md,
 * "Sharing with people"): the page holds `GET /api/notes/wait` (docs/notes-api.md), which answers
 * as soon as the note changes on the server, and then reads it (the shared notes, or this
 * person's changes) as the sync does; the editor takes the new text unless the person is typing
 * (editor-view.ts, `refreshOpen`). One wait at a time, for the open note only; it ends when the
 * note closes or stops being shared.
 *
 * @module
 */
import type { App } from './app.ts'

const RETRY_FIRST_MS = 1_000
const RETRY_MAX_MS = 30_000

export function createFollow(app: App) {
  const { state } = app
  let current: { id: string; stop: AbortController } | null = null

  /** The note is shared: with this person, or by them with others. */
  function followed(id: string): boolean {
    const note = state.notes.get(id)
    return (
      note !== undefined &&
      !note.draft &&
      !note.conflictOf &&
      (note.shared !== undefined || state.sharesOut.has(id))
    )
  }

  function pause(ms: number, stop: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      stop.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  async function follow(id: string, stop: AbortSignal): Promise<void> {
    let known = 0
    let failures = 0
    while (!stop.aborted && state.openId === id && followed(id)) {
      const note = state.notes.get(id)!
      known = Math.max(known, note.base)
      let answer: Response
      try {
        answer = await fetch(`/api/notes/wait?id=${encodeURIComponent(id)}&edited=${known}`, {
          credentials: 'same-origin',
          cache: 'no-store',
          signal: stop,
        })
      } catch {
        if (stop.aborted) return
        failures++
        await pause(Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** failures), stop)
        continue
      }
      if (answer.status === 404) {
        // No longer shared with this person: the sync takes it out, keeping what they typed.
        await app.sync.pullShared()
        return
      }
      if (answer.status !== 200) {
        failures++
        await pause(Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** failures), stop)
        continue
      }
      failures = 0
      const now = (await answer.json()) as { edited: number; gone: boolean }
      if (now.edited === known && !now.gone) continue
      known = now.edited
      if (note.shared) await app.sync.pullShared()
      else await app.sync.pull()
    }
  }

  return {
    /** Follows the open note when it is shared, and stops following any other. */
    followOpen(): void {
      const id = state.openId
      if (current !== null && current.id === id && followed(id)) return
      current?.stop.abort()
      current = null
      if (id === null || !followed(id)) return
      const stop = new AbortController()
      current = { id, stop }
      void follow(id, stop.signal).finally(() => {
        if (current?.stop === stop) current = null
      })
    },
  }
}
