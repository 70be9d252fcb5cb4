/**
 * The ticket tracker in the browser: the pages (home, project, ticket, inbox, settings, project
 * settings, search everywhere), their bundled script and stylesheet, and `POST /logout`. Pages
 * are server-rendered (src/tickets/pages/); the script adds behaviour and writes only through
 * the JSON API with the session and `x-tag`. Every page carries the strict security headers
 * (src/http/page-headers.ts); it names the signed-in person and holds their tag, so no shared cache
 * keeps it.
 */
import { fileURLToPath } from 'node:url'
import { bundleAssets, type Assets } from '../../http/assets.ts'
import { refuseCrossSite, refuseTag } from '../../http/guards.ts'
import { answerRefusal, ERROR_CODE, reason, refuse, type Refusal } from '../../http/refusal.ts'
import { htmlResponse, type Html } from '../../http/html.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import { json, redirect, type Response } from '../../http/response.ts'
import { endProviderSignIn, loginButtonUrl } from '../../auth/idp.ts'
import { PAGE_HEADERS } from '../../http/page-headers.ts'
import type { Context } from '../context.ts'
import type { EventName } from '../live/events.ts'
import { adminBody } from './admin-page.ts'
import { DELIVERIES_SHOWN, webhooksSection } from './webhooks-section.ts'
import { WEBHOOKS_MAX } from '../rules/webhook-events.ts'
import { framePage, searchHelp, ticketList, type LiveTarget, type PageAssets } from './frame.ts'
import { homeBody } from './home-page.ts'
import { inboxBody, signInBody } from './inbox-page.ts'
import { milestonesBody } from './milestones-page.ts'
import { labelsSection } from './labels-section.ts'
import { EDIT } from '../domain/tickets.ts'
import {
  createPageData,
  listRequest,
  projectList,
  type PageData,
  type Viewer,
} from './page-data.ts'
import { counted, projectBody, withTabStates, type ProjectPageInput } from './project-page.ts'
import { settingsBody } from './settings-page.ts'
import { GROUPS_SHOWN, notificationsBody, notificationSettingsBody } from './notifications-page.ts'
import { openTicket } from '../domain/notifications.ts'
import { boardBody } from './board-page.ts'
import { ticketBody } from './ticket-page.ts'
import { ticketEtag } from '../representations/json.ts'
import {
  emptyQuery,
  ME_NEEDS_SIGN_IN,
  needsMe,
  parseQuery,
  type TicketQuery,
} from '../rules/query.ts'
import { parseNumber } from '../rules/ids.ts'
import { listCursors } from '../rules/list-cursors.ts'
import type { ListPosition } from '../store/tickets.ts'
import { parseStateFilter, STATES, type State } from '../rules/states.ts'
import { NOT_FOUND, GET_OR_HEAD_ONLY, POST_ONLY } from '../rules/messages.ts'
import { noProjectHere, noTicketHere } from '../text/page-words.ts'
import { html } from '../../http/html.ts'
import { mayAct } from '../rules/roles.ts'
import { ADMIN } from '../domain/projects.ts'

const APP_DIR = fileURLToPath(new URL('../app/', import.meta.url))

/** The script and stylesheet, bundled once (esbuild, hashed names, compressed, immutable). */
export function buildTicketAssets(): Promise<Assets> {
  return bundleAssets({
    entries: {
      tickets: `${APP_DIR}main.ts`,
      connect: `${APP_DIR}connect.ts`,
      style: `${APP_DIR}style.css`,
    },
  })
}

export interface WebHandlers {
  home: Handler
  project: Handler
  board: Handler
  ticket: Handler
  admin: Handler
  milestones: Handler
  inbox: Handler
  settings: Handler
  notifications: Handler
  notificationSettings: Handler
  search: Handler
  asset: Handler
  logout: Handler
}

