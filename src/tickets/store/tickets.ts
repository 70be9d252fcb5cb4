/**
 * The tickets aggregate: the table object ({@link ticketTable}) the store binds to the pool and
 * to a transaction, with the reads that find tickets (by id, reference, path or source; the
 * inbox; related tickets) and the API's lists, read a page or a batch at a time after a
 * position. The row and its mapping are in src/tickets/store/ticket-row.ts, the writes in
 * src/tickets/store/ticket-writes.ts.
 */
import { plannedEachTime, type Query } from '../../db/client.ts'
import { isLookupText, isUuid, parseNumber } from '../rules/ids.ts'
import type { State } from '../rules/states.ts'
import type { Actor } from '../rules/actor.ts'
import type { Sort, TicketQuery } from '../rules/query.ts'
import type { TicketReference } from '../rules/ticket-reference.ts'
import {
  dueKey,
  dueKeyOf,
  searchCondition,
  searchOrder,
  textSearched,
  type SearchContext,
} from './search.ts'
import { selectTickets, ticketOf, ticketRows, type Fragment, type Ticket } from './ticket-row.ts'
import {
  changeAsMember,
  changeTicket,
  insertAsMember,
  insertTicket,
  lockTicket,
  parentOf,
  updateTicket,
  type NewHistoryEvent,
  type NewTicketRow,
  type TicketChange,
} from './ticket-writes.ts'
import type { Role } from '../rules/roles.ts'

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
export async function ticketByNumber(
  q: Query,
  projectRef: string,
  number: string,
): Promise<Ticket | null> {
  const n = parseNumber(number)
  if (n === null || !isLookupText(projectRef)) return null
  const [ticket] = await selectTickets(
    q,
    q`
    t.number = ${n} and t.project_id = (select project_id from project_names where name = ${projectRef})`,
  )
  return ticket ?? null
}

/**
 * The id and project of the ticket a route's path names (`:ref`, or `:slug` and `:number`), or
 * null: what a change checks before its transaction, which reads the ticket whole.
 */
async function locateTicket(
  q: Query,
  params: Record<string, string>,
): Promise<{ id: string; project: string } | null> {
  let where: Fragment | null = null
  if (params.ref !== undefined) {
    const old = parseNumber(params.ref)
    if (isUuid(params.ref)) where = q`id = ${params.ref.toLowerCase()}`
    else if (old !== null) where = q`old_number = ${old}`
  } else {
    const n = parseNumber(params.number!)
    if (n !== null && isLookupText(params.slug!))
      where = q`number = ${n} and project_id = (select project_id from project_names where name = ${params.slug!})`
  }
  if (where === null) return null
  const [row] = await q<
    { id: string; project_id: string }[]
  >`select id, project_id from tickets where ${where}`
  return row ? { id: row.id, project: row.project_id } : null
}

/** The ticket a relation names (src/tickets/rules/ticket-reference.ts), or null. */
async function ticketByReference(q: Query, ref: TicketReference): Promise<Ticket | null> {
  if (ref.kind === 'id') return ticketById(q, ref.id)
  if (ref.kind === 'none' || !isLookupText(ref.project)) return null
  const [ticket] = await selectTickets(
    q,
    q`
    t.number = ${ref.number} and t.project_id = (select project_id from project_names where name = ${ref.project})`,
  )
  return ticket ?? null
}

/** The ticket of a project with a non-empty `source`, or null. */
async function ticketBySource(q: Query, projectId: string, source: string): Promise<Ticket | null> {
  const [ticket] = await selectTickets(q, q`t.project_id = ${projectId} and t.source = ${source}`)
  return ticket ?? null
}

/** Tickets assigned to `userId` in `states`, the soonest due first (none last), then most recently updated. */
function assignedTickets(q: Query, userId: string, states: State[]): Promise<Ticket[]> {
  return selectTickets(
    q,
    q`t.assignee_id = ${userId} and t.state in ${q(states)}`,
    q`${dueKey(q)} asc, t.updated desc, t.created desc`,
  )
}

/**
 * The tickets whose pages show `ids` among their relations, and `ids` themselves: parents,
 * children, blockers and the tickets they block. Live pages redraw these (`ticketsRelated`).
 */
