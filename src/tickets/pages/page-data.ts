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
import { DEFAULT_FILTER, STATES, type State } from '../rules/states.ts'
import type { SavedView, ViewCount } from '../store/views.ts'
import type { BoardColumn } from '../store/board.ts'
import type { Connection } from '../store/connections.ts'
import type { Delivery, Webhook } from '../store/webhooks.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import type { Member, ProjectSummary } from '../store/projects.ts'
import {
  assignedPosition,
  type ListRequest,
  type ListRow,
  type PageContext,
  type Relation,
} from '../store/page-reads.ts'
import type { TicketStore } from '../store/ticket-store.ts'
import type { ListPosition } from '../store/tickets.ts'
import type { StoredFile } from '../store/files.ts'
import type { NotificationGroup, Prefs } from '../store/notifications.ts'
import { fileIdsIn } from '../rules/files.ts'
import type { StoredLabel } from '../store/labels.ts'
import type { MilestoneChoice } from '../store/milestones.ts'

/** A webhook with the newest entries of its log, as the settings page shows it. */
export interface WebhookView extends Webhook {
  deliveries: readonly Delivery[]
}

/** Tickets a list page shows at once. */
export const PAGE_SIZE = 50

/** Cards a board's column shows at most; the rest are in the list. */
export const BOARD_COLUMN_MAX = 50

/** A saved view beside a project's list, with its count now (null: its search no longer parses). */
export interface ViewShown {
  view: SavedView
  count: ViewCount | null
}

/** The signed-in person as the pages see them. */
export interface Viewer {
  id: string
  name: string
  /** The session's tag, for the page's writes (`x-tag`). */
  tag: string
  /** Tickets assigned to them in open, doing or review (the inbox). */
  inboxCount: number
  /** Their unread notifications in the app (the bell). */
  unreadCount: number
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
  /** Whether a page follows this one. */
  hasNext: boolean
  /** Tickets matching, over all pages; with `more`, at least this many. */
  total: number
  /** There are more than `total`: a search's pages know its total only on its last page. */
  more: boolean
  /** Tickets per state in the project (all of them, before the search). */
  counts: Record<State, number>
}

/** One list of the inbox: a page of it, where the next page starts, and how many tickets it has in all. */
export interface InboxSection {
  rows: Row[]
  /** The position the next page starts after, or null on the last page. */
  next: ListPosition | null
  /** Whether this is a later page than the first. */
  later: boolean
  total: number
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
  /** The project's labels, by name, for the label picker. */
  labels: StoredLabel[]
  /** The project's milestones, open first, for the milestone picker. */
  milestones: MilestoneChoice[]
}

/**
 * The page of a project's list a project page asks for: 50 tickets of a search (the states
 * when it names none) and one more, which tells whether a next page exists.
 */
export function listRequest(
  query: TicketQuery,
  states: readonly State[],
  me: string | null,
  page: number,
): ListRequest {
  return { query, search: { states, me }, limit: PAGE_SIZE + 1, skip: (page - 1) * PAGE_SIZE }
}

/** Whether a search names more than states: then the tab counts cannot give its total. */
export function searchesMoreThanStates(query: TicketQuery): boolean {
  return (
    query.assignee.any.length +
      query.assignee.not.length +
      query.author.any.length +
      query.author.not.length >
      0 ||
    query.blocked !== null ||
    Object.keys(query.has).length > 0 ||
    query.noLabel !== null ||
    query.noMilestone !== null ||
    query.noDue !== null ||
    query.overdue !== null ||
    query.labels.any.length +
      query.labels.not.length +
      query.milestones.any.length +
      query.milestones.not.length +
      query.due.length >
      0 ||
    query.numbers.length +
      query.words.length +
      query.notWords.length +
      query.phrases.length +
      query.notPhrases.length >
      0
  )
}

/**
 * A page of a list read with one row more than it shows (`skip` rows before it): its rows, whether
 * a page follows, and its total; `exact` when the total is known otherwise. Without it, the total
 * is known on the last page only, and before it is "more than" the tickets up to this page's end.
 */
