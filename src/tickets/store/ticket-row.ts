/**
 * A ticket as the store reads it: the {@link Ticket} the API shows, the {@link TicketRow} one
 * query shape reads for every read (single ticket, lists, inbox, related tickets, a written
 * ticket read back), and the mapping from one to the other, so a ticket looks the same wherever
 * it appears. Adding a field: the migration, {@link TicketRow}, the columns in {@link viewOf}
 * (or the statement that writes it, src/tickets/store/ticket-writes.ts) and {@link ticketOf},
 * then the places that show it.
 *
 * Answers carry no URL: the API adds the page address where it answers (`representations/json.ts`).
 */
import type postgres from 'postgres'
import { plannedEachTime, type Query } from '../../db/client.ts'
import type { State } from '../rules/states.ts'
import type { User } from './users.ts'

/** Another ticket, as a relation names it: `<project slug>#<number>` and its id. */
export interface TicketLink {
  id: string
  ref: string
}

export interface Ticket {
  id: string
  /** `<project slug>#<number>`. */
  ref: string
  number: number
  /** The old global number of a migrated ticket, else null. */
  oldNumber: number | null
  /** The project's id. */
  project: string
  slug: string
  subject: string
  summary: string
  source: string
  state: State
  assignee: User | null
  /** Null id: an imported ticket whose author never logged in here. */
  author: { id: string | null; name: string } | null
  parent: TicketLink | null
  blockedBy: TicketLink[]
  /** The names of its labels, in name order (any case). */
  labels: string[]
  /** Its milestone's title, or null. */
  milestone: string | null
  /** Its due day, `YYYY-MM-DD`, or null. */
  due: string | null
  created: number
  updated: number
}

/** A ticket row as {@link selectTickets} reads it. */
export interface TicketRow {
  id: string
  number: number
  old_number: number | null
  project_id: string
  slug: string
  subject: string
  summary: string
  source: string
  state: State
  assignee_id: string | null
  assignee_name: string | null
  author_id: string | null
  author_name: string | null
  parent_id: string | null
  parent_number: number | null
  parent_slug: string | null
  /** JSON text on the embedded database, parsed JSON on a server. */
  blocked_by: string | { id: string; slug: string; number: number }[]
  /** JSON text on the embedded database, parsed JSON on a server. */
  labels: string | string[]
  milestone: string | null
  due: string | null
  created: number
  updated: number
}

/** A condition or an order made with the `q` it goes into. */
export type Fragment = postgres.PendingQuery<postgres.Row[]>

/** Tickets matching `where` (a fragment made with `q`), in `order` (newest first by default). */
export async function selectTickets(
  q: Query,
  where: Fragment,
  order?: Fragment,
  each = false,
): Promise<Ticket[]> {
  const rows = await ticketRows(q, where, order, each)
  return rows.map(ticketOf)
}

/**
 * The statement of {@link selectTickets}; `order` may end in a `limit`. With `each`, planned for
 * its values each time ({@link plannedEachTime}: a text search).
 */
export function ticketRows(q: Query, where: Fragment, order?: Fragment, each = false) {
  const view = viewOf(q)
  const statement = q<TicketRow[]>`
    select ${view.columns}
    from tickets t ${view.joins}
    where ${where}
    order by ${order ?? q`t.created desc, t.number desc`}`
  return each ? plannedEachTime(statement) : statement
}

/**
 * The columns of a {@link TicketRow} read from `t` and the joins they need: `t` is the tickets
 * table or, in a statement that writes a ticket, the rows its `returning *` answers, so the
 * written ticket is read in the same statement as it is written.
 */
export function viewOf(q: Query) {
  return {
    columns: q`t.id, t.number, t.old_number, t.project_id, p.slug, t.subject, t.summary, t.source, t.state,
      t.assignee_id, a.name as assignee_name, t.author_id, coalesce(u.name, t.author_name) as author_name,
      t.parent_id, pt.number as parent_number, pp.slug as parent_slug,
      (select coalesce(json_agg(json_build_object('id', b.id, 'slug', bp.slug, 'number', b.number) order by bp.slug, b.number), '[]')
        from blockers x join tickets b on b.id = x.blocker_id join projects bp on bp.id = b.project_id
        where x.ticket_id = t.id) as blocked_by,
      (select coalesce(json_agg(l.name order by lower(l.name), l.name), '[]')
        from ticket_labels tl join labels l on l.id = tl.label_id where tl.ticket_id = t.id) as labels,
      (select ms.title from milestones ms where ms.id = t.milestone_id) as milestone,
      to_char(t.due, 'YYYY-MM-DD') as due,
      t.created, t.updated`,
    joins: q`join projects p on p.id = t.project_id
    left join users a on a.id = t.assignee_id
    left join users u on u.id = t.author_id
    left join tickets pt on pt.id = t.parent_id
    left join projects pp on pp.id = pt.project_id`,
  }
}

/** What the API shows of a ticket row. */
export function ticketOf(r: TicketRow): Ticket {
  const blockedBy =
    typeof r.blocked_by === 'string'
      ? (JSON.parse(r.blocked_by) as Exclude<TicketRow['blocked_by'], string>)
      : r.blocked_by
  return {
    id: r.id,
    ref: `${r.slug}#${r.number}`,
    number: r.number,
    oldNumber: r.old_number ?? null,
    project: r.project_id,
    slug: r.slug,
    subject: r.subject,
    summary: r.summary,
    source: r.source,
    state: r.state,
    assignee: r.assignee_id !== null ? { id: r.assignee_id, name: r.assignee_name! } : null,
    author: r.author_name ? { id: r.author_id ?? null, name: r.author_name } : null,
    parent:
      r.parent_id !== null ? { id: r.parent_id, ref: `${r.parent_slug}#${r.parent_number}` } : null,
    blockedBy: blockedBy.map((b) => ({ id: b.id, ref: `${b.slug}#${b.number}` })),
    labels: typeof r.labels === 'string' ? (JSON.parse(r.labels) as string[]) : r.labels,
    milestone: r.milestone ?? null,
    due: r.due ?? null,
    created: r.created,
    updated: r.updated,
  }
}
