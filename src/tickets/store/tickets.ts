/**
 * The tickets aggregate: every statement on the `tickets` table outside the importer, the row
 * type they read, and the mapping to the {@link Ticket} the API shows. One query shape for every
 * read (single ticket, lists, inbox, related tickets), so a ticket looks the same wherever it
 * appears. Adding a field: the migration, {@link TicketRow}, the select in {@link selectTickets} (or the
 * statement that writes it) and {@link ticketOf}, then the places that show it.
 *
 * Answers carry no URL: the API adds the page address where it answers (`api/answers.ts`).
 */
import type postgres from 'postgres'
import { plannedEachTime, type Query } from '../../db.ts'
import { isLookupText, isUuid, parseNumber } from '../ids.ts'
import type { State } from '../states.ts'
import type { Actor } from '../actor.ts'
import type { Sort, TicketQuery } from '../query.ts'
import { searchCondition, searchOrder, textSearched, type SearchContext } from './search.ts'
import type { User } from './users.ts'
import { eventOf, type EventAuthor } from './history.ts'
import type { TicketEvent } from '../ticket-event.ts'
import type { Role } from '../roles.ts'
import type { TicketReference } from '../ticket-reference.ts'

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
  created: number
  updated: number
}

type Fragment = postgres.PendingQuery<postgres.Row[]>

/** Tickets matching `where` (a fragment made with `q`), in `order` (newest first by default). */
async function selectTickets(q: Query, where: Fragment, order?: Fragment, each = false): Promise<Ticket[]> {
  const rows = await ticketRows(q, where, order, each)
  return rows.map(ticketOf)
}

/**
 * The statement of {@link selectTickets}; `order` may end in a `limit`. With `each`, planned for
 * its values each time ({@link plannedEachTime}: a text search).
 */
function ticketRows(q: Query, where: Fragment, order?: Fragment, each = false) {
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
  const blockedBy = typeof r.blocked_by === 'string' ? (JSON.parse(r.blocked_by) as Exclude<TicketRow['blocked_by'], string>) : r.blocked_by
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
    parent: r.parent_id !== null ? { id: r.parent_id, ref: `${r.parent_slug}#${r.parent_number}` } : null,
    blockedBy: blockedBy.map((b) => ({ id: b.id, ref: `${b.slug}#${b.number}` })),
    created: r.created,
    updated: r.updated,
  }
}

/** One ticket by id, or null. */
export async function ticketById(q: Query, id: string): Promise<Ticket | null> {
  const [ticket] = await selectTickets(q, q`t.id = ${id}`)
  return ticket ?? null
}

/** The ticket a `:ref` names: its UUID or, for a migrated ticket, its old global number. */
async function ticketByRef(q: Query, ref: string): Promise<Ticket | null> {
  if (isUuid(ref)) return ticketById(q, ref.toLowerCase())
  const old = parseNumber(ref)
  if (old === null) return null
  const [ticket] = await selectTickets(q, q`t.old_number = ${old}`)
  return ticket ?? null
}

/** The ticket with per-project `number` in the project a slug, old slug or id names. */
export async function ticketByNumber(q: Query, projectRef: string, number: string): Promise<Ticket | null> {
  const n = parseNumber(number)
  if (n === null || !isLookupText(projectRef)) return null
  const [ticket] = await selectTickets(q, q`
    t.number = ${n} and t.project_id = (select project_id from project_names where name = ${projectRef})`)
  return ticket ?? null
}

/**
 * The id and project of the ticket a route's path names (`:ref`, or `:slug` and `:number`), or
 * null: what a change checks before its transaction, which reads the ticket whole.
 */
async function locateTicket(q: Query, params: Record<string, string>): Promise<{ id: string; project: string } | null> {
  let where: Fragment | null = null
  if (params.ref !== undefined) {
    const old = parseNumber(params.ref)
    if (isUuid(params.ref)) where = q`id = ${params.ref.toLowerCase()}`
    else if (old !== null) where = q`old_number = ${old}`
  } else {
    const n = parseNumber(params.number!)
    if (n !== null && isLookupText(params.slug!)) where = q`number = ${n} and project_id = (select project_id from project_names where name = ${params.slug!})`
  }
  if (where === null) return null
  const [row] = await q<{ id: string; project_id: string }[]>`select id, project_id from tickets where ${where}`
  return row ? { id: row.id, project: row.project_id } : null
}

