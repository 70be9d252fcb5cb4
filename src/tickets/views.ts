/**
 * How tickets and their history events look in answers and live events: one query shape for
 * every read (single ticket, lists, inbox, related views), so a ticket looks the same wherever
 * it appears.
 */
import type postgres from 'postgres'
import type { Query } from './context.ts'
import type { State } from './states.ts'
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
  created: number
  updated: number
  /** The ticket's page. */
  url: string
}

/** A history event: the kind's fields beside who made it and when. */
export interface TicketEvent {
  id: number
  kind: 'comment' | 'state' | 'assign' | 'edit' | 'link'
  /** The acting person's name at the time. */
  by: string
  /** The acting person's user id (null for imported history). */
  user: string | null
  /** The label of the connected app the event was made through; null when a person made it. */
  app: string | null
  created: number
  [field: string]: unknown
}

type Fragment = postgres.PendingQuery<postgres.Row[]>

/** Tickets matching `where` (a fragment made with `q`), in `order` (newest first by default). */
export async function selectTickets(q: Query, publicUrl: string, where: Fragment, order?: Fragment): Promise<Ticket[]> {
  const rows = await q`
    select t.id, t.number, t.old_number, t.project_id, p.slug, t.subject, t.summary, t.source, t.state,
      t.assignee_id, a.name as assignee_name, t.author_id, coalesce(u.name, t.author_name) as author_name,
      t.parent_id, pt.number as parent_number, pp.slug as parent_slug,
      (select coalesce(json_agg(json_build_object('id', b.id, 'slug', bp.slug, 'number', b.number) order by bp.slug, b.number), '[]')
        from blockers x join tickets b on b.id = x.blocker_id join projects bp on bp.id = b.project_id
        where x.ticket_id = t.id) as blocked_by,
      t.created, t.updated
    from tickets t
    join projects p on p.id = t.project_id
    left join users a on a.id = t.assignee_id
    left join users u on u.id = t.author_id
    left join tickets pt on pt.id = t.parent_id
    left join projects pp on pp.id = pt.project_id
    where ${where}
    order by ${order ?? q`t.created desc, t.number desc`}`
  return rows.map((r) => ticketView(r, publicUrl))
}

function ticketView(r: postgres.Row, publicUrl: string): Ticket {
  const slug = r.slug as string
  const number = r.number as number
  const blockedBy = (typeof r.blocked_by === 'string' ? JSON.parse(r.blocked_by) : r.blocked_by) as { id: string; slug: string; number: number }[]
  return {
    id: r.id as string,
    ref: `${slug}#${number}`,
    number,
    oldNumber: (r.old_number as number | null) ?? null,
    project: r.project_id as string,
    slug,
    subject: r.subject as string,
    summary: r.summary as string,
    source: r.source as string,
    state: r.state as State,
    assignee: r.assignee_id ? { id: r.assignee_id as string, name: r.assignee_name as string } : null,
    author: r.author_name ? { id: (r.author_id as string | null) ?? null, name: r.author_name as string } : null,
    parent: r.parent_id ? { id: r.parent_id as string, ref: `${r.parent_slug as string}#${r.parent_number as number}` } : null,
    blockedBy: blockedBy.map((b) => ({ id: b.id, ref: `${b.slug}#${b.number}` })),
    created: r.created as number,
    updated: r.updated as number,
    url: `${publicUrl}/${slug}/${number}`,
  }
}

/** One ticket by id, or null. */
export async function ticketById(q: Query, publicUrl: string, id: string): Promise<Ticket | null> {
  const [ticket] = await selectTickets(q, publicUrl, q`t.id = ${id}`)
  return ticket ?? null
}

/** The history of a ticket, oldest first. */
export async function eventsOf(q: Query, ticketId: string): Promise<TicketEvent[]> {
  const rows = await q`select id, kind, user_id, by, app, data, created from ticket_events where ticket_id = ${ticketId} order by id`
  return rows.map(eventView)
}

export function eventView(r: postgres.Row): TicketEvent {
  const data = (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Record<string, unknown>
  return {
    id: r.id as number,
    kind: r.kind as TicketEvent['kind'],
    by: r.by as string,
    user: (r.user_id as string | null) ?? null,
    app: (r.app as string | null) ?? null,
    created: r.created as number,
    ...data,
  }
}

/** Adds a history event to a ticket and answers it as the API shows it; `user.app` is a connected app's label. */
export async function addEvent(
  q: Query,
  ticketId: string,
  kind: TicketEvent['kind'],
  user: { id: string | null; name: string; app?: string | null },
  data: Record<string, unknown>,
  now: number,
): Promise<TicketEvent> {
  const [row] = await q`
    insert into ticket_events (ticket_id, kind, user_id, by, app, data, created)
    values (${ticketId}, ${kind}, ${user.id}, ${user.name}, ${user.app ?? null}, ${q.json(data as never)}, ${now})
    returning id, kind, user_id, by, app, data, created`
  return eventView(row!)
}

/**
 * The views of the tickets whose pages show `ids` among their relations, and of `ids`
 * themselves: parents, children, blockers and the tickets they block. Live pages redraw these
 * (`ticketsRelated`).
 */
export async function relatedViews(q: Query, publicUrl: string, ids: string[]): Promise<Ticket[]> {
  const seeds = q(ids)
  return selectTickets(q, publicUrl, q`
    t.id in ${seeds}
    or t.id in (select parent_id from tickets where id in ${seeds})
    or t.parent_id in ${seeds}
    or t.id in (select blocker_id from blockers where ticket_id in ${seeds})
    or t.id in (select ticket_id from blockers where blocker_id in ${seeds})`, q`t.project_id, t.number`)
}
