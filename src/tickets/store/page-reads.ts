/**
 * What the web pages read, shaped for them: the reads every page makes besides its own (the
 * live cursor, the project switcher, the signed-in person's inbox count and, on a project's
 * pages, the project a name gives with the person's role, its members and its tickets per
 * state) in one statement, which on the project page also reads the page of its list; and the
 * rows of the other ticket lists with only the columns a row shows. What of the context is the
 * same for everyone is cached between requests while the lists' version is unchanged
 * ({@link SharedReads}).
 *
 * Each statement is written so that PostgreSQL keeps one plan for it (a prepared statement's
 * generic plan) instead of planning it again on every request: no parameter whose value makes
 * a custom plan look cheaper (a null viewer, a `limit`).
 */
import type postgres from 'postgres'
import { plannedEachTime, type Query } from '../../db/client.ts'
import { lruSet } from '../../base/lru.ts'
import { isLookupText } from '../rules/ids.ts'
import { needsMe, type TicketQuery } from '../rules/query.ts'
import type { Role } from '../rules/roles.ts'
import { STATES, type State } from '../rules/states.ts'
import type { Member, Project } from './projects.ts'
import { searchCondition, searchOrder, textSearched, type SearchContext } from './search.ts'
import { ticketOf, viewOf, type Ticket, type TicketRow } from './ticket-row.ts'
import { limitClause, searchWhere, type TicketSearch } from './tickets.ts'

type Fragment = postgres.PendingQuery<postgres.Row[]>

/** What the frame and a project's pages read once per request. */
export interface PageContext {
  /** The live cursor, read in the same snapshot as everything else the page shows. */
  cursor: number
  /** Every project's slug and title, by title. */
  switcher: { slug: string; title: string }[]
  /** The person's tickets in open, doing or review; null when nobody is signed in. */
  inboxCount: number | null
  /** The project the name given names, with what its pages show of it; null when none was given or found. */
  project: {
    project: Project
    role: Role | null
    /** Admins first, then by name. */
    members: Member[]
    /** Tickets per state, every state present. */
    counts: Record<State, number>
    /** The page of the project's list asked for, or null when none was. */
    list: { rows: ListRow[]; total: number | null } | null
    /** The ticket of the number asked for (the ticket page) with its related tickets; null when none was asked for or found. */
    ticket: { ticket: Ticket; related: (ListRow & { relation: Relation })[] } | null
  } | null
}

/** A page of a project's list, read in the context's statement (the project page). */
export interface ListRequest {
  query: TicketQuery
  /** The states when the search names none, and who asks. */
  search: SearchContext
  limit: number
  skip: number
  /** Whether to count the matches too (a search: the tab counts cannot give its total). */
  count: boolean
}

/** A ticket as a list row shows it (a whole {@link Ticket} is one too). */
export type ListedTicket = Pick<Ticket, 'id' | 'ref' | 'slug' | 'number' | 'subject' | 'state' | 'assignee' | 'updated'>

/** A list row: the ticket and whether a ticket that is not done or dropped blocks it. */
export interface ListRow {
  ticket: ListedTicket
  blocked: boolean
}

/** How a related ticket relates to the ticket whose page lists it. */
export type Relation = 'child' | 'blocker' | 'blocks'

/** JSON text on the embedded database, parsed JSON on a server. */
type Json<T> = string | T

interface ContextRow {
  cursor: number
  version: number
  switcher: Json<{ slug: string; title: string }[]> | null
  inbox: number | null
  id: string | null
  slug: string | null
  title: string | null
  description: string | null
  created: number | null
  role: Role | null
  members: Json<{ id: string; name: string; role: Role }[]> | null
  counts: Json<{ state: State; n: number }[]> | null
  list?: Json<ListCells[]> | null
  total?: number | null
  ticket?: Json<TicketRow> | null
  related?: Json<(ListRowRow & { relation: Relation })[]> | null
}

/** A list row as the context's statement builds it: id, number, subject, state, assignee id and name, updated, blocked. */
type ListCells = [string, number, string, State, string | null, string | null, number, boolean]

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
}

const parsed = <T>(value: Json<T>): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value)