/** The ticket a relation names (src/tickets/ticket-reference.ts), or null. */
async function ticketByReference(q: Query, ref: TicketReference): Promise<Ticket | null> {
  if (ref.kind === 'id') return ticketById(q, ref.id)
  if (ref.kind === 'none' || !isLookupText(ref.project)) return null
  const [ticket] = await selectTickets(q, q`
    t.number = ${ref.number} and t.project_id = (select project_id from project_names where name = ${ref.project})`)
  return ticket ?? null
}

/** The ticket of a project with a non-empty `source`, or null. */
async function ticketBySource(q: Query, projectId: string, source: string): Promise<Ticket | null> {
  const [ticket] = await selectTickets(q, q`t.project_id = ${projectId} and t.source = ${source}`)
  return ticket ?? null
}

/** Tickets assigned to `userId` in `states`, most recently updated first. */
function assignedTickets(q: Query, userId: string, states: State[]): Promise<Ticket[]> {
  return selectTickets(q, q`t.assignee_id = ${userId} and t.state in ${q(states)}`, q`t.updated desc, t.created desc`)
}

/**
 * The tickets whose pages show `ids` among their relations, and `ids` themselves: parents,
 * children, blockers and the tickets they block. Live pages redraw these (`ticketsRelated`).
 */
function relatedTickets(q: Query, ids: string[]): Promise<Ticket[]> {
  const seeds = q(ids)
  // One `in` of a `union`: each branch uses the primary key or the parent and blocker indexes.
  // An `or` of five `in (subquery)` conditions is evaluated row by row over every ticket
  // (1.5-3.2 s at 100,000 tickets against 1.7 ms; docs/performance.md).
  return selectTickets(q, q`
    t.id in (
      select id from tickets where id in ${seeds}
      union select parent_id from tickets where id in ${seeds}
      union select id from tickets where parent_id in ${seeds}
      union select blocker_id from blockers where ticket_id in ${seeds}
      union select ticket_id from blockers where blocker_id in ${seeds})`, q`t.project_id, t.number`)
}

export interface NewTicketRow {
  projectId: string
  subject: string
  summary: string
  source: string
  assigneeId: string | null
  authorId: string
  now: number
}

/**
 * Inserts a ticket with the project's next number and answers it, read in the same statement.
 * `update projects ... returning` takes the project row's lock, so parallel creates never share
 * a number. With `ifMember`, only when that user is a member of the project: otherwise nothing
 * is written and the answer is null.
 */
async function insertTicket(tx: Query, t: NewTicketRow, ifMember?: string): Promise<Ticket | null> {
  const member = ifMember === undefined ? tx`true` : tx`exists (select 1 from members m where m.project_id = ${t.projectId} and m.user_id = ${ifMember})`
  const view = viewOf(tx)
  const [row] = await tx<TicketRow[]>`
    with counter as (
      update projects set next_number = next_number + 1 where id = ${t.projectId} and ${member}
      returning next_number - 1 as number
    ), t as (
      insert into tickets (project_id, number, subject, summary, source, assignee_id, author_id, created, updated)
      select ${t.projectId}, counter.number, ${t.subject}, ${t.summary}, ${t.source}, ${t.assigneeId}, ${t.authorId}, ${t.now}, ${t.now}
      from counter
      returning *
    )
    select ${view.columns} from t ${view.joins}`
  return row ? ticketOf(row) : null
}

/** The row of a ticket being changed, locked until the transaction ends. */
export interface LockedTicket {
  id: string
  projectId: string
  state: State
  assigneeId: string | null
  authorId: string | null
  parentId: string | null
  subject: string
  summary: string
  /** The role in the ticket's project of the user the lock was taken for. */
  role: Role | null
  /** The assignee as a user; null for nobody. */
  assignee: User | null
  /** The author as a user; null for an imported author who never logged in here. */
  author: User | null
}

/**
 * Locks a ticket's row for a change and reads, in the same statement, what the change decides
 * by: its fields, `userId`'s role in its project, and its assignee's and author's names. The
 * lock is `for no key update`, the one an update takes: it keeps other changes of the ticket
 * waiting, not the foreign-key checks of rows that name it. Null when there is no such ticket.
 */
