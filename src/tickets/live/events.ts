/**
 * Live events: their names, the channel that wakes pollers in other processes, and the
 * process-local wake-up. They are written by `store/outbox.ts` and delivered by `live.ts`.
 */

export type EventName =
  | 'ticketCreated'
  | 'ticketEvent'
  | 'ticketsRelated'
  | 'connectionsChanged'
  | 'projectChanged'
  | 'membersChanged'
  /** A file uploaded to the project; args `[file]`, the file as the project's list shows it. */
  | 'fileAttached'
  /** A project's open invites changed: one made, revoked, or used (args `[slug]`, never an invite's id). */
  | 'invitesChanged'
  | 'labelsChanged'
  | 'milestonesChanged'
  /** For one person only: their notifications changed; args `[{ added }]`, how many new ones. */
  | 'notificationsChanged'
  | 'viewsChanged'

/** The channel other processes LISTEN on. */
export const EVENTS_CHANNEL = 'tickets_events'

/**
 * A process-local wake-up for waiting long-polls: writers `ping()` after their transaction
 * commits; the live module also pings on a NOTIFY from another process.
 */
export interface Wake {
  ping(): void
  /** Resolves at the next ping, or when `signal` aborts. */
  next(signal?: AbortSignal): Promise<void>
}

/** A fresh wake-up signal, made once per service at start-up. */
export function createWake(): Wake {
  // A Set: with thousands of waiting polls, one leaving must not cost a scan of all the others.
  let waiters = new Set<() => void>()
  return {
    ping() {
      const now = waiters
      waiters = new Set()
      for (const w of now) w()
    },
    next(signal) {
      return new Promise((resolve) => {
        if (signal?.aborted) return resolve()
        const done = () => {
          signal?.removeEventListener('abort', done)
          waiters.delete(done)
          resolve()
        }
        waiters.add(done)
        signal?.addEventListener('abort', done, { once: true })
      })
    },
  }
}