function relatedTickets(q: Query, ids: string[]): Promise<Ticket[]> {
  const seeds = q(ids)
  // One `in` of a `union`: each branch uses the primary key or the parent and blocker indexes,
  // where an `or` of five `in (subquery)` conditions would be evaluated row by row over every
  // ticket.
  return selectTickets(
    q,
    q`
    t.id in (
      select id from tickets where id in ${seeds}
      union select parent_id from tickets where id in ${seeds}
      union select id from tickets where parent_id in ${seeds}
      union select blocker_id from blockers where ticket_id in ${seeds}
      union select ticket_id from blockers where blocker_id in ${seeds})`,
    q`t.project_id, t.number`,
  )
}

/**
 * Tickets matching a search's condition (`where`, from src/tickets/store/search.ts) in `order`;
 * with `page`, one page of them.
 */
export function searchTickets(
  q: Query,
  where: Fragment,
  order: Fragment,
  page?: { limit: number; offset: number },
  each = false,
): Promise<Ticket[]> {
  return selectTickets(
    q,
    where,
    page ? q`${order} limit ${page.limit} offset ${page.offset}` : order,
    each,
  )
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
  /** The inbox's first key: the due day's {@link dueKeyOf} (its lists sort by due day first). */
  due?: number
}

/**
 * The order of the API's lists: the search's (newest first unless `sort:` says otherwise), with
 * the id as the last tie-breaker (two projects' tickets can share a time and a number), and the
 * condition "after `p`" in that order, a row comparison an index on the same columns serves.
 */
function listOrder(q: Query, sort: Sort | null) {
  const s = sort ?? 'created-desc'
  if (s === 'due') {
    // Soonest due first, no due day last ({@link dueKey}), then the number and the id.
    return {
      order: q`${dueKey(q)} asc, t.number asc, t.id asc`,
      after: (p: ListPosition) =>
        q`(${dueKey(q)}, t.number, t.id) > (${p.key}::int, ${p.number}::int, ${p.id}::uuid)`,
      positionOf: (t: Ticket): ListPosition => ({
        key: dueKeyOf(t.due),
        number: t.number,
        id: t.id,
      }),
    }
  }
  const byCreated = s === 'created-desc' || s === 'created-asc'
  const desc = s === 'created-desc' || s === 'updated-desc'
  const key = (t: Ticket) => (byCreated ? t.created : t.updated)
  const order = byCreated
    ? desc
      ? q`t.created desc, t.number desc, t.id desc`
      : q`t.created asc, t.number asc, t.id asc`
    : desc
      ? q`t.updated desc, t.number desc, t.id desc`
      : q`t.updated asc, t.number asc, t.id asc`
  const after = (p: ListPosition) => {
    const row = byCreated ? q`(t.created, t.number, t.id)` : q`(t.updated, t.number, t.id)`
    const at = q`(${p.key}::bigint, ${p.number}::int, ${p.id}::uuid)`
    return desc ? q`${row} < ${at}` : q`${row} > ${at}`
  }
  return {
    order,
    after,
    positionOf: (t: Ticket): ListPosition => ({ key: key(t), number: t.number, id: t.id }),
  }
}

/**
 * `limit <n>` with `n` written into the statement as a constant. As a parameter, PostgreSQL
 * cannot tell that a generic plan reads only a page: it costs that plan as if it read a tenth
 * of the rows, finds a plan made for each run's values cheaper, and so plans the statement
 * again on every request, which then costs more than running it. Each constant is a prepared
 * statement of its own on every connection, so only a few may be used: fixed page sizes, or
 * {@link pageLimit}'s.
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
async function listPage(
  q: Query,
  where: Fragment,
  sort: Sort | null,
  limit: number,
  from: ListPosition | null,
  each = false,
): Promise<Ticket[]> {
  const { order, after } = listOrder(q, sort)
  const read = pageLimit(limit)
  const rows = await ticketRows(
    q,
    from === null ? where : q`${where} and ${after(from)}`,
    q`${order} ${limitClause(q, read)}`,
    each,
  )
  return (rows.length > limit ? rows.slice(0, limit) : rows).map(ticketOf)
}

/**
 * Every ticket matching `where` in the list's order, `size` at a time: each batch is one
 * statement that starts after the previous batch's last ticket, so no more than a batch is held
 * and no connection (on the embedded database: the one session) is kept between batches.
 */
