/**
 * The events outbox (the `events` table): live events are written in the same transaction as the
 * write that causes them, so an event exists exactly when its write committed. Delivery to pages
 * (`GET /api/live`, `live.ts`) reads the table; the NOTIFY is only a wake-up for pollers in
 * other processes.
 */
import type postgres from 'postgres'
import type { Query } from '../../db.ts'
import { EVENTS_CHANNEL, type EventName } from '../events.ts'

/** A live event to store: its project (the id, not the slug; null for none), name, arguments and time. */
export interface NewEvent {
  project: string | null
  name: EventName
  args: unknown[]
  created: number
}

/** Stores one event for `projectId` (the project's id, not its slug) inside transaction `tx`. */
export async function emit(tx: Query, projectId: string | null, name: EventName, args: unknown[], at: number): Promise<void> {
  await emitAll(tx, [{ project: projectId, name, args, created: at }])
}

/**
 * The statement that stores events inside transaction `tx`, in their order, and asks for the
 * wake-up NOTIFY: a state change's three events cost one round trip, not six. Answered unsent,
 * for the store's transaction to send just ahead of its `commit` (src/transaction.ts).
 */
export function emitAll(tx: Query, events: readonly NewEvent[]) {
  // The NOTIFY is delivered at commit, and only then; several in one transaction fold into one.
  return tx`
    with stored as (
      insert into events (project_id, name, args, created)
      select e->>'project', e->>'name', e->'args', (e->>'created')::bigint
      from jsonb_array_elements(${tx.json(events as never)}::jsonb) with ordinality as n(e, i)
      order by n.i)
    select pg_notify(${EVENTS_CHANNEL}, '')`
}

/**
 * The live cursor as a scalar subquery, for a statement that reads it with what a page shows:
 * the last `seq` given out, or pruned (docs/live-events.md).
 */
export function liveCursor(q: Query): postgres.PendingQuery<postgres.Row[]> {
  return q`(select greatest(pruned_through, (select max(seq) from events)) from live_state)`
}

/**
 * The version of everything the ticket lists show: the `seq` of the last committed transaction
 * that wrote a table they read, drawn at commit in commit order by the tables' triggers
 * (sql/0019_lists_version_by_triggers.sql). A reader that sees the same version sees the same
 * lists, whichever write path changed them.
 */
async function listsVersion(q: Query): Promise<string> {
  const [row] = await q<{ version: number }[]>`select max(seq) as version from lists_writes`
  return String(row?.version ?? 0)
}

/** The outbox on `q`, for reads; events are written through the store's `transact`. */
export function outboxTable(q: Query) {
  return {
    version: () => listsVersion(q),
  }
}
