/**
 * `GET /api/notes/wait`: an open note follows the saves of the other people it is shared with
 * (docs/notes-api.md, "Following a shared note"). The request is held until the note's `edited`
 * is no longer the one the page has, or {@link HOLD_MS} pass. A save in this process wakes its
 * waits at once (the store tells {@link Wakes.wake}); a save in another process is seen by the
 * wait's own look at the note every {@link LOOK_MS}, one indexed read of one row.
 *
 * @module
 */

/** How long a wait is held with nothing new. */
export const HOLD_MS = 25_000
/** How often a held wait looks at its note, for saves made in other processes. */
export const LOOK_MS = 1_000
/** Waits held at once in one process past which a wait is answered 503. */
export const MAX_WAITS = 10_000

export interface Wakes {
  /** Wakes the waits on the note `note` of `owner`. */
  wake(owner: string, note: string): void
  /**
   * Resolves when the note of `key` (owner and note id, a line apart) is saved in this process,
   * after `ms`, or when `stop` aborts, whichever is first.
   */
  next(key: string, ms: number, stop: AbortSignal): Promise<void>
  /** How many waits are held. */
  readonly held: number
}

export function createWakes(): Wakes {
  const waiting = new Map<string, Set<() => void>>()
  let held = 0
  return {
    wake(owner, note) {
      const set = waiting.get(`${owner}\n${note}`)
      if (set) for (const done of [...set]) done()
    },
    next(key, ms, stop) {
      return new Promise<void>((resolve) => {
        const set = waiting.get(key) ?? new Set()
        waiting.set(key, set)
        held++
        const done = () => {
          if (!set.delete(done)) return
          held--
          if (set.size === 0) waiting.delete(key)
          clearTimeout(timer)
          stop.removeEventListener('abort', done)
          resolve()
        }
        set.add(done)
        const timer = setTimeout(done, ms)
        if (stop.aborted) done()
        else stop.addEventListener('abort', done)
      })
    },
    get held() {
      return held
    },
  }
}
