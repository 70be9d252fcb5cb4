/**
 * A ticket's history: the `ticket_events` table, its row type and the mapping to the
 * {@link TicketEvent} the API shows (src/tickets/rules/ticket-event.ts).
 */
import type { Query } from '../../db/client.ts'
import type { Actor } from '../rules/actor.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'

export interface EventRow {
  id: number
  kind: TicketEvent['kind']
  user_id: string | null
  by: string
  app: string | null
  /** JSON text on the embedded database, parsed JSON on a server. */
  data: string | Record<string, unknown>
  created: number
}

/** The history of a ticket, oldest first. */
async function eventsOf(q: Query, ticketId: string): Promise<TicketEvent[]> {
  const rows = await q<
    EventRow[]
  >`select id, kind, user_id, by, app, data, created from ticket_events where ticket_id = ${ticketId} order by id`
  return rows.map(eventOf)
}

/** What the API shows of an event row. */
export function eventOf(r: EventRow): TicketEvent {
  const data = typeof r.data === 'string' ? (JSON.parse(r.data) as Record<string, unknown>) : r.data
  return {
    id: r.id,
    kind: r.kind,
    by: r.by,
    user: r.user_id ?? null,
    app: r.app ?? null,
    created: r.created,
    ...data,
  }
}

/** Who made an event: a person (null id for imported history), with the connected app's label when one acted. */
export interface EventAuthor {
  id: string | null
  name: string
  app?: string | null
}

/** Adds a history event to a ticket and answers it as the API shows it. */
export async function addEvent(
  q: Query,
  ticketId: string,
  kind: TicketEvent['kind'],
  author: EventAuthor,
  data: Record<string, unknown>,
  now: number,
): Promise<TicketEvent> {
  const [row] = await q<EventRow[]>`
    insert into ticket_events (ticket_id, kind, user_id, by, app, data, created)
    values (${ticketId}, ${kind}, ${author.id}, ${author.name}, ${author.app ?? null}, ${q.json(data as never)}, ${now})
    returning id, kind, user_id, by, app, data, created`
  return eventOf(row!)
}

/** A ticket's history on `q`. */
export function historyTable(q: Query) {
  return {
    /** The history of a ticket, oldest first. */
    of: (ticketId: string) => eventsOf(q, ticketId),
    /** Adds an event made by `actor` (with the connected app's label when one acts) at `actor.now`. */
    add: (
      ticketId: string,
      kind: TicketEvent['kind'],
      actor: Actor,
      data: Record<string, unknown>,
    ) =>
      addEvent(
        q,
        ticketId,
        kind,
        { id: actor.user.id, name: actor.user.name, app: actor.app },
        data,
        actor.now,
      ),
  }
}
