/**
 * What the web pages read, shaped for them: the reads every page makes besides its own (the
 * live cursor, the project switcher, the signed-in person's inbox count and, on a project's
 * pages, the project a name gives with the person's role, its members and its tickets per
 * state) in one statement, which on the project page also reads the page of its list; and the
 * rows of the other ticket lists with only the columns a row shows.
 *
 * What of the context is the same for everyone is kept between requests in a {@link PageCache}
 * (store/page-cache.ts) while the lists' version is unchanged. The statements read whole parts,
 * never "what changed since": a request whose shared parts are kept reads only its own parts
 * with the version, and reads everything (in one statement, one snapshot) when the version has
 * moved or nothing is kept.
 *
 * Each statement is written so that PostgreSQL keeps one plan for it (a prepared statement's
 * generic plan) instead of planning it again on every request: no parameter whose value makes
 * a custom plan look cheaper (a null viewer, a `limit`).
 */
import type postgres from 'postgres'
import { plannedEachTime, type Query } from '../../db/client.ts'
import { isLookupText } from '../rules/ids.ts'
import type { TicketQuery } from '../rules/query.ts'
import type { Role } from '../rules/roles.ts'
import { STATES, type State } from '../rules/states.ts'
import {
  createPageCache,
  type ListPage,
  type ListRequest,
  type ListRow,
  type PageCache,
  type SharedParts,
} from './page-cache.ts'
import type { Member, Project } from './projects.ts'
import {
  dueKey,
  dueKeyOf,
  NO_DUE_KEY,
  searchCondition,
  searchOrder,
  textSearched,
} from './search.ts'
import { unreadCountColumn } from './notifications.ts'
import { ticketOf, viewOf, type Ticket, type TicketRow } from './ticket-row.ts'
import { limitClause, searchWhere, type ListPosition, type TicketSearch } from './tickets.ts'

export { CACHED_READS, type ListedTicket, type ListRequest, type ListRow } from './page-cache.ts'

type Fragment = postgres.PendingQuery<postgres.Row[]>

/** What the frame and a project's pages read once per request. */
export interface PageContext {
  /** The live cursor, read in the same snapshot as everything else the page shows. */
  cursor: number
  /** The lists' version (sql/0019_lists_version_by_triggers.sql) of what the page shows. */
  version: number
  /** Every project's slug and title, by title. */
  switcher: { slug: string; title: string }[]
  /** The person's tickets in open, doing or review; null when nobody is signed in. */
  inboxCount: number | null
  /** The person's unread notifications in the app (the bell); null when nobody is signed in. */
  unreadCount: number | null
  /** The project the name given names, with what its pages show of it; null when none was given or found. */
  project: {
    project: Project
    role: Role | null
    /** Admins first, then by name. */
    members: Member[]
    /** Tickets per state, every state present. */
    counts: Record<State, number>
    /** The page of the project's list asked for, or null when none was. */
    list: { rows: ListRow[] } | null
    /** The ticket of the number asked for (the ticket page) with its related tickets; null when none was asked for or found. */
    ticket: PageTicket | null
  } | null
}

/** The ticket page's ticket and the tickets related to it, as list rows. */
export interface PageTicket {
  ticket: Ticket
  related: (ListRow & { relation: Relation })[]
}

/** How a related ticket relates to the ticket whose page lists it. */
export type Relation = 'child' | 'blocker' | 'blocks'

/** What one page request names. */
interface ContextRequest {
  /** The signed-in person, or null. */
  viewer: string | null
  /** The project's slug, old slug or id, or null. */
  ref: string | null
  list: ListRequest | null
  /** The ticket page's number, or null. */
  number: number | null
}

/** The parts of a page's context that are the request's own, read every time. */
interface OwnParts {
  cursor: number
  /** The lists' version, read in the same snapshot: the version of the shared parts that go with these. */
  version: number
  inboxCount: number | null
  unreadCount: number | null
  project: { project: Project; role: Role | null } | null
  ticket: PageTicket | null
}

/** JSON text on the embedded database, parsed JSON on a server. */
type Json<T> = string | T

