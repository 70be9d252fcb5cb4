/**
 * Tickets: the two lists, creation on both paths and the single ticket (docs/tickets-api.md,
 * 4.1 and 4.2). Numbers are per project, taken from the project's counter by one
 * `UPDATE ... RETURNING` under the project row's lock, so parallel creates never collide; a
 * repeated non-empty `source` answers the ticket that has it (`existed: true`).
 */
import { json, type Response } from '../../response.ts'
import type { Handler } from '../../handler.ts'
import type { Request } from '../../request.ts'
import type { Actor } from '../actor.ts'
import type { Caller } from '../auth.ts'
import { refuseText, type Body } from '../body.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse, type Refusal } from '../refusal.ts'
import { listMarkdown, markdown, ticketMarkdown, VARY, wantsMarkdown } from '../pages/markdown.ts'
import type { Project } from '../store/projects.ts'
import { refuseRole } from '../roles.ts'
import { parseStateFilter } from '../states.ts'
import { NO_SUCH_PROJECT, NO_SUCH_TICKET, fieldTooLong } from '../messages.ts'
import { ticketAnswer, ticketAnswers, type TicketAnswer } from './answers.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { Ticket } from '../store/tickets.ts'
import { ME_NEEDS_SIGN_IN, needsMe, parseQuery } from '../query.ts'
import { acceptWrite } from './accept-write.ts'

export const SUBJECT_MAX = 500
export const SUMMARY_MAX = 100_000
export const SOURCE_MAX = 500

type Created = { ok: true; ticket: Ticket; existed: boolean } | Refusal

interface NewTicket {
  subject: string
  summary: string
  source: string
  /** A user reference among the project's members; empty for nobody. */
  assignee: string
}

/** Refuses a subject, summary or source over its length limit. */
export function lengthRefusal(input: { subject?: string; summary?: string; source?: string }): Refusal | null {
  if (input.subject !== undefined && input.subject.length > SUBJECT_MAX) return refuse(400, fieldTooLong('subject', SUBJECT_MAX), 'subject')
  if (input.summary !== undefined && input.summary.length > SUMMARY_MAX) return refuse(400, fieldTooLong('summary', SUMMARY_MAX), 'summary')
  if (input.source !== undefined && input.source.length > SOURCE_MAX) return refuse(400, fieldTooLong('source', SOURCE_MAX), 'source')
  return null
}

export interface TicketHandlers {
  list: Handler
  create: Handler
  listInProject: Handler
  createInProject: Handler
  show: Handler
  showByNumber: Handler
}

const CREATE_FIELDS = { subject: 'required', summary: 'optional', source: 'optional', assignee: 'optional' } as const

export function createTicketHandlers(ctx: Context): TicketHandlers {
  const { store, publicUrl } = ctx
  const answer = (t: Ticket) => ticketAnswer(publicUrl, t)

  /** Creates a ticket in `project` by `actor` (or finds the one with the same `source`); emits `ticketCreated` when new. */
  async function createTicket(tx: TicketTx, actor: Actor, project: Project, input: NewTicket): Promise<Created> {
    const projectId = project.id
    // The lock makes the source check and the number one step for this project.
    await tx.tickets.lockNumbering(projectId)
    const refused = refuseRole(await tx.projects.roleOf(projectId, actor.user.id), 'use', 'project')
    if (refused) return refused
    if (input.source !== '') {
      const existing = await tx.tickets.bySource(projectId, input.source)
      if (existing) return { ok: true, ticket: existing, existed: true }
    }
    const tooLong = lengthRefusal(input)
    if (tooLong) return tooLong
    let assigneeId: string | null = null
    if (input.assignee !== '') {
      const found = await tx.users.resolve(input.assignee, 'assignee', projectId)
      if (!found.ok) return found
      assigneeId = found.user.id
    }
    const id = await tx.tickets.insert(actor, { projectId, subject: input.subject, summary: input.summary, source: input.source, assigneeId })
    const ticket = (await tx.tickets.byId(id))!
    await tx.emit(projectId, 'ticketCreated', [answer(ticket)])
    return { ok: true, ticket, existed: false }
  }

  async function answerList(req: Request, project: Project | null): Promise<Response> {
    const filter = parseStateFilter(req.query.get('state'))
    if (!filter.ok) return answerRefusal(filter, VARY)
    // `?q=`: the search language of the pages (docs/tickets-app.md, "Searching").
    const parsed = parseQuery(req.query.get('q') ?? '')
    if (!parsed.ok) return answerRefusal(refuse(400, parsed.error, 'q'), VARY)
    let me: string | null = null
    if (needsMe(parsed.query)) {
      me = await ctx.credentials.reader(req)
      if (me === null) return answerRefusal(refuse(400, ME_NEEDS_SIGN_IN, 'q'), VARY)
    }
    const states = parsed.query.states ?? filter.states
    const search = project ? { states, me, projectId: project.id } : { states, me }
    const tickets = ticketAnswers(publicUrl, await store.tickets.search(parsed.query, search))
    if (wantsMarkdown(req)) {
      const title = project ? `${project.slug} (${project.title})` : 'All projects'
      return markdown(200, listMarkdown(title, states, tickets))
    }
    return json(200, { tickets }, VARY)
  }

  async function create(project: Project, caller: Caller, body: Body): Promise<Response> {
    const acting = await ctx.credentials.actingUser(caller, project.id)
    if (!acting.ok) return answerRefusal(acting)
    const actor: Actor = { user: acting.user, app: acting.app, now: ctx.clock() }
    const input = { subject: body.subject!, summary: body.summary ?? '', source: body.source ?? '', assignee: body.assignee ?? '' }
    const result = await store.transact((tx) => createTicket(tx, actor, project, input))
    if (!result.ok) return answerRefusal(result)
    return json(result.existed ? 200 : 201, { ticket: answer(result.ticket), existed: result.existed })
  }

  async function show(req: Request, found: Ticket | null): Promise<Response> {
    if (!found) return answerRefusal(refuse(404, NO_SUCH_TICKET), VARY)
    const ticket = ticketAnswer(publicUrl, found)
    const events = await store.history.of(ticket.id)
    if (wantsMarkdown(req)) return markdown(200, ticketMarkdown(ticket, events))
    return json(200, { ticket, events }, VARY)
  }

  return {
    async list(req) {
      const ref = req.query.get('project')
      if (ref === null || ref === '') return answerList(req, null)
      const refused = refuseText('project', ref)
      if (refused) return answerRefusal(refused, VARY)
      const project = await store.projects.find(ref)
      return project ? answerList(req, project) : answerRefusal(refuse(404, NO_SUCH_PROJECT), VARY)
    },
    async create(req) {
      const w = await acceptWrite(ctx, req, 'user-or-key', { project: 'required', ...CREATE_FIELDS })
      if (!w.ok) return answerRefusal(w)
      const project = await store.projects.find(w.body.project!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return create(project, w.caller, w.body)
    },
    async listInProject(req) {
      const project = await store.projects.find(req.params.slug!)
      return project ? answerList(req, project) : answerRefusal(refuse(404, NO_SUCH_PROJECT), VARY)
    },
    async createInProject(req) {
      const w = await acceptWrite(ctx, req, 'user-or-key', CREATE_FIELDS)
      if (!w.ok) return answerRefusal(w)
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return create(project, w.caller, w.body)
    },
    async show(req) {
      return show(req, await store.tickets.byRef(req.params.ref!))
    },
    async showByNumber(req) {
      return show(req, await store.tickets.byNumber(req.params.slug!, req.params.number!))
    },
  }
}