/**
 * The page context for `viewerId` (null: signed out) and a project slug, old slug or id (null:
 * none). Signed out, the statement has no inbox count and no role in it rather than a null
 * viewer: a null makes each run's custom plan look cheaper than the generic one, so it would be
 * planned again every time. What is the same for everyone (the switcher, the project's members
 * and counts, a page of its list) is read only when the lists' version moved since it was cached.
 */
async function pageContext(q: Query, cache: SharedReads, viewerId: string | null, projectRef: string | null, list: ListRequest | null = null, ticketNumber: number | null = null): Promise<PageContext> {
  const ref = projectRef !== null && isLookupText(projectRef) ? projectRef : null
  // What was cached when the statement was sent: an answer "unchanged" refers to it, though
  // another answer may have replaced it by the time this one comes.
  const have = cache.limit === 0 ? null : cache.current
  const cachedProject = ref === null ? undefined : have?.projects.get(ref)
  const listKey = list === null || ref === null || cache.limit === 0 ? null : keyOf(ref, list)
  const cachedList = listKey === null ? undefined : have?.lists.get(listKey)
  // Without anything cached the values match no version and no project, so the statement is the
  // same either way (one plan).
  const values: ContextValues = {
    version: have?.version ?? -1,
    cachedProject: cachedProject?.projectId ?? '',
    cachedListProject: cachedList?.projectId ?? '',
    viewer: viewerId,
    ref,
    number: ticketNumber,
  }
  const statement = contextStatement(q, values, viewerId !== null, list, ticketNumber !== null)
  // A text search's plan depends on its words: planned for them each time (src/db/client.ts).
  const [row] = await (list !== null && textSearched(list.query) ? plannedEachTime(statement) : statement)
  const r = row as unknown as ContextRow
  // The cached reads of the version the statement read at, where this answer's reads are cached.
  const at = r.switcher === null ? have! : readsAt(cache, r)
  const switcher = r.switcher === null ? at.switcher : (at.switcher = parsed(r.switcher))
  let project: PageContext['project'] = null
  if (r.id !== null) {
    let shared = r.members === null ? cachedProject! : undefined
    if (shared === undefined) {
      const counts = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<State, number>
      for (const c of parsed(r.counts ?? [])) counts[c.state] = c.n
      shared = { projectId: r.id, members: parsed(r.members ?? []).map((m) => ({ user: { id: m.id, name: m.name }, role: m.role })), counts }
      if (ref !== null && cache.limit > 0) lruSet(at.projects, ref, shared, cache.limit)
    }
    project = {
      project: { id: r.id, slug: r.slug!, title: r.title!, description: r.description!, created: r.created! },
      role: r.role ?? null,
      members: shared.members,
      counts: shared.counts,
      list: list === null ? null : readList(r, at, cache.limit, listKey, cachedList),
      ticket: r.ticket == null ? null : {
        ticket: ticketOf(parsed(r.ticket)),
        related: parsed(r.related ?? []).map((t) => ({ ...listRowOf(t), relation: t.relation })),
      },
    }
  }
  return { cursor: r.cursor, switcher, inboxCount: viewerId === null ? null : r.inbox, project }
}

/** The values a page's statement is given each time ({@link pageContext}). */
interface ContextValues {
  /** The lists' version of what is cached, or -1 for nothing. */
  version: number
  /** The project whose members and counts are cached, and the project of the cached page of its list; '' for none. */
  cachedProject: string
  cachedListProject: string
  viewer: string | null
  /** The project's slug, old slug or id. */
  ref: string | null
  number: number | null
}

/**
 * The page's statement: the viewer's parts when `signedIn`, a page of the list when `list`, the
 * ticket of the number given when `ticket`. Each cached part reads as null while the version
 * (and the project) is the one it was cached at.
 */