/** The context statement's row: the request's own columns, and the shared ones when they were read. */
interface ContextRow {
  cursor: number
  version: number
  inbox: number | null
  unread: number | null
  id: string | null
  slug: string | null
  title: string | null
  description: string | null
  created: number | null
  role: Role | null
  switcher?: Json<{ slug: string; title: string }[]>
  members?: Json<{ id: string; name: string; role: Role }[]>
  counts?: Json<{ state: State; n: number }[]>
  list?: Json<Omit<ListRowRow, 'slug'>[]>
  ticket?: Json<TicketRow> | null
  related?: Json<(ListRowRow & { relation: Relation })[]>
}

interface ListRowRow {
  id: string
  number: number
  slug: string
  subject: string
  state: State
  assignee_id: string | null
  assignee_name: string | null
  updated: number
  blocked: boolean
  /** Its labels with their colours, by name. */
  labels: Json<{ name: string; color: string }[]>
  milestone: string | null
  due: string | null
}

/** A list row's labels (with their colours), milestone and due day, read from `t`. */
export function organiseColumns(q: Query): Fragment {
  return q`(select coalesce(json_agg(json_build_object('name', l.name, 'color', l.color) order by lower(l.name), l.name), '[]')
        from ticket_labels tl join labels l on l.id = tl.label_id where tl.ticket_id = t.id) as labels,
      (select ms.title from milestones ms where ms.id = t.milestone_id) as milestone,
      to_char(t.due, 'YYYY-MM-DD') as due`
}

const parsed = <T>(value: Json<T>): T =>
  typeof value === 'string' ? (JSON.parse(value) as T) : value

/**
 * The page context for `viewerId` (null: signed out) and a project slug, old slug or id (null:
 * none). What is the same for everyone (the switcher, the project's members and counts, a page
 * of its list) comes from `cache` when it holds it at the version read with the request's own
 * parts; otherwise everything is read in one statement, and what is shared kept for next time.
 */
async function pageContext(
  q: Query,
  cache: PageCache,
  viewerId: string | null,
  projectRef: string | null,
  list: ListRequest | null = null,
  ticketNumber: number | null = null,
): Promise<PageContext> {
  const ref = projectRef !== null && isLookupText(projectRef) ? projectRef : null
  const request: ContextRequest = { viewer: viewerId, ref, list, number: ticketNumber }
  const kept = cache.get(ref, list)
  if (kept !== null) {
    const own = await readOwn(q, request)
    if (own.version === kept.version && sameProject(own, kept)) return contextOf(own, kept)
  }
  const { own, shared } = await readAll(q, request)
  cache.set(ref, list, shared)
  return contextOf(own, shared)
}

/** Whether the kept parts are of the project the request's name gives now (a name can move to another project). */
function sameProject(own: OwnParts, kept: SharedParts): boolean {
  const id = own.project?.project.id ?? null
  return (
    id === (kept.project?.projectId ?? null) && (kept.list === null || kept.list.projectId === id)
  )
}

/** The page context of the request's own parts and the shared parts read at the same version. */
function contextOf(own: OwnParts, shared: SharedParts): PageContext {
  const here = own.project
  const project: PageContext['project'] =
    here === null || shared.project === null
      ? null
      : {
          ...here,
          members: shared.project.members,
          counts: shared.project.counts,
          list: shared.list === null ? null : { rows: shared.list.rows },
          ticket: own.ticket,
        }
  return {
    cursor: own.cursor,
    version: Number(own.version),
    switcher: shared.switcher,
    inboxCount: own.inboxCount,
    unreadCount: own.unreadCount,
    project,
  }
}

/** The request's own parts alone, with the lists' version. */
async function readOwn(q: Query, request: ContextRequest): Promise<OwnParts> {
  const [row] = await contextStatement(q, request, false)
  return ownOf(row as unknown as ContextRow, request)
}

