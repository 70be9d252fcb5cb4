/**
 * What makes the live hub read the outbox: a write in this process (the service's {@link Wake},
 * pinged after each commit that emitted events) and, on a real PostgreSQL server, a NOTIFY on
 * {@link EVENTS_CHANNEL} from another process.
 */
import type { Sql } from '../../db/client.ts'
import { EVENTS_CHANNEL, type Wake } from './events.ts'

export interface ListenerDeps {
  sql: Sql
  wake: Wake
  /** LISTEN for other processes' writes (true on a real PostgreSQL server only). */
  listen: boolean
  /** Called at each wake-up, NOTIFY and (re)LISTEN. */
  onEvent: () => void
  /** Told when the LISTEN cannot start. */
  onError: (err: unknown) => void
}

export interface Listener {
  /** Stops waiting for wake-ups and ends the LISTEN. */
  close(): Promise<void>
}

/** Starts listening; `onEvent` runs until {@link Listener.close}. */
export function startListener(deps: ListenerDeps): Listener {
  const { sql, wake, onEvent } = deps
  const stop = new AbortController()
  void (async () => {
    while (!stop.signal.aborted) {
      await wake.next(stop.signal)
      if (!stop.signal.aborted) onEvent()
    }
  })()
  // postgres.js keeps the LISTEN on a connection of its own and listens again after a reconnect;
  // onlisten runs each time, and a read then catches what was sent in between.
  const listening = deps.listen
    ? sql
        .listen(
          EVENTS_CHANNEL,
          () => onEvent(),
          () => onEvent(),
        )
        .catch((err) => {
          deps.onError(err)
          return null
        })
    : Promise.resolve(null)
  return {
    async close() {
      stop.abort()
      const listener = await listening
      await listener?.unlisten().catch(() => {})
    },
  }
}
