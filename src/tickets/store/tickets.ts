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
import type { Query } from '../../db.ts'
import { isLookupText, isUuid, parseNumber } from '../ids.ts'
import type { State } from '../states.ts'
import type { Actor } from '../actor.ts'
import type { Sort, TicketQuery } from '../query.ts'
import { searchCondition, searchOrder, type SearchContext } from './search.ts'
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
}

/** A ticket row as {@link selectTickets} reads it. */
interface TicketRow {
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
async function selectTickets(q: Query, where: Fragment, order?: Fragment): Promise<Ticket[]> {
  const rows = await ticketRows(q, where, order)
  return rows.map(ticketOf)
}

/** The statement of {@link selectTickets}; `order` may end in a `limit`. */
function ticketRows(q: Query, where: Fragment, order?: Fragment) {
  return q<TicketRow[]>`
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
}

/** What the API shows of a ticket row. */
function ticketOf(r: TicketRow): Ticket {
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

/** The ticket a relation names: `<project>#<number>` (slug, old slug or id) or a UUID. */
async function ticketByName(q: Query, name: string): Promise<Ticket | null> {
  if (isUuid(name)) return ticketById(q, name.toLowerCase())
  const hash = name.lastIndexOf('#')
  if (hash <= 0) return null
  const number = parseNumber(name.slice(hash + 1))
  if (number === null) return null
  const [ticket] = await selectTickets(q, q`
    t.number = ${number} and t.project_id = (select project_id from project_names where name = ${name.slice(0, hash)})`)
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

/** Takes the project's row lock: its source check and next number are then one step. */
async function lockProjectTickets(tx: Query, projectId: string): Promise<void> {
  await tx`select id from projects where id = ${projectId} for update`
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

/** Inserts a ticket with the project's next number (under {@link lockProjectTickets}); answers its id. */
async function insertTicket(tx: Query, t: NewTicketRow): Promise<string> {
  const [counter] = await tx<{ number: number }[]>`update projects set next_number = next_number + 1 where id = ${t.projectId} returning next_number - 1 as number`
  const [row] = await tx<{ id: string }[]>`
    insert into tickets (project_id, number, subject, summary, source, assignee_id, author_id, created, updated)
    values (${t.projectId}, ${counter!.number}, ${t.subject}, ${t.summary}, ${t.source},
      ${t.assigneeId}, ${t.authorId}, ${t.now}, ${t.now})
    returning id`
  return row!.id
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
}

export async function lockTicket(tx: Query, id: string): Promise<LockedTicket> {
  const [r] = await tx<{ project_id: string; state: State; assignee_id: string | null; author_id: string | null; parent_id: string | null; subject: string; summary: string }[]>`
    select project_id, state, assignee_id, author_id, parent_id, subject, summary from tickets where id = ${id} for update`
  return {
    id,
    projectId: r!.project_id,
    state: r!.state,
    assigneeId: r!.assignee_id ?? null,
    authorId: r!.author_id ?? null,
    parentId: r!.parent_id ?? null,
    subject: r!.subject,
    summary: r!.summary,
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

/** Sets the given fields of a ticket. */
async function updateTicket(tx: Query, id: string, change: TicketChange): Promise<void> {
  const set: Record<string, unknown> = {}
  if (change.state !== undefined) set.state = change.state
  if (change.assigneeId !== undefined) set.assignee_id = change.assigneeId
  if (change.parentId !== undefined) set.parent_id = change.parentId
  if (change.subject !== undefined) set.subject = change.subject
  if (change.summary !== undefined) set.summary = change.summary
  if (change.updated !== undefined) set.updated = change.updated
  await tx`update tickets set ${tx(set as never)} where id = ${id}`
}

/**
 * Tickets matching a search's condition (`where`, from src/tickets/store/search.ts) in `order`;
 * with `page`, one page of them.
 */
export function searchTickets(q: Query, where: Fragment, order: Fragment, page?: { limit: number; offset: number }): Promise<Ticket[]> {
  return selectTickets(q, where, page ? q`${order} limit ${page.limit} offset ${page.offset}` : order)
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

/** Up to `limit` tickets matching `where` after `from` (from the start when null), in the list's order. */
async function listPage(q: Query, where: Fragment, sort: Sort | null, limit: number, from: ListPosition | null): Promise<Ticket[]> {
  const { order, after } = listOrder(q, sort)
  const rows = await ticketRows(q, from === null ? where : q`${where} and ${after(from)}`, q`${order} limit ${limit}`)
  return rows.map(ticketOf)
}

/**
 * Every ticket matching `where` in the list's order, `size` at a time: each batch is one
 * statement that starts after the previous batch's last ticket, so no more than a batch is held
 * and no connection (on the embedded database: the one session) is kept between batches.
 */
async function* listBatches(q: Query, where: Fragment, sort: Sort | null, size: number, start: ListPosition | null): AsyncGenerator<Ticket[]> {
  const { positionOf } = listOrder(q, sort)
  let from = start
  while (true) {
    const batch = await listPage(q, where, sort, size, from)
    if (batch.length > 0) yield batch
    if (batch.length < size) return
    from = positionOf(batch.at(-1)!)
  }
}

/** How many tickets match `where`. */
async function countTickets(q: Query, where: Fragment): Promise<number> {
  const [row] = await q<{ n: number }[]>`select count(*)::int as n from tickets t where ${where}`
  return row?.n ?? 0
}

/**
 * Which of `ids` a ticket that is not done or dropped blocks. Driven from the ids (one array
 * parameter), so each is looked up by the blockers' key: a join of `in (...)` with the states
 * hashed every active ticket of the database first (14 ms against 1.3 ms for a page of 50 on
 * the embedded database, docs/performance.md).
 */
export async function stillBlocked(q: Query, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await q<{ id: string }[]>`
    select s.id from unnest(${q.array(ids)}::uuid[]) as s(id)
    where exists (
      select 1 from blockers x join tickets b on b.id = x.blocker_id
      where x.ticket_id = s.id and b.state in ('open', 'doing', 'review'))`
  return new Set(rows.map((r) => r.id))
}

/** Tickets assigned to `userId` in open, doing or review: the count by the inbox link. */
export async function inboxCount(q: Query, userId: string): Promise<number> {
  const [row] = await q<{ n: number }[]>`select count(*)::int as n from tickets where assignee_id = ${userId} and state in ('open', 'doing', 'review')`
  return row?.n ?? 0
}

/** A search as the lists and pages make it: its condition's context and, for one project, its id. */
export interface TicketSearch extends SearchContext {
  /** Only this project's tickets; every project's when absent. */
  projectId?: string
}

function searchWhere(q: Query, query: TicketQuery, search: TicketSearch): Fragment {
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
    byName: (name: string) => ticketByName(q, name),
    bySource: (projectId: string, source: string) => ticketBySource(q, projectId, source),
    /** The ticket a route's path names: `:ref`, or `:slug` and `:number`. */
    byPath: (params: Record<string, string>) => (params.ref !== undefined ? ticketByRef(q, params.ref) : ticketByNumber(q, params.slug!, params.number!)),
    assignedTo: (userId: string, states: State[]) => assignedTickets(q, userId, states),
    related: (ids: string[]) => relatedTickets(q, ids),
    /** The tickets a search finds, in its order; with `page`, one page of them. */
    search: (query: TicketQuery, search: TicketSearch, page?: { limit: number; offset: number }) =>
      searchTickets(q, searchWhere(q, query, search), searchOrder(q, query.sort), page),
    /** One page of a list: up to `limit` tickets a search finds after `from`, in {@link listOrder}. */
    listPage: (query: TicketQuery, search: TicketSearch, limit: number, from: ListPosition | null) =>
      listPage(q, searchWhere(q, query, search), query.sort, limit, from),
    /** Every ticket a search finds in {@link listOrder} (after `from` when given), read `size` at a time. */
    listBatches: (query: TicketQuery, search: TicketSearch, size: number, from: ListPosition | null = null) =>
      listBatches(q, searchWhere(q, query, search), query.sort, size, from),
    /** Where a page of a list sorted by `sort` that ends at `ticket` stops. */
    positionOf: (sort: Sort | null, ticket: Ticket) => listOrder(q, sort).positionOf(ticket),
    /** How many tickets a search finds (after `from` in {@link listOrder} when given). */
    count: (query: TicketQuery, search: TicketSearch, from: ListPosition | null = null) => {
      const where = searchWhere(q, query, search)
      return countTickets(q, from === null ? where : q`${where} and ${listOrder(q, query.sort).after(from)}`)
    },
    stillBlocked: (ids: string[]) => stillBlocked(q, ids),
    inboxCount: (userId: string) => inboxCount(q, userId),
    lockNumbering: (projectId: string) => lockProjectTickets(q, projectId),
    /** Inserts a ticket by `actor` (under {@link lockProjectTickets}); answers its id. */
    insert: (actor: Actor, t: Omit<NewTicketRow, 'authorId' | 'now'>) => insertTicket(q, { ...t, authorId: actor.user.id, now: actor.now }),
    lock: (id: string) => lockTicket(q, id),
    parentOf: (id: string) => parentOf(q, id),
    update: (id: string, change: TicketChange) => updateTicket(q, id, change),
  }
}
