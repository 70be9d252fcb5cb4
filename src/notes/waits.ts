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

/** A note's state as a write left it. */
export interface NoteNow {
  edited: number
  gone: boolean
}

export interface Wakes {
  /**
   * Wakes the waits on the note `note` of `owner`, with its state after a write (none: look at
   * the note again, as after an unshare).
   */
  wake(owner: string, note: string, now?: NoteNow): void
  /**
   * Resolves when the note of `key` (owner and note id, a line apart) is written in this process
   * (with its state when the writer told it), after `ms`, or when `stop` aborts (with null),
   * whichever is first.
   */
  next(key: string, ms: number, stop: AbortSignal): Promise<NoteNow | null>
  /** How many waits are held. */
  readonly held: number
}

export function createWakes(): Wakes {
  const waiting = new Map<string, Set<(now?: NoteNow) => void>>()
  let held = 0
  return {
    wake(owner, note, now) {
      const set = waiting.get(`${owner}\n${note}`)
      if (set) for (const done of [...set]) done(now)
    },
    next(key, ms, stop) {
      return new Promise<NoteNow | null>((resolve) => {
        const set = waiting.get(key) ?? new Set()
        waiting.set(key, set)
        held++
        const done = (now?: NoteNow) => {
          if (!set.delete(done)) return
          held--
          if (set.size === 0) waiting.delete(key)
          clearTimeout(timer)
          stop.removeEventListener('abort', ended)
          resolve(now ?? null)
        }
        const ended = () => done()
        set.add(done)
        const timer = setTimeout(ended, ms)
        if (stop.aborted) ended()
        else stop.addEventListener('abort', ended)
      })
    },
    get held() {
      return held
    },
  }
}
