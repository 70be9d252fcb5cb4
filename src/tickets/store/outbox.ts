/**
 * The events outbox (the `events` table): live events are written in the same transaction as the
 * write that causes them, so an event exists exactly when its write committed. Delivery to pages
 * (`GET /api/live`, `live.ts`) reads the table; the NOTIFY is only a wake-up for pollers in
 * other processes.
 */
import type postgres from 'postgres'
import type { Query } from '../../db.ts'
import { EVENTS_CHANNEL, type EventName } from '../events.ts'

/** Stores one event for `projectId` (the project's id, not its slug) inside transaction `tx`. */
export async function emit(tx: Query, projectId: string | null, name: EventName, args: unknown[], at: number): Promise<void> {
  await tx`
    insert into events (project_id, name, args, created)
    values (${projectId}, ${name}, ${tx.json(args as never)}, ${at})`
  // Delivered at commit, and only then; several in one transaction fold into one.
  await tx`select pg_notify(${EVENTS_CHANNEL}, '')`
}

/**
 * The live cursor as a scalar subquery, for a statement that reads it with what a page shows:
 * the last `seq` given out, or pruned (docs/live-events.md).
 */
export function liveCursor(q: Query): postgres.PendingQuery<postgres.Row[]> {
  return q`(select greatest(pruned_through, (select max(seq) from events)) from live_state)`
}

/**
 * The version of everything the ticket lists show, read through the `seq` index and the one row
 * of `live_state`: the last `seq` given out (or pruned) and the count of writes that change the
 * lists without an event (sql/0009_ticket_lists.sql). Every other write that changes a listed
 * ticket emits an event in its transaction, and `seq` is drawn at commit in commit order
 * (sql/0004_live.sql), so a reader that sees the same version sees the same lists.
 */
async function listsVersion(q: Query): Promise<string> {
  const [row] = await q<{ top: number; quiet: number }[]>`
    select greatest(pruned_through, (select max(seq) from events)) as top, quiet_writes as quiet from live_state`
  return `${row?.top ?? 0}.${row?.quiet ?? 0}`
}

/** The outbox on `q`, for reads; events are written through the store's `transact`. */
export function outboxTable(q: Query) {
  return {
    version: () => listsVersion(q),
  }
}
