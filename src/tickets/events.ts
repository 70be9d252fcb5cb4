/**
 * Writing live events to the outbox (decisions.md section 6): in the same transaction as the
 * write that causes them, so an event exists exactly when its write committed. Delivery to pages
 * (`GET /api/live`) reads the table; the NOTIFY is only a wake-up for pollers in other processes.
 */
import type { TransactionSql } from '../db.ts'

export type EventName = 'ticketCreated' | 'ticketEvent' | 'ticketsRelated' | 'connectionsChanged'

/** The channel other processes LISTEN on. */
export const EVENTS_CHANNEL = 'tickets_events'

/** Stores one event for `projectId` (the project's id, not its slug) inside transaction `tx`. */
export async function emit(tx: TransactionSql, projectId: string | null, name: EventName, args: unknown[], at: number): Promise<void> {
  await tx`
    insert into events (project_id, name, args, created)
    values (${projectId}, ${name}, ${tx.json(args as never)}, ${at})`
  // Delivered at commit, and only then; several in one transaction fold into one.
  await tx`select pg_notify(${EVENTS_CHANNEL}, '')`
}

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