async function lockTicket(tx: Query, id: string, userId: string): Promise<LockedTicket | null> {
  const [r] = await tx<{
    project_id: string; state: State; assignee_id: string | null; author_id: string | null; parent_id: string | null; subject: string; summary: string
    role: Role | null; assignee_name: string | null; author_user_name: string | null
  }[]>`
    select t.project_id, t.state, t.assignee_id, t.author_id, t.parent_id, t.subject, t.summary,
      m.role, a.name as assignee_name, au.name as author_user_name
    from tickets t
    left join members m on m.project_id = t.project_id and m.user_id = ${userId}
    left join users a on a.id = t.assignee_id
    left join users au on au.id = t.author_id
    where t.id = ${id}
    for no key update of t`
  if (!r) return null
  const user = (id: string | null, name: string | null): User | null => (id !== null && name !== null ? { id, name } : null)
  return {
    id,
    projectId: r.project_id,
    state: r.state,
    assigneeId: r.assignee_id ?? null,
    authorId: r.author_id ?? null,
    parentId: r.parent_id ?? null,
    subject: r.subject,
    summary: r.summary,
    role: r.role ?? null,
    assignee: user(r.assignee_id ?? null, r.assignee_name ?? null),
    author: user(r.author_id ?? null, r.author_user_name ?? null),
  }
}

/** The parent of a ticket, read without a lock. */
export async function parentOf(tx: Query, id: string): Promise<string | null> {
  const [row] = await tx<{ parent_id: string | null }[]>`select parent_id from tickets where id = ${id}`
  return row?.parent_id ?? null
}

/** The fields a change sets; the others stay. */
export interface TicketChange {
  state?: State
  assigneeId?: string | null
  parentId?: string | null
  subject?: string
  summary?: string
  /** Marks the ticket changed at this time. */
  updated?: number
}

/** The columns a change sets. */
function columnsOf(change: TicketChange): Record<string, unknown> {
  const set: Record<string, unknown> = {}
  if (change.state !== undefined) set.state = change.state
  if (change.assigneeId !== undefined) set.assignee_id = change.assigneeId
  if (change.parentId !== undefined) set.parent_id = change.parentId
  if (change.subject !== undefined) set.subject = change.subject
  if (change.summary !== undefined) set.summary = change.summary
  if (change.updated !== undefined) set.updated = change.updated
  return set
}

/** Sets the given fields of a ticket. */
async function updateTicket(tx: Query, id: string, change: TicketChange): Promise<void> {
  await tx`update tickets set ${tx(columnsOf(change) as never)} where id = ${id}`
}

/** A history event a change adds: its kind and its fields. */
export interface NewEvent {
  kind: TicketEvent['kind']
  data: Record<string, unknown>
}

/**
 * Sets `change` on a ticket and adds `events` (made by `author` at `now`, in their order) to its
 * history, and answers the ticket as changed and the events, in one statement. With `ifMember`,
 * only when that user is a member of the ticket's project: otherwise nothing is written and the
 * answer is null (as it is when there is no such ticket).
 */
async function changeTicket(
  tx: Query, id: string, change: TicketChange, events: readonly NewEvent[], author: EventAuthor, now: number, ifMember?: string,
): Promise<{ ticket: Ticket; events: TicketEvent[] } | null> {
  const member = ifMember === undefined ? tx`true` : tx`exists (select 1 from members m where m.project_id = tickets.project_id and m.user_id = ${ifMember})`
  const view = viewOf(tx)
  const rows = await tx<(TicketRow & { event_id: number; event_kind: TicketEvent['kind']; event_user_id: string | null; event_by: string; event_app: string | null; event_data: string | Record<string, unknown>; event_created: number })[]>`
    with t as (
      update tickets set ${tx(columnsOf(change) as never)} where id = ${id} and ${member}
      returning *
    ), e as (
      insert into ticket_events (ticket_id, kind, user_id, by, app, data, created)
      select t.id, n.e->>'kind', ${author.id}, ${author.name}, ${author.app ?? null}, n.e->'data', ${now}
      from t, jsonb_array_elements(${tx.json(events as never)}::jsonb) with ordinality as n(e, i)
      order by n.i
      returning id, kind, user_id, by, app, data, created
    )
    select ${view.columns}, e.id as event_id, e.kind as event_kind, e.user_id as event_user_id, e.by as event_by,
      e.app as event_app, e.data as event_data, e.created as event_created
    from t ${view.joins} cross join e
    order by e.id`
  if (rows.length === 0) return null
  return {
    ticket: ticketOf(rows[0]!),
    events: rows.map((r) => eventOf({ id: r.event_id, kind: r.event_kind, user_id: r.event_user_id, by: r.event_by, app: r.event_app, data: r.event_data, created: r.event_created })),
  }
}

