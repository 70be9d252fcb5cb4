/**
 * Saved views (`saved_views`, sql/0031_views_and_bulk.sql): named searches of a project, a
 * person's own or the project's shared ones (docs/tickets-app.md, "Saved views"), and how many
 * tickets each lists now, counted up to a cap and kept while the lists' version stays.
 */
import type { Query } from '../../db/client.ts'
import { recordId } from '../../base/random.ts'
import { plannedEachTime } from '../../db/client.ts'
import { needsMe, parseQuery, type TicketQuery } from '../rules/query.ts'
import { DEFAULT_FILTER } from '../rules/states.ts'
import { limitClause, searchWhere, type TicketSearch } from './tickets.ts'
import { textSearched } from './search.ts'
import { keptAtVersion, type KeptAtVersion } from './kept-at-version.ts'

/** A saved view as the API and the pages show it. */
export interface SavedView {
  id: string
  name: string
  /** The search, as typed: the API's `?q=`, the page's search box. */
  q: string
  /** The project's view, which every reader sees; otherwise its owner's own. */
  shared: boolean
  created: number
}

interface ViewRow {
  id: string
  name: string
  q: string
  owner_id: string | null
  created: number
}

const viewOf = (r: ViewRow): SavedView => ({
  id: r.id,
  name: r.name,
  q: r.q,
  shared: r.owner_id === null,
  created: r.created,
})

/** The views of a project `userId` sees (their own and the shared ones; the shared only when null), shared first, by name. */
async function viewsOf(q: Query, projectId: string, userId: string | null): Promise<SavedView[]> {
  const rows = await q<ViewRow[]>`
    select id, name, q, owner_id, created from saved_views
    where project_id = ${projectId} and (owner_id is null or owner_id = ${userId ?? ''})
    order by owner_id is not null, lower(name), id`
  return rows.map(viewOf)
}

/** One view of a project by id, with its owner (null: shared). */
async function viewById(
  q: Query,
  projectId: string,
  id: string,
): Promise<(SavedView & { owner: string | null }) | null> {
  const [r] = await q<ViewRow[]>`
    select id, name, q, owner_id, created from saved_views where id = ${id} and project_id = ${projectId}`
  return r ? { ...viewOf(r), owner: r.owner_id ?? null } : null
}

/** Whether a name is free among `owner`'s views of the project (null: the shared ones), besides the view `except`. */
async function nameFree(
  q: Query,
  projectId: string,
  owner: string | null,
  name: string,
  except: string | null,
): Promise<boolean> {
  const [r] = await q<{ n: number }[]>`
    select count(*)::int as n from saved_views
    where project_id = ${projectId} and owner_id is not distinct from ${owner}
      and lower(name) = lower(${name}) and id <> ${except ?? ''}`
  return (r?.n ?? 0) === 0
}

/** How many views `owner` (null: the project) has in the project. */
async function countOf(q: Query, projectId: string, owner: string | null): Promise<number> {
  const [r] = await q<{ n: number }[]>`
    select count(*)::int as n from saved_views where project_id = ${projectId} and owner_id is not distinct from ${owner}`
  return r?.n ?? 0
}

/** A view's count: up to {@link VIEW_COUNT_CAP} tickets, and whether it lists more. */
export interface ViewCount {
  count: number
  more: boolean
}

/** A view counts its tickets up to this many ("1,000+" past it). */
export const VIEW_COUNT_CAP = 1000

/** Counts kept at most, all of one lists' version. */
const COUNTS_KEPT = 2000

/** A search to count: the parsed query and the context it is counted in. */
export interface CountedSearch {
  query: TicketQuery
  search: TicketSearch
}

function countKey(c: CountedSearch): string {
  const me = needsMe(c.query) ? c.search.me : null
  return `${c.search.projectId ?? ''}\n${c.search.states.join(' ')}\n${me ?? ''}\n${JSON.stringify(c.query)}`
}

/**
 * How many tickets each search finds, up to {@link VIEW_COUNT_CAP}: those kept at `version`
 * (the lists' version the page was read at; null when not known) from the cache, the others
 * all in one statement, which reads the version with them and keeps them at it.
 */