function contextStatement(q: Query, v: ContextValues, signedIn: boolean, list: ListRequest | null, ticket: boolean): Fragment {
  const same = q`v.version = ${v.version}`
  const sameProject = q`${same} and here.id = ${v.cachedProject}`
  const inbox = signedIn
    ? q`(select count(*)::int from tickets i where i.assignee_id = ${v.viewer} and i.state in ('open', 'doing', 'review'))`
    : q`null::int`
  const role = signedIn ? q`(select m.role from members m where m.project_id = here.id and m.user_id = ${v.viewer})` : q`null::text`
  // The page's project is `here`, a name no joined fragment uses: the ticket's columns join
  // `projects p` (viewOf), so a `p.id` meant for the page's project would name the ticket's own.
  // `ticket_counts` may hold several rows of one state (they add up), hence the sum.
  // A cached part reads as null; a part read is never null (`coalesce`).
  return q`
    select
      v.cursor, v.version,
      case when ${same} then null else (select coalesce(json_agg(json_build_object('slug', s.slug, 'title', s.title) order by lower(s.title), s.slug), '[]')
        from projects s) end as switcher,
      ${inbox} as inbox,
      here.id, here.slug, here.title, here.description, here.created,
      ${role} as role,
      case when ${sameProject} then null else (select coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'role', m.role)
          order by array_position(array['admin', 'edit', 'use'], m.role), u.name, u.id), '[]')
        from members m join users u on u.id = m.user_id where m.project_id = here.id) end as members,
      case when ${sameProject} then null else (select coalesce(json_agg(json_build_object('state', c.state, 'n', c.n)), '[]')
        from (select state, sum(count)::int as n from ticket_counts where project_id = here.id group by state) c) end as counts
      ${list === null ? q`` : listColumns(q, list, q`${same} and here.id = ${v.cachedListProject}`)}
      ${ticket ? ticketColumns(q, v.number) : q``}
    from (select 1) as one
    left join lateral (${listsVersionRow(q)}) as v on true
    left join (project_names n join projects here on here.id = n.project_id) on n.name = ${v.ref}`
}

/**
 * The context's columns for a page of the project's list (`list`, a JSON array of rows in the
 * list's order) and, for a search, its count (`total`), read in the context's statement.
 */
