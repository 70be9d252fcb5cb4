/**
 * What the web pages read, in one place: the signed-in person and their inbox count, projects
 * with their open counts, a project's tickets searched, sorted and in pages of 50, a ticket with
 * its history and relations, the inbox, tokens, memberships, members and connected apps.
 * Reads only: every write of the pages goes through the JSON API.
 */
import { shownName } from '../../auth/shown-name.ts'
import type { Request } from '../../http/request.ts'
import type { Credentials } from '../credentials.ts'
import type { TicketQuery } from '../rules/query.ts'
import type { Role } from '../rules/roles.ts'
import { DEFAULT_FILTER, type State } from '../rules/states.ts'
import type { Connection } from '../store/connections.ts'
import type { Delivery, Webhook } from '../store/webhooks.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import type { Member, ProjectSummary } from '../store/projects.ts'
import type { ListRequest, ListRow, PageContext, Relation } from '../store/page-reads.ts'
import type { TicketStore } from '../store/ticket-store.ts'
import type { StoredFile } from '../store/files.ts'
import { fileIdsIn } from '../rules/files.ts'

/** A webhook with the newest entries of its log, as the settings page shows it. */
export interface WebhookView extends Webhook {
  deliveries: readonly Delivery[]
}

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
  /** The provider's owner: their menu leads to `/admin`. */
  owner: boolean
  /** Whom the session named before a login return switched it to this person, said once (docs/core.md, "Login CSRF"). */
  switchedFrom?: string | null
}

export type { ProjectSummary }

/** A list row: the ticket (the fields a row shows) and whether a ticket that is not done or dropped blocks it. */
export type Row = ListRow

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
  /** The files its text and history link to, oldest first. */
  files: StoredFile[]
}

/**
 * The page of a project's list a project page asks for: 50 tickets of a search (the states
 * when it names none), counted when it searches (without a search the tab counts give the total).
 */
export function listRequest(query: TicketQuery, states: readonly State[], me: string | null, page: number): ListRequest {
  const filtered = query.states !== null || query.assignee.any.length + query.assignee.not.length + query.author.any.length + query.author.not.length > 0
    || query.blocked !== null || query.numbers.length + query.words.length + query.notWords.length + query.phrases.length + query.notPhrases.length > 0
  return { query, search: { states, me }, limit: PAGE_SIZE, skip: (page - 1) * PAGE_SIZE, count: filtered }
}

/** The project page's list: its rows, the total over all pages and the tab counts. */
export function projectList(read: { rows: ListRow[]; total: number | null }, states: readonly State[], counts: Record<State, number>): TicketList {
  return { rows: read.rows, total: read.total ?? states.reduce((sum, s) => sum + counts[s], 0), counts }
}

export function createPageData(deps: { store: TicketStore; credentials: Credentials }) {
  const { store, credentials } = deps

  return {
    /**
     * The frame's reads and, with `projectRef`, the project's: the signed-in person (the session)
     * and then one statement for the live cursor, the switcher, the inbox count, the project, the
     * person's role, its members and its tickets per state.
     */
    async context(
      req: Request,
      projectRef: string | null = null,
      /** The page of the project's list to read with the context, for who is signed in. */
      list: ((signedIn: { id: string } | null) => ListRequest) | null = null,
      /** The number of the ticket to read with the context, and its related tickets (the ticket page). */
      ticketNumber: number | null = null,
    ): Promise<{ viewer: Viewer | null; cursor: number; switcher: PageContext['switcher']; project: PageContext['project'] }> {
      const { session, user } = await credentials.session(req)
      const tag = session?.data.tag
      // The display name with the account's unique name beside it (src/auth/shown-name.ts).
      const signedIn = user && typeof tag === 'string' ? { id: user.id, name: shownName(user.name, session?.data.login), tag } : null
      const switchedFrom = signedIn && typeof session?.data.switchedFrom === 'string' ? session.data.switchedFrom : null
      if (session && switchedFrom !== null) await credentials.forgetSwitch(session)
      const context = await store.pages.context(signedIn?.id ?? null, projectRef, list ? list(signedIn) : null, ticketNumber)
      const viewer = signedIn ? { ...signedIn, inboxCount: context.inboxCount ?? 0, owner: session?.data.owner === true, switchedFrom } : null
      return { viewer, cursor: context.cursor, switcher: context.switcher, project: context.project }
    },

    /** Every project, by title, with open counts and the viewer's role. */
    async projects(viewerId: string | null): Promise<ProjectSummary[]> {
      return store.projects.summaries(viewerId)
    },

    connections: (projectId: string): Promise<Connection[]> => store.connections.of(projectId),

    /** A project's webhooks, each with the newest entries of its log. */
    async webhooks(projectId: string, shown: number): Promise<WebhookView[]> {
      const hooks = await store.webhooks.of(projectId)
      return Promise.all(hooks.map(async (w) => ({ ...w, deliveries: await store.webhooks.deliveries(w.id, shown) })))
    },

    /** Tickets of every project for a search (the search page without a project). */
    async everywhere(query: TicketQuery, me: string | null, page: number): Promise<{ rows: Row[]; total: number }> {
      const search = { states: DEFAULT_FILTER, me }
      const [rows, total] = await Promise.all([
        store.pages.list(query, search, PAGE_SIZE, (page - 1) * PAGE_SIZE),
        store.tickets.count(query, search),
      ])
      return { rows, total }
    },

    /**
     * A ticket's history and neighbours: its children, the tickets it blocks and its blockers,
     * read with the context as one list of related tickets and told apart by their relations.
     */
    async history(ticket: { id: string; project: string; summary: string }, related: readonly (Row & { relation: Relation })[]): Promise<Omit<TicketDetail, 'members'>> {
      const events = await store.history.of(ticket.id)
      const which = (relation: Relation) => related.filter((r) => r.relation === relation).map(({ ticket, blocked }) => ({ ticket, blocked }))
      // The files of this project its summary and history link to (an edit's old text too).
      const files = await store.files.inProject(ticket.project, fileIdsIn(`${ticket.summary}\n${JSON.stringify(events)}`))
      return { events, children: which('child'), blocks: which('blocks'), blockers: which('blocker'), files }
    },

    /** The inbox: assigned to the viewer, pending (open, doing) and review, latest change first. */
    async inbox(viewerId: string): Promise<{ pending: Row[]; review: Row[] }> {
      const rows = await store.pages.assigned(viewerId, ['open', 'doing', 'review'])
      return { pending: rows.filter((r) => r.ticket.state !== 'review'), review: rows.filter((r) => r.ticket.state === 'review') }
    },

    tokens: (viewerId: string) => store.tokens.of(viewerId),

    async memberships(viewerId: string): Promise<{ slug: string; title: string; role: Role }[]> {
      return store.projects.membershipsOf(viewerId)
    },
  }
}

export type PageData = ReturnType<typeof createPageData>