/**
 * Tickets matching a search's condition (`where`, from src/tickets/store/search.ts) in `order`;
 * with `page`, one page of them.
 */
export function searchTickets(q: Query, where: Fragment, order: Fragment, page?: { limit: number; offset: number }, each = false): Promise<Ticket[]> {
  return selectTickets(q, where, page ? q`${order} limit ${page.limit} offset ${page.offset}` : order, each)
}

/**
 * Where a page of a list ends: the last ticket's sort key (`created` or `updated`), number and
 * id. The lists are ordered by the key, then the number, then the id, so a position is unique
 * and the next page starts right after it whatever was written meanwhile.
 */
export interface ListPosition {
  key: number
  number: number
  id: string
}

/**
 * The order of the API's lists: the search's (newest first unless `sort:` says otherwise), with
 * the id as the last tie-breaker (two projects' tickets can share a time and a number), and the
 * condition "after `p`" in that order, a row comparison an index on the same columns serves.
 */
function listOrder(q: Query, sort: Sort | null) {
  const s = sort ?? 'created-desc'
  const byCreated = s === 'created-desc' || s === 'created-asc'
  const desc = s === 'created-desc' || s === 'updated-desc'
  const key = (t: Ticket) => (byCreated ? t.created : t.updated)
  const order = byCreated
    ? desc ? q`t.created desc, t.number desc, t.id desc` : q`t.created asc, t.number asc, t.id asc`
    : desc ? q`t.updated desc, t.number desc, t.id desc` : q`t.updated asc, t.number asc, t.id asc`
  const after = (p: ListPosition) => {
    const row = byCreated ? q`(t.created, t.number, t.id)` : q`(t.updated, t.number, t.id)`
    const at = q`(${p.key}::bigint, ${p.number}::int, ${p.id}::uuid)`
    return desc ? q`${row} < ${at}` : q`${row} > ${at}`
  }
  return { order, after, positionOf: (t: Ticket): ListPosition => ({ key: key(t), number: t.number, id: t.id }) }
}

/**
 * `limit <n>` with `n` written into the statement as a constant. As a parameter, PostgreSQL
 * cannot tell that a kept (generic) plan reads only a page: it costs that plan as if it read a
 * tenth of the rows, finds a plan made for each run's values cheaper, and so plans the
 * statement again on every request (the API's page: about 1 ms of 1.4 ms at 100,000 tickets,
 * against 0.4 ms with a constant; the web app's project page: 0.72 against 0.38 ms on the
 * embedded database). Each constant is a prepared statement of its own on every connection, so
 * only a few may be used: fixed page sizes, or {@link pageLimit}'s.
 */
