/**
 * What the web pages read, in one place: the signed-in person and their inbox count, projects
 * with their open counts, a project's tickets searched, sorted and in pages of 50, a ticket with
 * its history and relations, the inbox, tokens, memberships, members and connected apps.
 * Reads only: every write of the pages goes through the JSON API.
 */
import type { Query } from '../../db.ts'
import type { Request } from '../../request.ts'
import type { Credentials } from '../auth.ts'
import type { TicketQuery } from '../query.ts'
import type { Role } from '../roles.ts'
import { DEFAULT_FILTER, STATES, type State } from '../states.ts'
import { connectionsOf, type Connection } from '../store/connections.ts'
import { eventsOf, type TicketEvent } from '../store/history.ts'
import { membersOf, membershipsOf, projectSummaries, projectTitles, roleOf, type Member, type Project, type ProjectSummary } from '../store/projects.ts'
import { searchCondition, searchOrder } from '../store/search.ts'
import { assignedTickets, countTickets, inboxCount, neighboursOf, searchTickets, stateCounts, stillBlocked, type Ticket } from '../store/tickets.ts'
import { tokensOf } from '../store/tokens.ts'

/** Tickets a list page shows at once. */
export const PAGE_SIZE = 50

/** The signed-in person as the pages see them. */
export interface Viewer {
  id: string
  name: string
  /** The session's tag, for the page's writes (`x-tag`). */
  tag: string
  /** Tickets assigned to them in open, doing or review (the inbox). */
  inboxCount: number
}

export type { ProjectSummary }

/** A list row: the ticket and whether a ticket that is not done or dropped blocks it. */
export interface Row {
  ticket: Ticket
  blocked: boolean
}

export interface TicketList {
  rows: Row[]
  /** Tickets matching, over all pages. */
  total: number
  /** Tickets per state in the project (all of them, before the search). */
  counts: Record<State, number>
}

export interface TicketDetail {
  events: TicketEvent[]
  children: Row[]
  /** The tickets this one blocks. */
  blocks: Row[]
  /** Its blockers with their states. */
  blockers: Row[]
  members: Member[]
}

export function createPageData(deps: { sql: Query; credentials: Credentials }) {
  const { sql, credentials } = deps

  async function withBlocked(tickets: Ticket[]): Promise<Row[]> {
    const blocked = await stillBlocked(sql, tickets.map((t) => t.id))
    return tickets.map((ticket) => ({ ticket, blocked: blocked.has(ticket.id) }))
  }

  return {
    async viewer(req: Request): Promise<Viewer | null> {
      const { session, user } = await credentials.session(req)
      const tag = session?.data.tag
      if (!user || typeof tag !== 'string') return null
      return { id: user.id, name: user.name, tag, inboxCount: await inboxCount(sql, user.id) }
    },

    /** Every project, by title, with open counts and the viewer's role. */
    async projects(viewerId: string | null): Promise<ProjectSummary[]> {
      return projectSummaries(sql, viewerId)
    },

    /** Every project's slug and title, by title: the switcher in the bar. */
    switcher(): Promise<{ slug: string; title: string }[]> {
      return projectTitles(sql)
    },

    role(projectId: string, viewerId: string | null): Promise<Role | null> {
      return viewerId === null ? Promise.resolve(null) : roleOf(sql, projectId, viewerId)
    },

    members: (projectId: string) => membersOf(sql, projectId),
    connections: (projectId: string): Promise<Connection[]> => connectionsOf(sql, projectId),

    /** One page of a project's tickets for a search; `states` apply when the search names none. */
    async tickets(project: Project, query: TicketQuery, states: readonly State[], me: string | null, page: number): Promise<TicketList> {
      const where = sql`t.project_id = ${project.id} and ${searchCondition(sql, query, { states, me })}`
      const order = searchOrder(sql, query.sort)
      const filtered = query.states !== null || query.assignee.any.length + query.assignee.not.length + query.author.any.length + query.author.not.length > 0
        || query.blocked !== null || query.numbers.length + query.words.length + query.notWords.length + query.phrases.length + query.notPhrases.length > 0
      const [tickets, byState, count] = await Promise.all([
        searchTickets(sql, where, order, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
        stateCounts(sql, project.id),
        // Without a search the tab counts give the total; a search counts its matches.
        filtered ? countTickets(sql, where) : Promise.resolve(null),
      ])
      const counts = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<State, number>
      for (const r of byState) counts[r.state] = r.n
      const total = count ?? states.reduce((sum, s) => sum + counts[s], 0)
      return { rows: await withBlocked(tickets), total, counts }
    },

    /** Tickets of every project for a search (the search page without a project). */
    async everywhere(query: TicketQuery, me: string | null, page: number): Promise<{ rows: Row[]; total: number }> {
      const where = searchCondition(sql, query, { states: DEFAULT_FILTER, me })
      const [tickets, total] = await Promise.all([
        searchTickets(sql, where, searchOrder(sql, query.sort), { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
        countTickets(sql, where),
      ])
      return { rows: await withBlocked(tickets), total }
    },

    async detail(ticket: Ticket): Promise<TicketDetail> {
      const [events, { children, blocks, blockers }, members] = await Promise.all([
        eventsOf(sql, ticket.id),
        neighboursOf(sql, ticket.id),
        membersOf(sql, ticket.project),
      ])
      return { events, children: await withBlocked(children), blocks: await withBlocked(blocks), blockers: await withBlocked(blockers), members }
    },

    /** The inbox: assigned to the viewer, pending (open, doing) and review, latest change first. */
    async inbox(viewerId: string): Promise<{ pending: Row[]; review: Row[] }> {
      const [pending, review] = await Promise.all([assignedTickets(sql, viewerId, ['open', 'doing']), assignedTickets(sql, viewerId, ['review'])])
      return { pending: await withBlocked(pending), review: await withBlocked(review) }
    },

    tokens: (viewerId: string) => tokensOf(sql, viewerId),

    async memberships(viewerId: string): Promise<{ slug: string; title: string; role: Role }[]> {
      return membershipsOf(sql, viewerId)
    },
  }
}

export type PageData = ReturnType<typeof createPageData>
