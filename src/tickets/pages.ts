/**
 * Page addresses (tickets-interface.md 4.11): old addresses answer 301 to the short ones, and
 * the short project and ticket pages `/<slug>` and `/<slug>/<number>` answer a simple HTML page
 * until the rendered pages come. A page reached by an old slug or the id moves to the current
 * slug.
 */
import { escapeHtml, html, htmlDocument, jsonError, redirect, type Handler, type Request, type Response } from '../http.ts'
import { loginButtonUrl, safeNext } from '../idp.ts'
import { LIVE_SCRIPT } from './live-script.ts'
import type { Context } from './context.ts'
import { findProject } from './projects.ts'
import { DEFAULT_FILTER } from './states.ts'
import { NO_SUCH_PROJECT, NO_SUCH_TICKET } from './texts.ts'
import { listTickets, ticketByNumber, ticketByRef } from './tickets.ts'
import { eventsOf, type Ticket } from './views.ts'

/** A small HTML document: `title` as title and heading, then `body` (already HTML). */
export function page(status: number, title: string, body: string, headers?: Record<string, string>): Response {
  return html(status, htmlDocument(title, body), headers)
}

/** A page with a heading and one escaped line of text. */
export function messagePage(status: number, title: string, text: string, headers?: Record<string, string>): Response {
  return page(status, title, `<p>${escapeHtml(text)}</p>\n<p><a href="/">Home</a></p>`, headers)
}

const notFound = (text: string) => messagePage(404, 'Not found', text)

/**
 * The part of a short page that follows live events: the script (src/tickets/live-script.ts)
 * redraws it when an event touches the project or ticket it shows.
 */
function livePart(body: string, cursor: number, slug: string, ticketId: string | null): string {
  const ticket = ticketId ? ` data-ticket="${escapeHtml(ticketId)}"` : ''
  return `<main id="live" data-project="${escapeHtml(slug)}"${ticket} data-cursor="${cursor}">
${body}
</main>
<script>${LIVE_SCRIPT}</script>
`
}

export interface PageHandlers {
  home: Handler
  login: Handler
  oldTicket: Handler
  oldProject: Handler
  oldProjectTicket: Handler
  project: Handler
  ticket: Handler
}