/** Everything the request's page reads, in one statement. */
async function readAll(
  q: Query,
  request: ContextRequest,
): Promise<{ own: OwnParts; shared: SharedParts }> {
  const statement = contextStatement(q, request, true)
  // A text search's plan depends on its words: planned for them each time (src/db/client.ts).
  const [row] = await (request.list !== null && textSearched(request.list.query)
    ? plannedEachTime(statement)
    : statement)
  const r = row as unknown as ContextRow
  return { own: ownOf(r, request), shared: sharedOf(r, request) }
}

function ownOf(r: ContextRow, request: ContextRequest): OwnParts {
  const project =
    r.id === null
      ? null
      : {
          id: r.id,
          slug: r.slug!,
          title: r.title!,
          description: r.description!,
          created: r.created!,
        }
  return {
    cursor: r.cursor,
    version: r.version,
    inboxCount: request.viewer === null ? null : r.inbox,
    unreadCount: request.viewer === null ? null : r.unread,
    project: project === null ? null : { project, role: r.role ?? null },
    ticket:
      r.ticket == null
        ? null
        : {
            ticket: ticketOf(parsed(r.ticket)),
            related: parsed(r.related ?? []).map((t) => ({
              ...listRowOf(t),
              relation: t.relation,
            })),
          },
  }
}

function sharedOf(r: ContextRow, request: ContextRequest): SharedParts {
  const switcher = parsed(r.switcher ?? [])
  if (r.id === null) return { version: r.version, switcher, project: null, list: null }
  const counts = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<State, number>
  for (const c of parsed(r.counts ?? [])) counts[c.state] = c.n
  const members = parsed(r.members ?? []).map((m) => ({
    user: { id: m.id, name: m.name },
    role: m.role,
  }))
  const list: ListPage | null =
    request.list === null
      ? null
      : {
          projectId: r.id,
          rows: parsed(r.list ?? []).map((t) => listRowOf({ ...t, slug: r.slug! })),
        }
  return { version: r.version, switcher, project: { projectId: r.id, members, counts }, list }
}

/**
 * The page's statement: the request's own columns (the cursor, the lists' version, the inbox
 * count when signed in, the project and the viewer's role, the ticket of the number given) and,
 * when `shared`, the columns the same for everyone (the switcher, the members, the counts, a
 * page of the list when one is asked for).
 */
function contextStatement(q: Query, request: ContextRequest, shared: boolean): Fragment {
  const signedIn = request.viewer !== null
  const inbox = signedIn
    ? q`(select coalesce(sum(i.count), 0)::int from inbox_counts i where i.assignee_id = ${request.viewer})`
    : q`null::int`
  const unread = signedIn ? unreadCountColumn(q, request.viewer!) : q`null::int`
  const role = signedIn
    ? q`(select m.role from members m where m.project_id = here.id and m.user_id = ${request.viewer})`
    : q`null::text`
  // The page's project is `here`, a name no joined fragment uses: the ticket's columns join
  // `projects p` (viewOf), so a `p.id` meant for the page's project would name the ticket's own.
  return q`
    select
      v.cursor, v.version,
      ${inbox} as inbox,
      ${unread} as unread,
      here.id, here.slug, here.title, here.description, here.created,
      ${role} as role
      ${shared ? sharedColumns(q, request.list) : q``}
      ${request.number !== null ? ticketColumns(q, request.number) : q``}
    from (select 1) as one
    left join lateral (${listsVersionRow(q)}) as v on true
    left join (project_names n join projects here on here.id = n.project_id) on n.name = ${request.ref}`
}

/** The columns the same for everyone: the switcher, the project's members and counts, and a page of its list when asked for. */
function sharedColumns(q: Query, list: ListRequest | null): Fragment {
  // `ticket_counts` may hold several rows of one state (they add up), hence the sum.
  return q`,
      (select coalesce(json_agg(json_build_object('slug', s.slug, 'title', s.title) order by lower(s.title), s.slug), '[]')
        from projects s) as switcher,
      (select coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'role', m.role)
          order by array_position(array['admin', 'edit', 'use'], m.role), u.name, u.id), '[]')
        from members m join users u on u.id = m.user_id where m.project_id = here.id) as members,
      (select coalesce(json_agg(json_build_object('state', c.state, 'n', c.n)), '[]')
        from (select state, sum(count)::int as n from ticket_counts where project_id = here.id group by state) c) as counts
      ${list === null ? q`` : listColumns(q, list)}`
}