async function* listBatches(
  q: Query,
  where: Fragment,
  sort: Sort | null,
  size: number,
  start: ListPosition | null,
  each = false,
): AsyncGenerator<Ticket[]> {
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

/** Who a history event names: the actor's user and the connected app's label. */
const authorOf = (actor: Actor) => ({ id: actor.user.id, name: actor.user.name, app: actor.app })

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
    byPath: (params: Record<string, string>) =>
      params.ref !== undefined
        ? ticketByRef(q, params.ref)
        : ticketByNumber(q, params.slug!, params.number!),
    /** The id and project of the ticket a route's path names. */
    locate: (params: Record<string, string>) => locateTicket(q, params),
    assignedTo: (userId: string, states: State[]) => assignedTickets(q, userId, states),
    related: (ids: string[]) => relatedTickets(q, ids),
    /** The tickets a search finds, in its order; with `page`, one page of them. */
    search: (query: TicketQuery, search: TicketSearch, page?: { limit: number; offset: number }) =>
      searchTickets(
        q,
        searchWhere(q, query, search),
        searchOrder(q, query.sort),
        page,
        textSearched(query),
      ),
    /** One page of a list: up to `limit` tickets a search finds after `from`, in {@link listOrder}. */
    listPage: (
      query: TicketQuery,
      search: TicketSearch,
      limit: number,
      from: ListPosition | null,
    ) => listPage(q, searchWhere(q, query, search), query.sort, limit, from, textSearched(query)),
    /** Every ticket a search finds in {@link listOrder} (after `from` when given), read `size` at a time. */
    listBatches: (
      query: TicketQuery,
      search: TicketSearch,
      size: number,
      from: ListPosition | null = null,
    ) => listBatches(q, searchWhere(q, query, search), query.sort, size, from, textSearched(query)),
    /** Where a page of a list sorted by `sort` that ends at `ticket` stops. */
    positionOf: (sort: Sort | null, ticket: Ticket) => listOrder(q, sort).positionOf(ticket),
    /** How many tickets a search finds (after `from` in {@link listOrder} when given). */
    count: (query: TicketQuery, search: TicketSearch, from: ListPosition | null = null) => {
      const where = searchWhere(q, query, search)
      return countTickets(
        q,
        from === null ? where : q`${where} and ${listOrder(q, query.sort).after(from)}`,
        textSearched(query),
      )
    },
    /** Inserts a ticket by `actor`. */
    insert: (actor: Actor, t: Omit<NewTicketRow, 'authorId' | 'now'>) =>
      insertTicket(q, { ...t, authorId: actor.user.id, now: actor.now }),
    /** Inserts a ticket by `actor` when their role in the project is at least `atLeast`; else answers their role. */
    insertAsMember: (actor: Actor, t: Omit<NewTicketRow, 'authorId' | 'now'>, atLeast: Role) =>
      insertAsMember(
        q,
        { ...t, authorId: actor.user.id, now: actor.now },
        { userId: actor.user.id, atLeast },
      ),
    /** Locks a ticket for a change by `userId`, with that user's role in its project. */
    lock: (id: string, userId: string) => lockTicket(q, id, userId),
    /**
     * Sets `change` and adds `events` made by `actor` (with the connected app's label when one
     * acts) at `actor.now`.
     */
    change: (id: string, change: TicketChange, events: readonly NewHistoryEvent[], actor: Actor) =>
      changeTicket(q, id, change, events, authorOf(actor), actor.now),
    /** {@link change}, when `actor`'s role in the ticket's project is at least `atLeast`; else answers their role. */
    changeAsMember: (
      id: string,
      change: TicketChange,
      events: readonly NewHistoryEvent[],
      actor: Actor,
      atLeast: Role,
    ) =>
      changeAsMember(q, id, change, events, authorOf(actor), actor.now, {
        userId: actor.user.id,
        atLeast,
      }),
    parentOf: (id: string) => parentOf(q, id),
    update: (id: string, change: TicketChange) => updateTicket(q, id, change),
  }
}
