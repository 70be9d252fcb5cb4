/**
 * Tickets: the two lists, creation on both paths and the single ticket (docs/tickets-api.md,
 * 4.1 and 4.2). A creation is read here and made by the domain (src/tickets/domain/tickets.ts).
 */
import { etagOf, matches, notModified } from '../../http/conditional.ts'
import { json, jsonStream, type Headers, type Response } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import { parseLimit } from '../../http/paging.ts'
import { listCursors } from '../rules/list-cursors.ts'
import type { Actor } from '../rules/actor.ts'
import type { Caller } from '../credentials.ts'
import { refuseText, type Body, type Shape } from '../rules/body.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import {
  listMarkdown,
  listMarkdownStream,
  markdown,
  ticketMarkdown,
  VARY,
  wantsMarkdown,
} from '../representations/markdown.ts'
import type { Project } from '../store/projects.ts'
import { parseStateFilter } from '../rules/states.ts'
import {
  BAD_AFTER,
  BAD_LIMIT,
  NO_SUCH_PROJECT,
  NO_SUCH_TICKET,
  fieldRequired,
} from '../rules/messages.ts'
import { ticketAnswer, ticketAnswers, ticketReadBody } from '../representations/json.ts'
import type { Ticket } from '../store/ticket-row.ts'
import { dayOf, ME_NEEDS_SIGN_IN, needsMe, parseQuery } from '../rules/query.ts'
import { acceptWrite } from './accept-write.ts'
import { fileAnswer } from '../representations/files.ts'
import { fileIdsIn } from '../rules/files.ts'
import { createTicket, isBlank } from '../domain/tickets.ts'

export interface TicketHandlers {
  list: Handler
  create: Handler
  listInProject: Handler
  createInProject: Handler
  show: Handler
  showByNumber: Handler
}

const CREATE_FIELDS = {
  subject: 'required',
  summary: 'optional',
  source: 'optional',
  assignee: 'optional',
} as const

