/**
 * The events outbox (the `events` table): live events are written in the same transaction as the
 * write that causes them, so an event exists exactly when its write committed. Delivery to pages
 * (`GET /api/live`, `live/hub.ts`) reads the table through {@link readEventsAfter} and deletes
 * old events with {@link pruneEvents}; the NOTIFY is only a wake-up for pollers in other
 * processes.
 */
import type postgres from 'postgres'
import type { Query } from '../../db/client.ts'
import { EVENTS_CHANNEL, type EventName } from '../live/events.ts'

/** A live event to store: its project (the id, not the slug; null for none), name, arguments and time. */
export interface NewEvent {
  project: string | null
  /** The one person the event is for (their bell), else null or absent: everyone who follows the project. */
  user?: string | null
  name: EventName
  args: unknown[]
  created: number
}

/** Stores one event for `projectId` (the project's id, not its slug) inside transaction `tx`. */
export async function emit(
  tx: Query,
  projectId: string | null,
  name: EventName,
  args: unknown[],
  at: number,
): Promise<void> {
  await emitAll(tx, [{ project: projectId, name, args, created: at }])
}

/**
 * The statement that stores events inside transaction `tx`, in their order, and asks for the
 * wake-up NOTIFY: a state change's three events cost one round trip, not six. Answered unsent,
 * for the store's transaction to send just ahead of its `commit` (src/db/transaction.ts).
 */
export function emitAll(tx: Query, events: readonly NewEvent[]) {
  // The NOTIFY is delivered at commit, and only then; several in one transaction fold into one.
  return tx`
    with stored as (
      insert into events (project_id, user_id, name, args, created)
      select e->>'project', e->>'user', e->>'name', e->'args', (e->>'created')::bigint
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

/** An event as the outbox holds it: its place in the delivery order, id, name, arguments, project. */
export interface LiveEventRow {
  seq: number
  id: number
  name: string
  args: unknown
  project_id: string | null
  /** The one person the event is for, else null. */
  user_id: string | null
}

/** What one read of the outbox sees, in one snapshot. */
export interface EventsAfter {
  /** Every event up to this `seq` has been deleted: a cursor below it may have missed some. */
  pruned: number
  /** The current cursor: the last `seq` given out, or pruned. */
  top: number
  /** Up to `limit` events after the cursor asked for, in `seq` order. */
  events: LiveEventRow[]
}

/** The events after `seq` `from`, at most `limit` of them, and how far the table goes. */
export async function readEventsAfter(q: Query, from: number, limit: number): Promise<EventsAfter> {
  // One statement, so one snapshot: the events and the bounds agree.
  const rows = await q<(LiveEventRow & { pruned: number; top: number })[]>`
    select s.pruned_through as pruned,
           greatest(s.pruned_through, (select max(seq) from events)) as top,
           e.seq, e.id, e.name, e.args, e.project_id, e.user_id
    from live_state s
    left join lateral (
      select seq, id, name, args, project_id, user_id from events
      where seq > ${from} order by seq limit ${limit}
    ) e on true
    order by e.seq`
  const first = rows[0]
  if (!first) throw new Error('live_state has no row')
  const events: LiveEventRow[] = first.seq === null ? [] : rows
  return { pruned: first.pruned, top: first.top, events }
}

/** The current live cursor (docs/live-events.md): where a page rendered now starts polling. */
export async function readLiveCursor(q: Query): Promise<number> {
  const [row] = await q<{ top: number | null }[]>`select ${liveCursor(q)} as top`
  if (row?.top == null) throw new Error('live_state has no row')
  return row.top
}

/**
 * Deletes the events created before `cutoff`, always keeping the newest one (it carries the
 * current cursor) and any a webhook or the notifications have not yet been given, and moves `pruned_through` past
 * them; answers how many went.
 */
export async function pruneEvents(q: Query, cutoff: number): Promise<number> {
  // Deleted and recorded in one statement, so a reader sees both or neither.
  const [row] = await q<{ deleted: number }[]>`
    with gone as (
      delete from events
      where created < ${cutoff} and seq < (select max(seq) from events)
        -- Webhooks have not yet been given what is past this (src/tickets/store/webhooks.ts);
        -- with no webhook at all nothing waits for it (a new one starts after the newest event).
        and (seq <= (select fanned_through from webhook_state) or not exists (select from webhooks))
        -- Nor a ticket's event not yet turned into notifications (src/tickets/store/notifications.ts).
        and (seq <= (select fanned_through from notify_state)
             or project_id is null or user_id is not null
             or name not in ('ticketCreated', 'ticketEvent'))
      returning seq
    ), noted as (
      update live_state set pruned_through = greatest(pruned_through, (select max(seq) from gone))
      where exists (select 1 from gone)
    )
    select count(*)::int as deleted from gone`
  return row?.deleted ?? 0
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