/**
 * The context's columns for a page of the project's list (`list`, a JSON array of rows in the
 * list's order), read in the context's statement. A search's matches are not counted: a count
 * reads every match (docs/scaling.md, "A million tickets"); the page's one row more tells
 * whether another page follows.
 */
function listColumns(q: Query, list: ListRequest): Fragment {
  const where = q`t.project_id = here.id and ${searchCondition(q, list.query, list.search)}`
  const order = searchOrder(q, list.query.sort)
  // The outer `t` is the page of rows, so the same order sorts it into the array.
  return q`,
      (select coalesce(json_agg(json_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'state', t.state,
          'assignee_id', t.assignee_id, 'assignee_name', t.assignee_name, 'updated', t.updated, 'blocked', t.blocked,
          'labels', t.labels, 'milestone', t.milestone, 'due', t.due) order by ${order}), '[]')
        from (
          select t.id, t.number, t.subject, t.state, t.assignee_id, a.name as assignee_name, t.created, t.updated, t.open_blockers > 0 as blocked,
            ${organiseColumns(q)}
          from tickets t left join users a on a.id = t.assignee_id
          where ${where}
          order by ${order} ${pageClause(q, list.limit, list.skip)}
        ) as t) as list`
}

/**
 * The live cursor (the last event `seq` given out, or pruned) and the lists' version
 * (sql/0019_lists_version_by_triggers.sql) as a one-row select. Read in the same statement as
 * the lists, the version is that of the rows the statement reads.
 */
function listsVersionRow(q: Query): Fragment {
  // `limit 1` tells the planner what the table's one row cannot: guessing the table at a
  // thousand rows or more made every column a thousand runs, and the statement costly enough
  // for PostgreSQL to compile it (JIT).
  return q`select greatest(pruned_through, (select max(seq) from events)) as cursor, (select max(seq) from lists_writes) as version from live_state limit 1`
}

/**
 * The context's columns for the ticket page: the ticket of `number` in the project (`ticket`, the
 * columns every read of a ticket has) and its children, blockers and the tickets it blocks as
 * list rows by project and number (`related`), read in the context's statement.
 */
function ticketColumns(q: Query, number: number): Fragment {
  const view = viewOf(q)
  return q`,
      (select row_to_json(t) from (select ${view.columns} from tickets t ${view.joins} where t.project_id = here.id and t.number = ${number}) as t) as ticket,
      (select coalesce(json_agg(r order by r.slug, r.number), '[]') from (
        select r.relation, t.id, t.number, rp.slug, t.subject, t.state, t.assignee_id, a.name as assignee_name, t.updated,
          t.open_blockers > 0 as blocked, ${organiseColumns(q)}
        from tickets k
        cross join lateral (
          select id, 'child' as relation from tickets where parent_id = k.id
          union all select blocker_id, 'blocker' from blockers where ticket_id = k.id
          union all select ticket_id, 'blocks' from blockers where blocker_id = k.id
        ) as r
        join tickets t on t.id = r.id
        join projects rp on rp.id = t.project_id
        left join users a on a.id = t.assignee_id
        where k.project_id = here.id and k.number = ${number}) as r) as related`
}

/** `limit` (a constant: {@link limitClause}) and `offset` for a page; nothing for every row. */
function pageClause(q: Query, limit: number | null, skip: number): Fragment {
  if (limit === null) return q``
  return skip > 0 ? q`${limitClause(q, limit)} offset ${skip}` : limitClause(q, limit)
}

/** List rows of the tickets matching `where`, in `order`, `limit` of them after `skip`. */
async function listRows(
  q: Query,
  where: Fragment,
  order: Fragment,
  limit: number | null,
  skip = 0,
  each = false,
): Promise<ListRow[]> {
  const page = pageClause(q, limit, skip)
  const statement = q<ListRowRow[]>`
    select t.id, t.number, p.slug, t.subject, t.state, t.assignee_id, a.name as assignee_name, t.updated,
      t.open_blockers > 0 as blocked, ${organiseColumns(q)}
    from tickets t
    join projects p on p.id = t.project_id
    left join users a on a.id = t.assignee_id
    where ${where}
    order by ${order} ${page}`
  const rows = await (each ? plannedEachTime(statement) : statement)
  return rows.map(listRowOf)
}

