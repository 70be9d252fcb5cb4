/**
 * Tickets: the two lists, creation on both paths and the single ticket (docs/tickets-api.md,
 * 4.1 and 4.2). Numbers are per project, taken from the project's counter by one
 * `UPDATE ... RETURNING` under the project row's lock, so parallel creates never collide; a
 * repeated non-empty `source` answers the ticket that has it (`existed: true`).
 */
import type { TransactionSql, Query } from '../db.ts'
import { json, type Response } from '../response.ts'
import type { Handler } from '../handler.ts'
import type { Request } from '../request.ts'
import type { Caller } from './auth.ts'
import { refuseText, type Body } from './body.ts'
import type { Context, Emit } from './context.ts'
import { answerRefusal, refuse, type Refusal } from './refusal.ts'
import { listMarkdown, markdown, ticketMarkdown, VARY, wantsMarkdown } from './markdown.ts'
import { findProject, type Project } from './store/projects.ts'
import { refuseRole } from './roles.ts'
import { roleOf } from './store/projects.ts'
import { parseStateFilter } from './states.ts'
import { NO_SUCH_PROJECT, NO_SUCH_TICKET, fieldTooLong } from './messages.ts'
import { resolveUser, type User } from './store/users.ts'
import { ticketAnswer, ticketAnswers, type TicketAnswer } from './answers.ts'
import { eventsOf } from './store/history.ts'
import { insertTicket, lockProjectTickets, searchTickets, ticketById, ticketByNumber, ticketByRef, ticketBySource, type Ticket } from './store/tickets.ts'
import { ME_NEEDS_SIGN_IN, needsMe, parseQuery } from './query.ts'
import { searchCondition, searchOrder } from './store/search.ts'
import { acceptWrite } from './write.ts'

export const SUBJECT_MAX = 500
export const SUMMARY_MAX = 100_000
export const SOURCE_MAX = 500

/** The ticket a write route's path names: `:ref`, or `:slug` and `:number`. */
export function ticketOfPath(q: Query, params: Record<string, string>): Promise<Ticket | null> {
  return params.ref !== undefined ? ticketByRef(q, params.ref) : ticketByNumber(q, params.slug!, params.number!)
}

export interface NewTicket {
  project: Project
  user: User
  subject: string
  summary: string
  source: string
  /** A user reference among the project's members; empty for nobody. */
  assignee: string
  now: number
  publicUrl: string
}

export type Created = { ok: true; ticket: TicketAnswer; existed: boolean } | Refusal

/** Creates a ticket (or finds the one with the same `source`); emits `ticketCreated` when new. */
export async function createTicket(tx: TransactionSql, emit: Emit, input: NewTicket): Promise<Created> {
  const projectId = input.project.id
  // The lock makes the source check and the number one step for this project.
  await lockProjectTickets(tx, projectId)
  const refused = refuseRole(await roleOf(tx, projectId, input.user.id), 'use', 'project')
  if (refused) return refused
  if (input.source !== '') {
    const existing = await ticketBySource(tx, projectId, input.source)
    if (existing) return { ok: true, ticket: ticketAnswer(input.publicUrl, existing), existed: true }
  }
  const tooLong = lengthRefusal(input)
  if (tooLong) return tooLong
  let assigneeId: string | null = null
  if (input.assignee !== '') {
    const found = await resolveUser(tx, input.assignee, 'assignee', projectId)
    if (!found.ok) return found
    assigneeId = found.user.id
  }
  const id = await insertTicket(tx, {
    projectId,
    subject: input.subject,
    summary: input.summary,
    source: input.source,
    assigneeId,
    authorId: input.user.id,
    now: input.now,
  })
  const ticket = ticketAnswer(input.publicUrl, (await ticketById(tx, id))!)
  await emit(projectId, 'ticketCreated', [ticket])
  return { ok: true, ticket, existed: false }
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

export function ticketHandlers(ctx: Context): TicketHandlers {
  const { sql, publicUrl } = ctx

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
    const where = searchCondition(sql, parsed.query, { states, me })
    const order = searchOrder(sql, parsed.query.sort)
    const tickets = ticketAnswers(publicUrl, await searchTickets(sql, project ? sql`t.project_id = ${project.id} and ${where}` : where, order))
    if (wantsMarkdown(req)) {
      const title = project ? `${project.slug} (${project.title})` : 'All projects'
      return markdown(200, listMarkdown(title, states, tickets))
    }
    return json(200, { tickets }, VARY)
  }

  async function create(project: Project, caller: Caller, body: Body): Promise<Response> {
    const acting = await ctx.credentials.actingUser(caller, project.id)
    if (!acting.ok) return answerRefusal(acting)
    const result = await ctx.transact((tx, emit) =>
      createTicket(tx, emit, {
        project,
        user: acting.user,
        subject: body.subject!,
        summary: body.summary ?? '',
        source: body.source ?? '',
        assignee: body.assignee ?? '',
        now: ctx.clock(),
        publicUrl,
      }),
    )
    if (!result.ok) return answerRefusal(result)
    return json(result.existed ? 200 : 201, { ticket: result.ticket, existed: result.existed })
  }

  async function show(req: Request, found: Ticket | null): Promise<Response> {
    if (!found) return answerRefusal(refuse(404, NO_SUCH_TICKET), VARY)
    const ticket = ticketAnswer(publicUrl, found)
    const events = await eventsOf(sql, ticket.id)
    if (wantsMarkdown(req)) return markdown(200, ticketMarkdown(ticket, events))
    return json(200, { ticket, events }, VARY)
  }

  return {
    async list(req) {
      const ref = req.query.get('project')
      if (ref === null || ref === '') return answerList(req, null)
      const refused = refuseText('project', ref)
      if (refused) return answerRefusal(refused, VARY)
      const project = await findProject(sql, ref)
      return project ? answerList(req, project) : answerRefusal(refuse(404, NO_SUCH_PROJECT), VARY)
    },
    async create(req) {
      const w = await acceptWrite(ctx, req, 'user-or-key', { project: 'required', ...CREATE_FIELDS })
      if (!w.ok) return w.response
      const project = await findProject(sql, w.body.project!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return create(project, w.caller, w.body)
    },
    async listInProject(req) {
      const project = await findProject(sql, req.params.slug!)
      return project ? answerList(req, project) : answerRefusal(refuse(404, NO_SUCH_PROJECT), VARY)
    },
    async createInProject(req) {
      const w = await acceptWrite(ctx, req, 'user-or-key', CREATE_FIELDS)
      if (!w.ok) return w.response
      const project = await findProject(sql, req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return create(project, w.caller, w.body)
    },
    async show(req) {
      return show(req, await ticketByRef(sql, req.params.ref!))
    },
    async showByNumber(req) {
      return show(req, await ticketByNumber(sql, req.params.slug!, req.params.number!))
    },
  }
}
