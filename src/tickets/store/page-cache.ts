/**
 * What the pages read that is the same for everyone, kept between requests with the lists'
 * version it was read at: the switcher, each project's members and tab counts, and pages of the
 * project lists. Triggers move the version with every committed write of a table these show
 * (sql/0019_lists_version_by_triggers.sql), so while the version is the same, so are they. When
 * the version moves everything kept is dropped at once; within one version at most `limit`
 * projects and as many lists are kept, the least recently used dropped first.
 *
 * The cache holds answers; it never decides what a statement reads. The page reads
 * (store/page-reads.ts) ask it for what a request needs, read the version with the request's
 * own parts, and use what it holds only when the two versions are the same.
 *
 * @module
 */
import { lruSet } from '../../base/lru.ts'
import type { Member } from './projects.ts'
import { needsMe, type TicketQuery } from '../rules/query.ts'
import type { SearchContext } from './search.ts'
import type { State } from '../rules/states.ts'
import type { Ticket } from './ticket-row.ts'

/** Projects and lists kept: a first page and a few searches for each of a hundred busy projects, a few KB each. */
export const CACHED_READS = 500

/** A ticket as a list row shows it (a whole {@link Ticket} is one too). */
export type ListedTicket = Pick<
  Ticket,
  | 'id'
  | 'ref'
  | 'slug'
  | 'number'
  | 'subject'
  | 'state'
  | 'assignee'
  | 'updated'
  | 'milestone'
  | 'due'
>

/** A list row: the ticket and whether a ticket that is not done or dropped blocks it. */
export interface ListRow {
  ticket: ListedTicket
  blocked: boolean
  /** Its labels with their colours, by name. */
  labels: { name: string; color: string }[]
}

/** A page of a project's list asked for with the page's context (the project page). */
export interface ListRequest {
  query: TicketQuery
  /** The states when the search names none, and who asks. */
  search: SearchContext
  limit: number
  skip: number
}

/** A project's part that is the same for everyone. */
export interface SharedProject {
  projectId: string
  /** Admins first, then by name. */
  members: Member[]
  /** Tickets per state, every state present. */
  counts: Record<State, number>
}

/** A page of a project's list. */
export interface ListPage {
  projectId: string
  rows: ListRow[]
}

/** What a request's page shows that is the same for everyone, as read at one lists' version. */
export interface SharedParts {
  version: number
  switcher: { slug: string; title: string }[]
  /** The project the request names, or null when it names none or none was found. */
  project: SharedProject | null
  /** The page of its list the request asks for, or null when it asks for none. */
  list: ListPage | null
}

interface ReadsAtVersion {
  version: number
  switcher: SharedParts['switcher']
  /** By the name the page asked for (slug, old slug or id). */
  projects: Map<string, SharedProject>
  /** By {@link keyOf}. */
  lists: Map<string, ListPage>
}

/** The shared reads kept between requests. */
export interface PageCache {
  /**
   * Everything of `ref` (a project's name, or null) and `list` that is kept, at the version it
   * was read at; null when any of it is not (then the request reads it all).
   */
  get(ref: string | null, list: ListRequest | null): SharedParts | null
  /** Keeps what a request read at `parts.version` for `ref` and `list`. */
  set(ref: string | null, list: ListRequest | null, parts: SharedParts): void
}

/** A cache of at most `limit` projects and as many lists; 0 keeps nothing. */
export function createPageCache(limit: number): PageCache {
  let current: ReadsAtVersion | null = null
  return {
    get(ref, list) {
      if (current === null || (list !== null && ref === null)) return null
      const project = ref === null ? null : current.projects.get(ref)
      if (project === undefined) return null
      let page: ListPage | null = null
      if (list !== null) {
        const key = keyOf(ref!, list)
        const kept = current.lists.get(key)
        if (kept === undefined) return null
        // Used again: the most recently used.
        lruSet(current.lists, key, kept, limit)
        page = kept
      }
      if (ref !== null) lruSet(current.projects, ref, project!, limit)
      return { version: current.version, switcher: current.switcher, project, list: page }
    },
    set(ref, list, parts) {
      if (limit === 0) return
      // An answer of another version replaces everything kept: what was kept is of no use to it.
      if (current === null || current.version !== parts.version) {
        current = {
          version: parts.version,
          switcher: parts.switcher,
          projects: new Map(),
          lists: new Map(),
        }
      }
      current.switcher = parts.switcher
      if (ref === null || parts.project === null) return
      lruSet(current.projects, ref, parts.project, limit)
      if (list !== null && parts.list !== null)
        lruSet(current.lists, keyOf(ref, list), parts.list, limit)
    },
  }
}

/** A list request's key: the project as named, the page, and the search (with who is `me` only when it says `me`, and today only when it says `is:overdue`). */
function keyOf(ref: string, list: ListRequest): string {
  const me = needsMe(list.query) ? list.search.me : null
  // `is:overdue` lists other tickets tomorrow with no write in between.
  const today = list.query.overdue !== null ? (list.search.today ?? '') : ''
  return `${ref}\n${list.limit}\n${list.skip}\n${list.search.states.join(' ')}\n${me ?? ''}\n${today}\n${JSON.stringify(list.query)}`
}