// Every page names the signed-in person: no shared cache keeps it, and the browser's revalidates
// it for the cookie it was answered to.
const PRIVATE = { 'cache-control': 'private, no-cache', vary: 'Cookie' }

/** What the project settings show changes with these events only (docs/live-events.md). */
const SETTINGS_EVENTS: readonly EventName[] = [
  'projectChanged',
  'membersChanged',
  'invitesChanged',
  'connectionsChanged',
  'labelsChanged',
]

export function createWebHandlers(
  ctx: Context,
  build: () => Promise<Assets> = buildTicketAssets,
): WebHandlers {
  const data: PageData = createPageData({ store: ctx.store, credentials: ctx.credentials })
  const building = build()
  // Awaited by every page; a failed build answers 500 rather than an unhandled rejection.
  building.catch(() => {})

  /** The login button (docs/core.md, "Identity provider"): to the identity provider, back to this page. */
  const loginUrl = (req: Request) => {
    const search = req.query.toString()
    return loginButtonUrl(ctx.idp, ctx.publicUrl, req.path + (search ? `?${search}` : ''))
  }

  /** The short pages take every method so a mistyped API path is not answered as a page. */
  function guard(req: Request): Response | null {
    if (req.path === '/api' || req.path.startsWith('/api/'))
      return answerRefusal(refuse(404, NOT_FOUND))
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return answerRefusal(refuse(405, GET_OR_HEAD_ONLY), { allow: 'GET, HEAD' })
    return null
  }

  async function page(
    req: Request,
    status: number,
    input: {
      title: string
      viewer: Viewer | null
      switcher: readonly { slug: string; title: string }[]
      body: Html
      project?: { slug: string; title: string } | null
      q?: string
      /** Where the search box sends its search (the project's list, else every project's). */
      searchAction?: string
      live?: LiveTarget | null
    },
  ): Promise<Response> {
    const assets = await building
    const pageAssets: PageAssets = { script: assets.url('tickets'), style: assets.url('style') }
    const body = framePage({
      ...input,
      projects: input.switcher,
      loginUrl: loginUrl(req),
      places: ctx.places,
      assets: pageAssets,
      now: ctx.clock(),
    })
    return htmlResponse(status, body, { ...PAGE_HEADERS, ...PRIVATE })
  }

  /** The page of a refused page address: `title`, the refusal's message, its code in the header. */
  async function refusedPage(req: Request, title: string, refusal: Refusal): Promise<Response> {
    const { viewer, switcher } = await data.context(req)
    const answer = await page(req, refusal.status, {
      title,
      viewer,
      switcher,
      body: html`<div class="card empty"><h1>${title}</h1><p>${refusal.message}</p><p><a href="/">All projects</a></p></div>`,
    })
    return { ...answer, headers: { ...answer.headers, [ERROR_CODE]: refusal.code } }
  }

  /** The page of a project address that names no project. */
  function noProjectPage(req: Request, slug: string): Promise<Response> {
    return refusedPage(
      req,
      'Not found',
      refuse(404, reason('no_such_project', noProjectHere(slug))),
    )
  }

  /** The search of a list page: parsed, with the refusal to show when it does not parse. */
  function search(
    req: Request,
    viewer: { id: string } | null,
  ): { q: string; query: TicketQuery; error: string | null } {
    const q = (req.query.get('q') ?? '').trim()
    const parsed = parseQuery(q)
    if (!parsed.ok) return { q, query: emptyQuery(), error: parsed.message }
    if (needsMe(parsed.query) && viewer === null)
      return { q, query: emptyQuery(), error: ME_NEEDS_SIGN_IN.message }
    return { q, query: parsed.query, error: null }
  }

  function pageNumber(req: Request): number {
    const n = Number(req.query.get('page') ?? '1')
    return Number.isSafeInteger(n) && n >= 1 && n <= 100_000 ? n : 1
  }

  /** Where a list of the inbox starts: after the position of its cursor parameter, or at the top. */
  function inboxCursor(req: Request, name: 'pending' | 'review'): ListPosition | null {
    const text = req.query.get(name)
    return text === null ? null : listCursors.read(text)
  }

  /**
   * True once after the person joined the project of `slug` through an invite (the login return
   * notes it in the session): the flag is taken out of the session as the page is drawn.
   */
  async function takeWelcome(req: Request, slug: string): Promise<boolean> {
    const session = await ctx.sessions.load(req)
    if (!session || session.data.joined !== slug) return false
    const { joined: _, ...rest } = session.data
    session.data = rest
    await ctx.sessions.save(session)
    return true
  }

  /**
   * A page of the signed-in person's own, `title`: for nobody signed in, a sign-in page saying
   * `signIn.why` under `signIn.heading` (the title when not given); else what `draw` makes for
   * the viewer, with the lists' cursor for its live updates.
   */
  function ownPage(
    title: string,
    signIn: { heading?: string; why: string },
    draw: (
      req: Request,
      viewer: Viewer,
      cursor: number,
    ) => Promise<{ body: Html; live?: LiveTarget }>,
  ): Handler {
    return async (req) => {
      const refused = guard(req)
      if (refused) return refused
      const { viewer, cursor, switcher } = await data.context(req)
      const drawn = viewer
        ? await draw(req, viewer, cursor)
        : { body: signInBody(signIn.heading ?? title, loginUrl(req), signIn.why) }
      return page(req, 200, { title, viewer, switcher, ...drawn })
    }
  }

  async function adminPage(req: Request, slug: string): Promise<Response> {
    const { viewer, cursor, switcher, project } = await data.context(req, slug)
    if (!project) return noProjectPage(req, slug)
    const { project: p, role, members } = project
    if (p.slug !== slug) return redirect(301, `/${p.slug}/settings`)
    if (!viewer)
      return page(req, 200, {
        title: 'Project settings',
        viewer,
        switcher,
        body: signInBody('Project settings', loginUrl(req), `Sign in to manage ${p.title}.`),
        project: p,
      })
    if (!mayAct(role, ADMIN))
      return refusedPage(
        req,
        'Project settings',
        refuse(403, reason('forbidden', `Only admins of ${p.title} can change its settings.`)),
      )
    const [connections, hooks, invites, labels] = await Promise.all([
      data.connections(p.id),
      data.webhooks(p.id, DELIVERIES_SHOWN),
      ctx.store.transact((tx) => tx.invites.open(p.id)),
      data.labels(p.id),
    ])
    const now = ctx.clock()
    const webhooks = webhooksSection({ slug: p.slug, webhooks: hooks, now, max: WEBHOOKS_MAX })
    const body = adminBody({
      project: p,
      members,
      connections,
      invites,
      webhooks,
      labels: labelsSection({ slug: p.slug, labels }),
      viewerId: viewer.id,
      now,
    })
    return page(req, 200, {
      title: `Settings · ${p.title}`,
      viewer,
      switcher,
      body,
      project: p,
      live: { project: p.slug, ticket: null, cursor, events: SETTINGS_EVENTS },
    })
  }

  return {
    async home(req) {
      const refused = guard(req)
      if (refused) return refused
      const { viewer, cursor, switcher } = await data.context(req)
      const projects = await data.projects(viewer?.id ?? null)
      const body = homeBody({ projects, viewer, loginUrl: loginUrl(req) })
      return page(req, 200, {
        title: 'Projects',
        viewer,
        switcher,
        body,
        live: { project: null, ticket: null, cursor },
      })
    },

    async project(req) {
      const refused = guard(req)
      if (refused) return refused
      const stateParam = req.query.get('state') ?? ''
      const filter = parseStateFilter(stateParam)
      const states = filter.ok ? filter.states : [...STATES]
      const tab = filter.ok && ['', 'all', ...STATES].includes(stateParam) ? stateParam : ''
      // The list is read in the context's statement; its search needs to know who is signed in.
      let asked!: ReturnType<typeof search>
      const { viewer, cursor, version, switcher, project } = await data.context(
        req,
        req.params.slug,
        (signedIn) => {
          asked = search(req, signedIn)
          return listRequest(asked.query, states, signedIn?.id ?? null, pageNumber(req))
        },
      )
      if (!project) return noProjectPage(req, req.params.slug!)
      const { project: p, role, members, counts } = project
      if (p.slug !== req.params.slug) {
        const search = req.query.toString()
        return redirect(301, `/${p.slug}${search ? `?${search}` : ''}`)
      }
      const { q, query, error } = asked
      const list = projectList(project.list!, query, states, counts, pageNumber(req))
      const queryError = error ?? (filter.ok ? null : filter.message)
      const joined = viewer !== null && role !== null && (await takeWelcome(req, p.slug))
      const watchingAll = viewer !== null && (await data.watchingAll(p.id, viewer.id))
      const views = await data.views(p.id, viewer?.id ?? null, version)
      // The project's labels, read once for members: the new-ticket form's and the bulk bar's.
      const labels = role ? await data.labels(p.id) : []
      // The bulk bar changes what the list shows: its search, with the tab's states.
      let bulk: ProjectPageInput['bulk'] = null
      if (mayAct(role, 'use') && !queryError && list.rows.length > 0) {
        // A list of more pages is counted when a person ticks a whole page (the bar asks
        // GET /api/projects/<slug>/tickets/count), not for every reader of it.
        const matching = list.more ? null : { count: list.total, more: false }
        const editor = mayAct(role, 'edit')
        const milestones = editor ? await data.milestoneChoices(p.id) : []
        bulk = {
          q: withTabStates(q, query, stateParam === '' ? null : states),
          matching,
          labels: editor ? labels.map((l) => l.name) : [],
          milestones: milestones.filter((m) => m.state === 'open').map((m) => m.title),
        }
      }
      const body = projectBody({
        project: p,
        viewer,
        role,
        joined,
        watchingAll,
        list,
        q,
        queryError,
        state: tab,
        sort: query.sort,
        page: pageNumber(req),
        members,
        loginUrl: loginUrl(req),
        now: ctx.clock(),
        uploadMaxMb: ctx.uploadMaxMb,
        labels,
        views,
        bulk,
      })
      return page(req, queryError ? 400 : 200, {
        title: p.title,
        viewer,
        switcher,
        body,
        project: p,
        q,
        live: { project: p.slug, ticket: null, cursor },
      })
    },

    async board(req) {
      const refused = guard(req)
      if (refused) return refused
      const { viewer, cursor, version, switcher, project } = await data.context(
        req,
        req.params.slug,
      )
      if (!project) return noProjectPage(req, req.params.slug!)
      const { project: p, role, counts } = project
      if (p.slug !== req.params.slug) {
        const search = req.query.toString()
        return redirect(301, `/${p.slug}/board${search ? `?${search}` : ''}`)
      }
      const { q, query, error } = search(req, viewer)
      const columns = error ? [] : await data.board(p, query, viewer?.id ?? null, counts, version)
      const asked = req.query.get('column') ?? ''
      const column = (STATES as readonly string[]).includes(asked) ? (asked as State) : 'open'
      const body = boardBody({
        project: p,
        role,
        signedIn: viewer !== null,
        loginUrl: loginUrl(req),
        q,
        queryError: error,
        columns,
        column,
      })
      return page(req, error ? 400 : 200, {
        title: `${p.title}: board`,
        viewer,
        switcher,
        body,
        project: p,
        q,
        searchAction: `/${p.slug}/board`,
        live: { project: p.slug, ticket: null, cursor },
      })
    },

    async ticket(req) {
      const refused = guard(req)
      if (refused) return refused
      // The context first: the cursor it carries must be older than the ticket shown.
      // The context, the ticket and its related tickets in one statement; the cursor it carries
      // is as old as the ticket shown.
      const number = parseNumber(req.params.number!)
      const { viewer, cursor, switcher, project } = await data.context(
        req,
        req.params.slug,
        null,
        number,
      )
      const read = project?.ticket
      if (!project || !read)
        return refusedPage(
          req,
          'Not found',
          refuse(
            404,
            project
              ? reason('no_such_ticket', noTicketHere(project.project.slug, req.params.number!))
              : reason('no_such_project', noProjectHere(req.params.slug!)),
          ),
        )
      const t = read.ticket
      if (t.slug !== req.params.slug) return redirect(301, `/${t.slug}/${t.number}`)
      const { project: p, role, members } = project
      // Opening the ticket reads its notifications (docs/notifications.md): the bell drawn
      // below counts them read already, and the person's other pages follow.
      let watching = false
      if (viewer) {
        const [readNow, watches] = await Promise.all([
          openTicket(ctx.store, viewer.id, t.id),
          data.watching(t.id, viewer.id),
        ])
        viewer.unreadCount = Math.max(0, viewer.unreadCount - readNow)
        watching = watches
      }
      const detail = { ...(await data.history(t, read.related)), members }
      const etag = ticketEtag(ctx.publicUrl, t, detail.events)
      const body = ticketBody({
        ticket: t,
        etag,
        watching,
        projectTitle: p.title,
        detail,
        viewer,
        role,
        loginUrl: loginUrl(req),
        now: ctx.clock(),
        uploadMaxMb: ctx.uploadMaxMb,
      })
      return page(req, 200, {
        title: `${t.subject} · ${t.ref}`,
        viewer,
        switcher,
        body,
        project: p,
        live: { project: t.slug, ticket: t.id, cursor },
      })
    },

    async admin(req) {
      const refused = guard(req)
      if (refused) return refused
      return adminPage(req, req.params.slug!)
    },

    async milestones(req) {
      const refused = guard(req)
      if (refused) return refused
      const slug = req.params.slug!
      const { viewer, cursor, switcher, project } = await data.context(req, slug)
      if (!project) return noProjectPage(req, slug)
      const { project: p, role } = project
      if (p.slug !== slug) return redirect(301, `/${p.slug}/milestones`)
      const milestones = await data.milestones(p.id)
      return page(req, 200, {
        title: `Milestones · ${p.title}`,
        viewer,
        switcher,
        body: milestonesBody({
          project: p,
          milestones,
          mayEdit: mayAct(role, EDIT),
          now: ctx.clock(),
        }),
        project: p,
        live: { project: p.slug, ticket: null, cursor },
      })
    },

    inbox: ownPage(
      'Inbox',
      { why: 'Your inbox lists the tickets assigned to you. Sign in to see it.' },
      async (req, viewer, cursor) => {
        // A cursor the inbox did not hand out starts its list at the top, as a bad `?page=` does.
        const from = { pending: inboxCursor(req, 'pending'), review: inboxCursor(req, 'review') }
        const { pending, review } = await data.inbox(viewer.id, from)
        return {
          body: inboxBody({ pending, review, from, now: ctx.clock() }),
          live: { project: null, ticket: null, cursor },
        }
      },
    ),

    settings: ownPage(
      'Settings',
      { why: 'Sign in to manage your tokens and see your projects.' },
      async (_req, viewer) => {
        const [tokens, memberships] = await Promise.all([
          data.tokens(viewer.id),
          data.memberships(viewer.id),
        ])
        return {
          body: settingsBody({ name: viewer.name, tokens, memberships, now: ctx.clock() }),
        }
      },
    ),

    notifications: ownPage(
      'Notifications',
      {
        why: 'Your notifications tell you what happened on the tickets you are assigned, mentioned in or watch. Sign in to see them.',
      },
      async (req, viewer, cursor) => {
        // A `before` the page did not hand out starts at the newest, as a bad `?page=` does.
        const beforeText = req.query.get('before') ?? ''
        const before = /^[1-9][0-9]{0,15}$/.test(beforeText) ? Number(beforeText) : null
        const { groups, next } = await data.notifications(viewer.id, before, GROUPS_SHOWN)
        return {
          body: notificationsBody({
            groups,
            next,
            later: before !== null,
            unread: viewer.unreadCount,
            now: ctx.clock(),
          }),
          live: { project: null, ticket: null, cursor, events: [] },
        }
      },
    ),

    notificationSettings: ownPage(
      'Notifications settings',
      {
        heading: 'Notifications',
        why: 'Sign in to choose what you are told, in the app and by mail.',
      },
      async (_req, viewer) => {
        const { prefs, defaults } = await data.notificationPrefs(viewer.id)
        return {
          body: notificationSettingsBody({
            prefs,
            defaults,
            mail: ctx.mailer !== null,
            owner: viewer.owner,
          }),
        }
      },
    ),

    async search(req) {
      const refused = guard(req)
      if (refused) return refused
      const { viewer, switcher } = await data.context(req)
      const { q, query, error } = search(req, viewer)
      const at = pageNumber(req)
      const found = await data.everywhere(query, viewer?.id ?? null, at)
      const now = ctx.clock()
      const pageUrl = (n: number) =>
        `/tickets?${new URLSearchParams([...(q ? [['q', q]] : []), ...(n > 1 ? [['page', String(n)]] : [])])}`
      const pager =
        !error && (at > 1 || found.hasNext)
          ? html`<nav class="pager" aria-label="Pages">
${at > 1 ? html`<a href="${pageUrl(at - 1)}" rel="prev">← Previous</a>` : html`<span></span>`}
<span>Page ${at}</span>
${found.hasNext ? html`<a href="${pageUrl(at + 1)}" rel="next">Next →</a>` : html`<span></span>`}
</nav>`
          : ''
      const body = html`<div class="page-head"><div><h1>Search</h1><p class="muted">${error ? html`Nothing was searched: the search below was not understood.` : q ? html`${found.more ? `More than ${counted(found.total)} tickets` : found.total === 1 ? '1 ticket' : `${counted(found.total)} tickets`} in every project matching <code>${q}</code>` : 'Active tickets in every project, newest first.'}</p></div></div>
${
  error
    ? searchHelp(error)
    : html`${ticketList(found.rows, now, html`<h2>No tickets match</h2><p>Try fewer words, or <code>state:all</code> to include done and dropped tickets.</p>`, { showProject: true })}
${pager}
${searchHelp(null)}`
}`
      return page(req, error ? 400 : 200, { title: 'Search', viewer, switcher, body, q })
    },

    async asset(req) {
      return (await building).handler(req)
    },

    /** `POST /logout`: signs the session out; a cookie write like any other (same site, `x-tag`). */
    async logout(req) {
      if (req.method !== 'POST') return answerRefusal(refuse(405, POST_ONLY), { allow: 'POST' })
      const refusedSite = refuseCrossSite(req, ctx.sessions.cookieName, ctx.origin)
      if (refusedSite) return answerRefusal(refusedSite)
      const session = await ctx.sessions.load(req)
      if (session?.userId) {
        const refusedTag = refuseTag(req, session.data.tag)
        if (refusedTag) return answerRefusal(refusedTag)
      }
      // The row goes: the cookie names nothing from now on, in every process. Then the provider's
      // sign-in it came from ends, and with it the provider's and the notes app's sessions of
      // this browser (docs/core.md, "Signing out").
      if (session) {
        await ctx.sessions.remove(session)
        await endProviderSignIn(ctx.idp, session.data)
      }
      return json(
        200,
        { ok: true },
        { 'cache-control': 'no-store', 'set-cookie': ctx.sessions.clearCookie() },
      )
    },
  }
}