export function pageHandlers(ctx: Context, live: { cursor(): Promise<number> }): PageHandlers {
  const { sql, publicUrl } = ctx
  const moved = (to: string) => redirect(301, to)

  /** The login button (4.10 rule 9): back to the login return, then to this page. */
  function loginLink(req: Request): string {
    return `<p><a href="${escapeHtml(loginButtonUrl(ctx.idp, publicUrl, req.path))}">Log in</a></p>`
  }

  /** The short pages take every method so a mistyped API path is not answered as a page. */
  function guard(req: Request): Response | null {
    if (req.path === '/api' || req.path.startsWith('/api/')) return jsonError(404, 'not found')
    if (req.method !== 'GET' && req.method !== 'HEAD') return jsonError(405, 'GET only', { allow: 'GET, HEAD' })
    return null
  }

  return {
    /** `/`: the projects, with the login link, so a person opening the service sees where to go. */
    async home(req) {
      const projects = await sql<{ slug: string; title: string }[]>`select slug, title from projects order by lower(title), slug`
      const items = projects.map((p) => `<li><a href="/${escapeHtml(p.slug)}">${escapeHtml(p.title)}</a> (${escapeHtml(p.slug)})</li>`)
      const body = [
        projects.length ? `<ul>\n${items.join('\n')}\n</ul>` : '<p>No projects yet. Sign in and make one with <code>POST /api/projects</code>.</p>',
        '<p>The API is described in docs/tickets-api.md; reads are public, writes need a token.</p>',
        loginLink(req),
      ].join('\n')
      return page(200, 'Tickets', body)
    },
    /** `/login?next=<path>`: the login button's target (4.10 rule 9), for links and people typing it. */
    login(req) {
      const next = safeNext(req.query.get('next'))
      return redirect(302, loginButtonUrl(ctx.idp, publicUrl, next === '/' ? undefined : next), 'continue at the identity provider', { 'cache-control': 'no-store' })
    },
    async oldTicket(req) {
      const t = await ticketByRef(sql, publicUrl, req.params.ref!)
      return t ? moved(`/${t.slug}/${t.number}`) : notFound(NO_SUCH_TICKET)
    },
    async oldProject(req) {
      const p = await findProject(sql, req.params.slug!, publicUrl)
      return p ? moved(`/${p.slug}`) : notFound(NO_SUCH_PROJECT)
    },
    async oldProjectTicket(req) {
      const t = await ticketByNumber(sql, publicUrl, req.params.slug!, req.params.number!)
      return t ? moved(`/${t.slug}/${t.number}`) : notFound(NO_SUCH_TICKET)
    },
    async project(req) {
      const refused = guard(req)
      if (refused) return refused
      const cursor = await live.cursor()
      const p = await findProject(sql, req.params.slug!, publicUrl)
      if (!p) return notFound(NO_SUCH_PROJECT)
      if (p.slug !== req.params.slug) return moved(`/${p.slug}`)
      const tickets = await listTickets(sql, publicUrl, p.id, [...DEFAULT_FILTER])
      const items = tickets.map((t) => `<li>${ticketLink(t)} [${t.state}] ${escapeHtml(t.subject)}${t.assignee ? ` (${escapeHtml(t.assignee.name)})` : ''}</li>`)
      const body = [
        p.description ? `<p>${escapeHtml(p.description)}</p>` : '',
        `<p>Open tickets (${tickets.length}):</p>`,
        `<ul>\n${items.join('\n')}\n</ul>`,
      ].join('\n')
      return page(200, `${p.title} (${p.slug})`, livePart(body, cursor, p.slug, null) + loginLink(req))
    },
    async ticket(req) {
      const refused = guard(req)
      if (refused) return refused
      const cursor = await live.cursor()
      const t = await ticketByNumber(sql, publicUrl, req.params.slug!, req.params.number!)
      if (!t) return notFound(NO_SUCH_TICKET)
      if (t.slug !== req.params.slug) return moved(`/${t.slug}/${t.number}`)
      const events = await eventsOf(sql, t.id)
      const fields = [
        `state: ${t.state}`,
        `assignee: ${t.assignee ? escapeHtml(t.assignee.name) : 'nobody'}`,
        t.author ? `author: ${escapeHtml(t.author.name)}` : '',
        t.parent ? `parent: ${escapeHtml(t.parent.ref)}` : '',
        t.blockedBy.length ? `blocked by: ${t.blockedBy.map((b) => escapeHtml(b.ref)).join(', ')}` : '',
      ].filter(Boolean)
      const history = events.map((e) => {
        const text = typeof e.text === 'string' ? `: ${escapeHtml(e.text)}` : ''
        const change = e.kind === 'state' ? ` ${escapeHtml(String(e.from))} → ${escapeHtml(String(e.to))}` : ''
        const via = e.app === null ? '' : ` (via ${escapeHtml(e.app)})`
        return `<li>${new Date(e.created).toISOString()} ${escapeHtml(e.by)}${via} ${e.kind}${change}${text}</li>`
      })
      const body = [
        `<p><a href="/${escapeHtml(t.slug)}">${escapeHtml(t.slug)}</a></p>`,
        `<ul>${fields.map((f) => `<li>${f}</li>`).join('')}</ul>`,
        t.summary ? `<pre>${escapeHtml(t.summary)}</pre>` : '',
        `<h2>History</h2>\n<ul>\n${history.join('\n')}\n</ul>`,
      ].join('\n')
      return page(200, `${t.ref}: ${t.subject}`, livePart(body, cursor, t.slug, t.id) + loginLink(req))
    },
  }
}

function ticketLink(t: Ticket): string {
  return `<a href="/${escapeHtml(t.slug)}/${t.number}">${escapeHtml(t.ref)}</a>`
}