export function createTicketHandlers(ctx: Context): TicketHandlers {
  const { store, publicUrl } = ctx
  const answer = (t: Ticket) => ticketAnswer(publicUrl, t)

  /**
   * A list (docs/tickets-api.md, 4.1): its 400s, then the cheap 304, then the project's 404, then
   * the whole list streamed in batches or one page of it. `project` is the reference the request
   * names (null for every project); it is looked up only when the list is read.
   */
  async function answerList(req: Request, project: string | null): Promise<Response> {
    const filter = parseStateFilter(req.query.get('state'))
    if (!filter.ok) return answerRefusal(filter, VARY)
    // `?q=`: the search language of the pages (docs/tickets-app.md, "Searching").
    const parsed = parseQuery(req.query.get('q') ?? '')
    if (!parsed.ok) return answerRefusal(parsed, VARY)
    const limitText = req.query.get('limit')
    const limit = limitText === null ? undefined : parseLimit(limitText, MAX_LIMIT)
    if (limit === null) return answerRefusal(refuse(400, BAD_LIMIT, 'limit'), VARY)
    const afterText = req.query.get('after')
    const after = afterText === null ? undefined : listCursors.read(afterText)
    if (after === null) return answerRefusal(refuse(400, BAD_AFTER, 'after'), VARY)
    let me: string | null = null
    if (needsMe(parsed.query)) {
      me = await ctx.credentials.reader(req)
      if (me === null) return answerRefusal(refuse(400, ME_NEEDS_SIGN_IN, 'q'), READER_VARY)
    }
    // A list that says "me" is the reader's own: kept by no shared cache, and by the browser
    // only for the credential it was answered to.
    const personal: Headers = me === null ? {} : READER_VARY
    const asMarkdown = wantsMarkdown(req)
    // Triggers move the lists' version with every committed write of a table a list shows
    // (sql/0019_lists_version_by_triggers.sql), so the lists are the same as long as that
    // version is: a client that has the tag is answered 304 after one small lookup, before the
    // project is even looked up. The version is read before the rows: a write committed in
    // between makes the tag older than the rows, never newer.
    const version = await store.outbox.version()
    // `is:overdue` lists other tickets tomorrow with no write in between: today is in its tag.
    const today = dayOf(ctx.clock())
    const day = parsed.query.overdue !== null ? `\n${today}` : ''
    const etag = etagOf(
      `${version}\n${req.path}\n${req.search}\n${me ?? ''}\n${asMarkdown ? 'md' : 'json'}${day}`,
    )
    const headers = { ...VARY, etag, ...personal }
    if (matches(req.headers['if-none-match'], etag)) return notModified(headers)
    let found: Project | null = null
    if (project !== null) {
      found = await store.projects.find(project)
      if (!found) return answerRefusal(refuse(404, NO_SUCH_PROJECT), VARY)
    }
    const query = parsed.query
    const states = query.states ?? filter.states
    const search = found ? { states, me, today, projectId: found.id } : { states, me, today }
    const title = found ? `${found.slug} (${found.title})` : 'All projects'
    if (limit === undefined) {
      // Every ticket (after the cursor, if any), read in batches.
      const batches = store.tickets.listBatches(query, search, STREAM_BATCH, after ?? null)
      if (asMarkdown) {
        // The heading counts the tickets: one count statement, then the lines as the batches
        // come. A write between the count and the batches can make them differ by what it
        // changed, as it can between two batches.
        const count = await store.tickets.count(query, search, after ?? null)
        return withEtag(
          markdown(200, listMarkdownStream(title, states, count, mapBatches(batches, answer))),
          etag,
          personal,
        )
      }
      // Streamed: at 100,000 tickets the array alone would hold every ticket in memory.
      return jsonStream(200, 'tickets', mapBatches(batches, answer), headers)
    }
    // One row past the page says whether another page follows.
    const rows = await store.tickets.listPage(query, search, limit + 1, after ?? null)
    const tickets = ticketAnswers(publicUrl, rows.slice(0, limit))
    let next: string | null = null
    if (rows.length > limit) {
      const params = new URLSearchParams(req.search)
      params.delete('limit')
      params.delete('after')
      params.set('limit', String(limit))
      params.set('after', listCursors.write(store.tickets.positionOf(query.sort, rows[limit - 1]!)))
      next = `${publicUrl}${req.path}?${params}`
    }
    const link: Headers = next === null ? {} : { link: `<${next}>; rel="next"` }
    if (asMarkdown)
      return withEtag(markdown(200, listMarkdown(title, states, tickets)), etag, {
        ...link,
        ...personal,
      })
    return json(200, { tickets, next }, { ...headers, ...link })
  }

  /**
   * A route that creates a ticket in the project `slugOf` names: the front checks and the
   * body's `shape`, a subject that is not blank, the project (404), then {@link create}.
   */
  function createRoute(shape: Shape, slugOf: (req: Request, body: Body) => string): Handler {
    return async (req) => {
      const w = await acceptWrite(ctx, req, 'user-or-key', shape)
      if (!w.ok) return answerRefusal(w)
      if (isBlank(w.body.subject))
        return answerRefusal(refuse(400, fieldRequired('subject'), 'subject'))
      const project = await store.projects.find(slugOf(req, w.body))
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return create(project, w.caller, w.body)
    }
  }

  async function create(project: Project, caller: Caller, body: Body): Promise<Response> {
    const acting = await ctx.credentials.actingUser(caller, project.id)
    if (!acting.ok) return answerRefusal(acting)
    const actor: Actor = { user: acting.user, app: acting.app, now: ctx.clock() }
    const input = {
      subject: body.subject!.trim(),
      summary: body.summary ?? '',
      source: body.source ?? '',
      assignee: body.assignee ?? '',
    }
    const result = await store.transact((tx) => createTicket(tx, publicUrl, actor, project, input))
    if (!result.ok) return answerRefusal(result)
    return json(result.existed ? 200 : 201, {
      ticket: answer(result.ticket),
      existed: result.existed,
    })
  }

  async function show(req: Request, found: Ticket | null): Promise<Response> {
    if (!found) return answerRefusal(refuse(404, NO_SUCH_TICKET), VARY)
    const events = await store.history.of(found.id)
    if (wantsMarkdown(req)) {
      // The files its text links to, with their whole addresses: the text links them from the root.
      const files = await store.files.inProject(
        found.project,
        fileIdsIn(`${found.summary}\n${JSON.stringify(events)}`),
      )
      return markdown(
        200,
        ticketMarkdown(
          ticketAnswer(publicUrl, found),
          events,
          files.map((f) => fileAnswer(publicUrl, f)),
        ),
      )
    }
    const body = ticketReadBody(publicUrl, found, events)
    return withEtag(json(200, body, VARY), etagOf(JSON.stringify(body)))
  }

  return {
    async list(req) {
      const ref = req.query.get('project')
      if (ref === null || ref === '') return answerList(req, null)
      const refused = refuseText('project', ref)
      if (refused) return answerRefusal(refused, VARY)
      return answerList(req, ref)
    },
    create: createRoute({ project: 'required', ...CREATE_FIELDS }, (_req, body) => body.project!),
    async listInProject(req) {
      return answerList(req, req.params.slug!)
    },
    createInProject: createRoute(CREATE_FIELDS, (req) => req.params.slug!),
    async show(req) {
      return show(req, await store.tickets.byRef(req.params.ref!))
    },
    async showByNumber(req) {
      return show(req, await store.tickets.byNumber(req.params.slug!, req.params.number!))
    },
  }
}

/** The largest page of the lists (docs/tickets-api.md, "Pages: `limit` and `after`"). */
export const MAX_LIMIT = 1000

/** Tickets read per statement while a whole list is streamed. */
const STREAM_BATCH = 500

/** `batches` with `f` applied to each item. */
async function* mapBatches<T, U>(
  batches: AsyncIterable<readonly T[]>,
  f: (item: T) => U,
): AsyncGenerator<U[]> {
  for await (const batch of batches) yield batch.map(f)
}

/** The headers of a list answered to its reader (`assignee:me`): it varies with the credential too. */
const READER_VARY: Headers = {
  vary: 'Accept, Authorization, Cookie',
  'cache-control': 'private, no-cache',
}

function withEtag(response: Response, etag: string, more?: Headers): Response {
  return { ...response, headers: { ...response.headers, etag, ...more } }
}