/** Where an inbox row stands in its list ({@link pageReadTable}'s `assigned`): its due day, last change, number and id. */
export function assignedPosition(row: ListRow): ListPosition {
  return {
    due: dueKeyOf(row.ticket.due),
    key: row.ticket.updated,
    number: row.ticket.number,
    id: row.ticket.id,
  }
}

/**
 * "After `from`" in the inbox's order, on its rows (`inbox_rows`, sql/0042): the soonest due
 * first (none last), then the latest change. A position without a due key (a link from before
 * due days) counts as "no due day".
 */
function afterInInbox(q: Query, from: ListPosition): Fragment {
  const due = from.due ?? NO_DUE_KEY
  return q`(i.due_key > ${due}::int or (i.due_key = ${due}::int and (i.updated, i.number, i.ticket_id) < (${from.key}::bigint, ${from.number}::int, ${from.id}::uuid)))`
}

function listRowOf(r: ListRowRow): ListRow {
  return {
    ticket: {
      id: r.id,
      ref: `${r.slug}#${r.number}`,
      slug: r.slug,
      number: r.number,
      subject: r.subject,
      state: r.state,
      assignee: r.assignee_id !== null ? { id: r.assignee_id, name: r.assignee_name! } : null,
      updated: r.updated,
      milestone: r.milestone ?? null,
      due: r.due ?? null,
    },
    blocked: r.blocked,
    labels: parsed(r.labels ?? []),
  }
}

/** The pages' reads on `q`. */
export function pageReadTable(q: Query, cachedReads: number) {
  const cache = createPageCache(cachedReads)
  return {
    /** The page context; with `list`, a page of the project's list read with it (what is the same for everyone cached while the lists' version is). */
    context: (
      viewerId: string | null,
      projectRef: string | null,
      list: ListRequest | null = null,
      ticketNumber: number | null = null,
    ) => pageContext(q, cache, viewerId, projectRef, list, ticketNumber),
    /** Up to `limit` rows a search finds, in its order, after `skip` of them. */
    list: (query: TicketQuery, search: TicketSearch, limit: number, skip: number) =>
      listRows(
        q,
        searchWhere(q, query, search),
        searchOrder(q, query.sort),
        limit,
        skip,
        textSearched(query),
      ),
    /**
     * Up to `limit` of the person's tickets in an inbox list (`pending`: open and doing;
     * `review`), soonest due first, then latest change, after `from` (a row's
     * {@link assignedPosition}). The list's order is read from its rows' index
     * (`inbox_rows_page`), so a page reads `limit` entries and then those tickets, however many
     * the person has. `limit` is a constant of the statement: a page's size and one.
     */
    assigned: (
      userId: string,
      list: 'pending' | 'review',
      limit: number,
      from: ListPosition | null,
    ) =>
      listRows(
        q,
        q`t.id in (
          select i.ticket_id from inbox_rows i
          where i.assignee_id = ${userId} and i.list = ${list}${from === null ? q`` : q` and ${afterInInbox(q, from)}`}
          order by i.due_key, i.updated desc, i.number desc, i.ticket_id desc ${limitClause(q, limit)})`,
        q`${dueKey(q)} asc, t.updated desc, t.number desc, t.id desc`,
        limit,
      ),
    /** The person's tickets waiting for them (open, doing, review) per state, kept per statement (sql/0043); 0 for the other states. */
    async assignedCounts(userId: string): Promise<Record<State, number>> {
      const rows = await q<{ state: State; n: number }[]>`
        select state, sum(count)::int as n from inbox_counts where assignee_id = ${userId} group by state`
      const counts = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<State, number>
      for (const r of rows) counts[r.state] = r.n
      return counts
    },
  }
}