function listColumns(q: Query, list: ListRequest, cached: Fragment): Fragment {
  const where = q`t.project_id = here.id and ${searchCondition(q, list.query, list.search)}`
  const order = searchOrder(q, list.query.sort)
  // A cached page is still the page while the project and the lists' version are the ones it
  // was read at (`cached`); then the list reads as null and nothing of it is read again.
  // The outer `t` is the page of rows, so the same order sorts it into the array.
  return q`,
      case when ${cached} then null else (select coalesce(json_agg(json_build_array(t.id, t.number, t.subject, t.state, t.assignee_id, t.assignee_name, t.updated, t.blocked) order by ${order}), '[]')
        from (
          select t.id, t.number, t.subject, t.state, t.assignee_id, a.name as assignee_name, t.created, t.updated, t.open_blockers > 0 as blocked
          from tickets t left join users a on a.id = t.assignee_id
          where ${where}
          order by ${order} ${pageClause(q, list.limit, list.skip)}
        ) as t) end as list
      ${list.count ? q`, case when ${cached} then null else (select count(*)::int from tickets t where ${where}) end as total` : q``}`
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
 * What the pages read that is the same for everyone, cached between requests with the lists'
 * version it was read at: the switcher, each project's members and tab counts, and pages of the
 * project lists. Triggers move the version with every committed write of a table these show
 * (sql/0019_lists_version_by_triggers.sql), so while the version is the same, so are they. When
 * the version moves everything cached is dropped at once; within one version at most
 * {@link CACHED_READS} projects and as many lists are cached, the least recently used dropped
 * first.
 */
interface SharedReads {
  /** 0 caches nothing: everything is read every time. */
  limit: number
  current: ReadsAtVersion | null
}

interface ReadsAtVersion {
  version: number
  switcher: PageContext['switcher']
  /** By the name the page asked for (slug, old slug or id). */
  projects: Map<string, CachedProject>
  /** By {@link keyOf}. */
  lists: Map<string, CachedList>
}

interface CachedProject {
  projectId: string
  members: Member[]
  counts: Record<State, number>
}

interface CachedList {
  projectId: string
  rows: ListRow[]
  total: number | null
}

/** Projects and lists cached: a first page and a few searches for each of a hundred busy projects, a few KB each. */
export const CACHED_READS = 500

/** The cached reads of the version `r` was read at: the current ones if they are of it, else new ones that replace them. */
function readsAt(cache: SharedReads, r: ContextRow): ReadsAtVersion {
  const current = cache.current
  if (current !== null && current.version === r.version) return current
  const empty: ReadsAtVersion = { version: r.version, switcher: [], projects: new Map(), lists: new Map() }
  if (cache.limit > 0) cache.current = empty
  return empty
}

/** A list request's key: the project as named, the page, and the search (with who is `me` only when it says `me`). */
function keyOf(ref: string, list: ListRequest): string {
  const me = needsMe(list.query) ? list.search.me : null
  return `${ref}\n${list.limit}\n${list.skip}\n${list.count}\n${list.search.states.join(' ')}\n${me ?? ''}\n${JSON.stringify(list.query)}`
}

/** The page of the list from the context's row, or the cached page when the row has none; cached for next time when read. */
function readList(r: ContextRow, at: ReadsAtVersion, limit: number, key: string | null, cachedList: CachedList | undefined): { rows: ListRow[]; total: number | null } {
  if (r.list === null) {
    // Used again: the most recently used.
    lruSet(at.lists, key!, cachedList!, limit)
    return cachedList!
  }
  const rows = parsed(r.list ?? []).map(([id, number, subject, state, assigneeId, assigneeName, updated, blocked]): ListRow => ({
    ticket: { id, ref: `${r.slug}#${number}`, slug: r.slug!, number, subject, state, assignee: assigneeId !== null ? { id: assigneeId, name: assigneeName! } : null, updated },
    blocked,
  }))
  const read = { rows, total: r.total ?? null }
  if (key !== null) lruSet(at.lists, key, { projectId: r.id!, ...read }, limit)
  return read
}

/**
 * The context's columns for the ticket page: the ticket of `number` in the project (`ticket`, the
 * columns every read of a ticket has) and its children, blockers and the tickets it blocks as
 * list rows by project and number (`related`), read in the context's statement.
 */
function ticketColumns(q: Query, number: number | null): Fragment {
  const view = viewOf(q)
  return q`,
      (select row_to_json(t) from (select ${view.columns} from tickets t ${view.joins} where t.project_id = here.id and t.number = ${number}) as t) as ticket,
      (select coalesce(json_agg(r order by r.slug, r.number), '[]') from (
        select r.relation, t.id, t.number, rp.slug, t.subject, t.state, t.assignee_id, a.name as assignee_name, t.updated,
          t.open_blockers > 0 as blocked
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
async function listRows(q: Query, where: Fragment, order: Fragment, limit: number | null, skip = 0, each = false): Promise<ListRow[]> {
  const page = pageClause(q, limit, skip)
  const statement = q<ListRowRow[]>`
    select t.id, t.number, p.slug, t.subject, t.state, t.assignee_id, a.name as assignee_name, t.updated,
      t.open_blockers > 0 as blocked
    from tickets t
    join projects p on p.id = t.project_id
    left join users a on a.id = t.assignee_id
    where ${where}
    order by ${order} ${page}`
  const rows = await (each ? plannedEachTime(statement) : statement)
  return rows.map(listRowOf)
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
    },
    blocked: r.blocked,
  }
}

/** The pages' reads on `q`. */
export function pageReadTable(q: Query, cachedReads: number) {
  const cache: SharedReads = { limit: cachedReads, current: null }
  return {
    /** The page context; with `list`, a page of the project's list read with it (what is the same for everyone cached while the lists' version is). */
    context: (viewerId: string | null, projectRef: string | null, list: ListRequest | null = null, ticketNumber: number | null = null) =>
      pageContext(q, cache, viewerId, projectRef, list, ticketNumber),
    /** Up to `limit` rows a search finds, in its order, after `skip` of them. */
    list: (query: TicketQuery, search: TicketSearch, limit: number, skip: number) =>
      listRows(q, searchWhere(q, query, search), searchOrder(q, query.sort), limit, skip, textSearched(query)),
    /** The person's tickets in `states`, latest change first. */
    assigned: (userId: string, states: readonly State[]) =>
      listRows(q, q`t.assignee_id = ${userId} and t.state in ${q(states as State[])}`, q`t.updated desc, t.created desc`, null),
  }
}