export function limitClause(q: Query, n: number): Fragment {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a limit: ${n}`)
  return q`limit ${q.unsafe(String(n))}`
}

/**
 * The limits the API's pages are read with ({@link limitClause}): a page asks for the first that
 * holds it, so the usual page sizes (10, 25, 50, 100, 250, 500, 1,000) and the one row past
 * them that tells whether a next page exists are read exactly, and any other size costs a few
 * rows more rather than a statement of its own.
 */
const PAGE_LIMITS = [2, 11, 26, 51, 101, 251, 501, 1001] as const

/** The constant of {@link PAGE_LIMITS} a page of `limit` rows is read with. */
export function pageLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`not a page size: ${limit}`)
  return PAGE_LIMITS.find((n) => n >= limit) ?? limit
}

/** Up to `limit` tickets matching `where` after `from` (from the start when null), in the list's order. */
async function listPage(q: Query, where: Fragment, sort: Sort | null, limit: number, from: ListPosition | null, each = false): Promise<Ticket[]> {
  const { order, after } = listOrder(q, sort)
  const read = pageLimit(limit)
  const rows = await ticketRows(q, from === null ? where : q`${where} and ${after(from)}`, q`${order} ${limitClause(q, read)}`, each)
  return (rows.length > limit ? rows.slice(0, limit) : rows).map(ticketOf)
}

/**
 * Every ticket matching `where` in the list's order, `size` at a time: each batch is one
 * statement that starts after the previous batch's last ticket, so no more than a batch is held
 * and no connection (on the embedded database: the one session) is kept between batches.
 */
async function* listBatches(q: Query, where: Fragment, sort: Sort | null, size: number, start: ListPosition | null, each = false): AsyncGenerator<Ticket[]> {
  const { positionOf } = listOrder(q, sort)
  let from = start
  while (true) {
    const batch = await listPage(q, where, sort, size, from, each)
    if (batch.length > 0) yield batch
    if (batch.length < size) return
    from = positionOf(batch.at(-1)!)
  }
}

/** How many tickets match `where`. */
async function countTickets(q: Query, where: Fragment, each = false): Promise<number> {
  const statement = q<{ n: number }[]>`select count(*)::int as n from tickets t where ${where}`
  const [row] = await (each ? plannedEachTime(statement) : statement)
  return row?.n ?? 0
}

/** A search as the lists and pages make it: its condition's context and, for one project, its id. */
export interface TicketSearch extends SearchContext {
  /** Only this project's tickets; every project's when absent. */
  projectId?: string
}

/** A search's condition, inside its project when it names one. */
export function searchWhere(q: Query, query: TicketQuery, search: TicketSearch): Fragment {
  const where = searchCondition(q, query, search)
  return search.projectId === undefined ? where : q`t.project_id = ${search.projectId} and ${where}`
}

/**
 * The tickets aggregate on `q`: the pool, or a transaction for the locks and writes (which
 * belong inside the store's `transact`).
 */
export function ticketTable(q: Query) {
  return {
    byId: (id: string) => ticketById(q, id),
    byRef: (ref: string) => ticketByRef(q, ref),
    byNumber: (projectRef: string, number: string) => ticketByNumber(q, projectRef, number),
    byReference: (ref: TicketReference) => ticketByReference(q, ref),
    bySource: (projectId: string, source: string) => ticketBySource(q, projectId, source),
    /** The ticket a route's path names: `:ref`, or `:slug` and `:number`. */
    byPath: (params: Record<string, string>) => (params.ref !== undefined ? ticketByRef(q, params.ref) : ticketByNumber(q, params.slug!, params.number!)),
    /** The id and project of the ticket a route's path names. */
    locate: (params: Record<string, string>) => locateTicket(q, params),
    assignedTo: (userId: string, states: State[]) => assignedTickets(q, userId, states),
    related: (ids: string[]) => relatedTickets(q, ids),
    /** The tickets a search finds, in its order; with `page`, one page of them. */
    search: (query: TicketQuery, search: TicketSearch, page?: { limit: number; offset: number }) =>
      searchTickets(q, searchWhere(q, query, search), searchOrder(q, query.sort), page, textSearched(query)),
    /** One page of a list: up to `limit` tickets a search finds after `from`, in {@link listOrder}. */
    listPage: (query: TicketQuery, search: TicketSearch, limit: number, from: ListPosition | null) =>
      listPage(q, searchWhere(q, query, search), query.sort, limit, from, textSearched(query)),
    /** Every ticket a search finds in {@link listOrder} (after `from` when given), read `size` at a time. */
    listBatches: (query: TicketQuery, search: TicketSearch, size: number, from: ListPosition | null = null) =>
      listBatches(q, searchWhere(q, query, search), query.sort, size, from, textSearched(query)),
    /** Where a page of a list sorted by `sort` that ends at `ticket` stops. */
    positionOf: (sort: Sort | null, ticket: Ticket) => listOrder(q, sort).positionOf(ticket),
    /** How many tickets a search finds (after `from` in {@link listOrder} when given). */
    count: (query: TicketQuery, search: TicketSearch, from: ListPosition | null = null) => {
      const where = searchWhere(q, query, search)
      return countTickets(q, from === null ? where : q`${where} and ${listOrder(q, query.sort).after(from)}`, textSearched(query))
    },
    /** Inserts a ticket by `actor`; with `ifMember`, only when that user is a member of the project. */
    insert: (actor: Actor, t: Omit<NewTicketRow, 'authorId' | 'now'>, ifMember?: string) =>
      insertTicket(q, { ...t, authorId: actor.user.id, now: actor.now }, ifMember),
    /** Locks a ticket for a change by `userId`, with that user's role in its project. */
    lock: (id: string, userId: string) => lockTicket(q, id, userId),
    /**
     * Sets `change` and adds `events` made by `actor` (with the connected app's label when one
     * acts) at `actor.now`; with `ifMember`, only when that user is a member of the project.
     */
    change: (id: string, change: TicketChange, events: readonly NewEvent[], actor: Actor, ifMember?: string) =>
      changeTicket(q, id, change, events, { id: actor.user.id, name: actor.user.name, app: actor.app }, actor.now, ifMember),
    parentOf: (id: string) => parentOf(q, id),
    update: (id: string, change: TicketChange) => updateTicket(q, id, change),
  }
}
