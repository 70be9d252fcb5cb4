/**
 * The events outbox (the `events` table): live events are written in the same transaction as the
 * write that causes them, so an event exists exactly when its write committed. Delivery to pages
 * (`GET /api/live`, `live.ts`) reads the table; the NOTIFY is only a wake-up for pollers in
 * other processes.
 */
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