async function viewCounts(
  q: Query,
  cache: KeptAtVersion<ViewCount>,
  searches: readonly CountedSearch[],
  version: number | null,
): Promise<ViewCount[]> {
  const keys = searches.map(countKey)
  const found = keys.map((k) => (version === null ? undefined : cache.get(version, k)))
  const missing = searches.flatMap((s, i) => (found[i] === undefined ? [i] : []))
  if (missing.length === 0) return found as ViewCount[]
  const columns = missing.map((i) => {
    const { query, search } = searches[i]!
    return q`(select count(*)::int from (select 1 from tickets t where ${searchWhere(q, query, search)} ${limitClause(q, VIEW_COUNT_CAP + 1)}) as m)`
  })
  const list = columns.reduce((all, c) => q`${all}, ${c}`)
  const statement = q<{ version: number; counts: string | number[] }[]>`
    select (select max(seq) from lists_writes) as version, json_build_array(${list}) as counts`
  const text = missing.some((i) => textSearched(searches[i]!.query))
  const [row] = await (text ? plannedEachTime(statement) : statement)
  const counts =
    typeof row!.counts === 'string' ? (JSON.parse(row!.counts) as number[]) : row!.counts
  missing.forEach((i, n) => {
    const c = counts[n]!
    const count = { count: Math.min(c, VIEW_COUNT_CAP), more: c > VIEW_COUNT_CAP }
    cache.set(Number(row!.version), keys[i]!, count)
    found[i] = count
  })
  return found as ViewCount[]
}

/** The saved views on `q`. */
export function viewTable(q: Query, clock: () => number) {
  // Counts of searches kept with the lists' version they were read at.
  const cache = keptAtVersion<ViewCount>(COUNTS_KEPT)
  return {
    /** How many tickets each search finds, up to {@link VIEW_COUNT_CAP} (kept at the lists' `version`). */
    counts: (searches: readonly CountedSearch[], version: number | null = null) =>
      viewCounts(q, cache, searches, version),
    /**
     * Each view's count now, for the person `me` (null: nobody signed in), as its list shows it
     * (without a `state:` term: open, doing and review); null for a view whose search no longer
     * parses, or says `me` with nobody signed in. `version`: the lists' version the page read.
     */
    async countsOf(
      projectId: string,
      views: readonly SavedView[],
      me: string | null,
      version: number | null = null,
    ): Promise<(ViewCount | null)[]> {
      const searches = views.map((v): CountedSearch | null => {
        const parsed = parseQuery(v.q)
        if (!parsed.ok || (needsMe(parsed.query) && me === null)) return null
        return { query: parsed.query, search: { states: DEFAULT_FILTER, me, projectId } }
      })
      const counted = searches.filter((s) => s !== null)
      const counts = counted.length === 0 ? [] : await viewCounts(q, cache, counted, version)
      let n = 0
      return searches.map((s) => (s === null ? null : counts[n++]!))
    },
    of: (projectId: string, userId: string | null) => viewsOf(q, projectId, userId),
    byId: (projectId: string, id: string) => viewById(q, projectId, id),
    nameFree: (
      projectId: string,
      owner: string | null,
      name: string,
      except: string | null = null,
    ) => nameFree(q, projectId, owner, name, except),
    countOf: (projectId: string, owner: string | null) => countOf(q, projectId, owner),
    /** Saves a view (`owner` null: a shared one); null when its name was taken meanwhile. */
    async insert(
      projectId: string,
      owner: string | null,
      name: string,
      text: string,
    ): Promise<SavedView | null> {
      const id = recordId()
      const created = clock()
      const rows = await q`insert into saved_views (id, project_id, owner_id, name, q, created)
        values (${id}, ${projectId}, ${owner}, ${name}, ${text}, ${created})
        on conflict do nothing returning id`
      return rows.length === 0 ? null : { id, name, q: text, shared: owner === null, created }
    },
    /** Renames a view or changes its search. */
    async update(id: string, change: { name?: string; q?: string }): Promise<void> {
      const set: Record<string, string> = {}
      if (change.name !== undefined) set.name = change.name
      if (change.q !== undefined) set.q = change.q
      await q`update saved_views set ${q(set as never)} where id = ${id}`
    },
    async remove(id: string) {
      await q`delete from saved_views where id = ${id}`
    },
  }
}