export function pageOf(
  read: readonly Row[],
  skip: number,
  exact: number | null = null,
): { rows: Row[]; hasNext: boolean; total: number; more: boolean } {
  const rows = read.slice(0, PAGE_SIZE)
  const hasNext = read.length > PAGE_SIZE
  if (exact !== null) return { rows, hasNext, total: exact, more: false }
  return { rows, hasNext, total: skip + rows.length, more: hasNext }
}

/**
 * The project page's list: its rows, whether a page follows, the total over all pages and the
 * tab counts. A search of states alone is counted by the tab counts (`ticket_counts`); any
 * other search is not counted (docs/scaling.md, "A million tickets").
 */
export function projectList(
  read: { rows: ListRow[] },
  query: TicketQuery,
  states: readonly State[],
  counts: Record<State, number>,
  page: number,
): TicketList {
  const exact = searchesMoreThanStates(query)
    ? null
    : (query.states ?? states).reduce((sum, s) => sum + counts[s], 0)
  return { ...pageOf(read.rows, (page - 1) * PAGE_SIZE, exact), counts }
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
    ): Promise<{
      viewer: Viewer | null
      cursor: number
      /** The lists' version the page was read at. */
      version: number
      switcher: PageContext['switcher']
      project: PageContext['project']
    }> {
      const { session, user } = await credentials.session(req)
      const tag = session?.data.tag
      // The display name with the account's unique name beside it (src/auth/shown-name.ts).
      const signedIn =
        user && typeof tag === 'string'
          ? { id: user.id, name: shownName(user.name, session?.data.login), tag }
          : null
      const switchedFrom =
        signedIn && typeof session?.data.switchedFrom === 'string'
          ? session.data.switchedFrom
          : null
      if (session && switchedFrom !== null) await credentials.forgetSwitch(session)
      const context = await store.pages.context(
        signedIn?.id ?? null,
        projectRef,
        list ? list(signedIn) : null,
        ticketNumber,
      )
      const viewer = signedIn
        ? {
            ...signedIn,
            inboxCount: context.inboxCount ?? 0,
            unreadCount: context.unreadCount ?? 0,
            owner: session?.data.owner === true,
            switchedFrom,
          }
        : null
      return {
        viewer,
        cursor: context.cursor,
        version: context.version,
        switcher: context.switcher,
        project: context.project,
      }
    },

    /**
     * The saved views beside a project's list: the viewer's own and the shared ones, each with
     * how many tickets it lists now (counts kept while the lists' `version` stays).
     */
    async views(projectId: string, viewerId: string | null, version: number): Promise<ViewShown[]> {
      const views = await store.views.of(projectId, viewerId)
      if (views.length === 0) return []
      const counts = await store.views.countsOf(projectId, views, viewerId, version)
      return views.map((view, i) => ({ view, count: counts[i] ?? null }))
    },

    /**
     * The board of a search (docs/tickets-app.md, "Board"): a column a state, each with its first
     * {@link BOARD_COLUMN_MAX} tickets; a search of states alone is counted by the tab counts.
     * `version`: the lists' version the page was read at (a board read at it is kept).
     */
    async board(
      project: { id: string; slug: string },
      query: TicketQuery,
      me: string | null,
      counts: Record<State, number>,
      version: number,
    ): Promise<BoardColumn[]> {
      const states = query.states ?? STATES
      const columns = await store.board.read(
        {
          projectId: project.id,
          slug: project.slug,
          query,
          states,
          me,
          perColumn: BOARD_COLUMN_MAX,
        },
        version,
      )
      if (searchesMoreThanStates(query)) return columns
      return columns.map((c) => ({
        ...c,
        total: states.includes(c.state) ? counts[c.state] : 0,
        more: false,
      }))
    },

    /** Every project, by title, with open counts and the viewer's role. */
    async projects(viewerId: string | null): Promise<ProjectSummary[]> {
      return store.projects.summaries(viewerId)
    },

    connections: (projectId: string): Promise<Connection[]> => store.connections.of(projectId),

    /** A project's webhooks, each with the newest entries of its log. */
    async webhooks(projectId: string, shown: number): Promise<WebhookView[]> {
      const hooks = await store.webhooks.of(projectId)
      return Promise.all(
        hooks.map(async (w) => ({
          ...w,
          deliveries: await store.webhooks.deliveries(w.id, shown),
        })),
      )
    },

    /** Tickets of every project for a search (the search page without a project): a page of 50, not counted (see {@link pageOf}). */
    async everywhere(
      query: TicketQuery,
      me: string | null,
      page: number,
    ): Promise<ReturnType<typeof pageOf>> {
      const skip = (page - 1) * PAGE_SIZE
      return pageOf(
        await store.pages.list(query, { states: DEFAULT_FILTER, me }, PAGE_SIZE + 1, skip),
        skip,
      )
    },

    /**
     * A ticket's history and neighbours: its children, the tickets it blocks and its blockers,
     * read with the context as one list of related tickets and told apart by their relations.
     */
    async history(
      ticket: { id: string; project: string; summary: string },
      related: readonly (Row & { relation: Relation })[],
    ): Promise<Omit<TicketDetail, 'members'>> {
      const events = await store.history.of(ticket.id)
      const which = (relation: Relation) =>
        related
          .filter((r) => r.relation === relation)
          .map(({ ticket, blocked, labels }) => ({ ticket, blocked, labels }))
      // The files of this project its summary and history link to (an edit's old text too).
      const files = await store.files.inProject(
        ticket.project,
        fileIdsIn(`${ticket.summary}\n${JSON.stringify(events)}`),
      )
      return {
        events,
        children: which('child'),
        blocks: which('blocks'),
        blockers: which('blocker'),
        files,
        labels: await store.labels.of(ticket.project),
        milestones: await store.milestones.choices(ticket.project),
      }
    },

    /**
     * The inbox: assigned to the viewer, pending (open, doing) and review, latest change first;
     * of each the page after its position (the first when null) and how many there are in all.
     */
    async inbox(
      viewerId: string,
      from: { pending: ListPosition | null; review: ListPosition | null },
    ): Promise<{ pending: InboxSection; review: InboxSection }> {
      const section = async (
        list: 'pending' | 'review',
        after: ListPosition | null,
      ): Promise<Omit<InboxSection, 'total'>> => {
        const rows = await store.pages.assigned(viewerId, list, PAGE_SIZE + 1, after)
        return {
          rows: rows.slice(0, PAGE_SIZE),
          next: rows.length > PAGE_SIZE ? assignedPosition(rows[PAGE_SIZE - 1]!) : null,
          later: after !== null,
        }
      }
      const [pending, review, counts] = await Promise.all([
        section('pending', from.pending),
        section('review', from.review),
        store.pages.assignedCounts(viewerId),
      ])
      return {
        pending: { ...pending, total: counts.open + counts.doing },
        review: { ...review, total: counts.review },
      }
    },

    tokens: (viewerId: string) => store.tokens.of(viewerId),
    labels: (projectId: string) => store.labels.of(projectId),
    milestones: (projectId: string) => store.milestones.of(projectId),
    /** The project's milestones as a picker offers them (no progress counted). */
    milestoneChoices: (projectId: string) => store.milestones.choices(projectId),

    /**
     * A page of the person's notifications grouped by ticket (`/notifications`): `shown` groups
     * from below the newest id `before`, and where the next page starts.
     */
    async notifications(
      viewerId: string,
      before: number | null,
      shown: number,
    ): Promise<{ groups: NotificationGroup[]; next: number | null }> {
      const groups = await store.notifications.groups(viewerId, shown + 1, before)
      return {
        groups: groups.slice(0, shown),
        next: groups.length > shown ? groups[shown - 1]!.newest : null,
      }
    },

    /** The person's choices and the install's default. */
    async notificationPrefs(viewerId: string): Promise<{ prefs: Prefs; defaults: Prefs }> {
      const [prefs, defaults] = await Promise.all([
        store.notifications.prefs(viewerId),
        store.notifications.defaults(),
      ])
      return { prefs: prefs ?? defaults, defaults }
    },

    /** Whether the person watches the ticket. */
    watching: (ticketId: string, viewerId: string) =>
      store.notifications.isWatching(ticketId, viewerId),

    /** Whether the person watches every ticket of the project. */
    watchingAll: (projectId: string, viewerId: string) =>
      store.notifications.watchesProject(projectId, viewerId),

    async memberships(viewerId: string): Promise<{ slug: string; title: string; role: Role }[]> {
      return store.projects.membershipsOf(viewerId)
    },
  }
}

export type PageData = ReturnType<typeof createPageData>
