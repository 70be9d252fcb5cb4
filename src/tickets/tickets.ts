/**
 * Tickets: the two lists, creation on both paths and the single ticket (tickets-interface.md
 * 4.1 and 4.2). Numbers are per project, taken from the project's counter by one
 * `UPDATE ... RETURNING` under the project row's lock, so parallel creates never collide; a
 * repeated non-empty `source` answers the ticket that has it (`existed: true`).
 */
import type { TransactionSql } from '../db.ts'
import { json, type Handler, type Request, type Response } from '../http.ts'
import type { Caller } from './auth.ts'
import type { Body } from './body.ts'
import type { Context, Emit, Query } from './context.ts'
import { answerDenied, deny, type Denied } from './denied.ts'
import { isLookupText, isUuid, parseNumber } from './ids.ts'
import { listMarkdown, markdown, ticketMarkdown, VARY, wantsMarkdown } from './markdown.ts'
import { findProject, type Project } from './projects.ts'
import { refuseRole, roleOf } from './roles.ts'
import { parseStateFilter, type State } from './states.ts'
import { NO_SUCH_PROJECT, NO_SUCH_TICKET } from './texts.ts'
import { resolveUser, type User } from './users.ts'
import { eventsOf, selectTickets, ticketById, type Ticket } from './views.ts'
import { acceptWrite } from './write.ts'

export const SUBJECT_MAX = 500
export const SUMMARY_MAX = 100_000
export const SOURCE_MAX = 500

/** The ticket a `:ref` names: its UUID or, for a migrated ticket, its old global number. */
export async function ticketByRef(q: Query, publicUrl: string, ref: string): Promise<Ticket | null> {
  if (isUuid(ref)) return ticketById(q, publicUrl, ref.toLowerCase())
  const old = parseNumber(ref)
  if (old === null) return null
  const [ticket] = await selectTickets(q, publicUrl, q`t.old_number = ${old}`)
  return ticket ?? null
}

/** The ticket with per-project `number` in the project a slug, old slug or id names. */
export async function ticketByNumber(q: Query, publicUrl: string, projectRef: string, number: string): Promise<Ticket | null> {
  const n = parseNumber(number)
  if (n === null || !isLookupText(projectRef)) return null
  const [ticket] = await selectTickets(q, publicUrl, q`
    t.number = ${n} and t.project_id = (select project_id from project_names where name = ${projectRef})`)
  return ticket ?? null
}

/** The ticket a write route's path names: `:ref`, or `:slug` and `:number`. */
export function ticketOfPath(q: Query, publicUrl: string, params: Record<string, string>): Promise<Ticket | null> {
  return params.ref !== undefined
    ? ticketByRef(q, publicUrl, params.ref)
    : ticketByNumber(q, publicUrl, params.slug!, params.number!)
}

/** Tickets in `states`, of one project or of all; newest first. */
export function listTickets(q: Query, publicUrl: string, projectId: string | null, states: State[]): Promise<Ticket[]> {
  return projectId === null
    ? selectTickets(q, publicUrl, q`t.state in ${q(states)}`)
    : selectTickets(q, publicUrl, q`t.project_id = ${projectId} and t.state in ${q(states)}`)
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

export type Created = { ok: true; ticket: Ticket; existed: boolean } | Denied

/** Creates a ticket (or finds the one with the same `source`); emits `ticketCreated` when new. */
export async function createTicket(tx: TransactionSql, emit: Emit, input: NewTicket): Promise<Created> {
  const projectId = input.project.id
  // The lock makes the source check and the number one step for this project.
  await tx`select id from projects where id = ${projectId} for update`
  const denied = refuseRole(await roleOf(tx, projectId, input.user.id), 'use', 'project')
  if (denied) return denied
  if (input.source !== '') {
    const [existing] = await selectTickets(tx, input.publicUrl, tx`t.project_id = ${projectId} and t.source = ${input.source}`)
    if (existing) return { ok: true, ticket: existing, existed: true }
  }
  const tooLong = lengthRefusal(input)
  if (tooLong) return tooLong
  let assigneeId: string | null = null
  if (input.assignee !== '') {
    const found = await resolveUser(tx, input.assignee, 'assignee', projectId)
    if (!found.ok) return found
    assigneeId = found.user.id
  }
  const [counter] = await tx`update projects set next_number = next_number + 1 where id = ${projectId} returning next_number - 1 as number`
  const [row] = await tx`
    insert into tickets (project_id, number, subject, summary, source, assignee_id, author_id, created, updated)
    values (${projectId}, ${counter!.number as number}, ${input.subject}, ${input.summary}, ${input.source},
      ${assigneeId}, ${input.user.id}, ${input.now}, ${input.now})
    returning id`
  const ticket = (await ticketById(tx, input.publicUrl, row!.id as string))!
  await emit(projectId, 'ticketCreated', [ticket])
  return { ok: true, ticket, existed: false }
}

/** Refuses a subject, summary or source over its length limit. */
export function lengthRefusal(input: { subject?: string; summary?: string; source?: string }): Denied | null {
  if (input.subject !== undefined && input.subject.length > SUBJECT_MAX) return deny(400, `'subject' is at most ${SUBJECT_MAX} characters`, 'subject')
  if (input.summary !== undefined && input.summary.length > SUMMARY_MAX) return deny(400, `'summary' is at most ${SUMMARY_MAX} characters`, 'summary')
  if (input.source !== undefined && input.source.length > SOURCE_MAX) return deny(400, `'source' is at most ${SOURCE_MAX} characters`, 'source')
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
    if (!filter.ok) return answerDenied(filter, VARY)
    const tickets = await listTickets(sql, publicUrl, project?.id ?? null, filter.states)
    if (wantsMarkdown(req)) {
      const title = project ? `${project.slug} (${project.title})` : 'All projects'
      return markdown(200, listMarkdown(title, filter.states, tickets))
    }
    return json(200, { tickets }, VARY)
  }

  async function create(project: Project, caller: Caller, body: Body): Promise<Response> {
    const acting = await ctx.credentials.actingUser(caller, project.id)
    if (!acting.ok) return acting.response
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
    if (!result.ok) return answerDenied(result)
    return json(result.existed ? 200 : 201, { ticket: result.ticket, existed: result.existed })
  }

  async function show(req: Request, ticket: Ticket | null): Promise<Response> {
    if (!ticket) return answerDenied(deny(404, NO_SUCH_TICKET), VARY)
    const events = await eventsOf(sql, ticket.id)
    if (wantsMarkdown(req)) return markdown(200, ticketMarkdown(ticket, events))
    return json(200, { ticket, events }, VARY)
  }

  return {
    async list(req) {
      const ref = req.query.get('project')
      if (ref === null || ref === '') return answerList(req, null)
      const project = await findProject(sql, ref, publicUrl)
      return project ? answerList(req, project) : answerDenied(deny(404, NO_SUCH_PROJECT), VARY)
    },
    async create(req) {
      const w = await acceptWrite(ctx, req, 'A', { project: 'required', ...CREATE_FIELDS })
      if (!w.ok) return w.response
      const project = await findProject(sql, w.body.project!, publicUrl)
      if (!project) return answerDenied(deny(404, NO_SUCH_PROJECT))
      return create(project, w.caller, w.body)
    },
    async listInProject(req) {
      const project = await findProject(sql, req.params.slug!, publicUrl)
      return project ? answerList(req, project) : answerDenied(deny(404, NO_SUCH_PROJECT), VARY)
    },
    async createInProject(req) {
      const w = await acceptWrite(ctx, req, 'A', CREATE_FIELDS)
      if (!w.ok) return w.response
      const project = await findProject(sql, req.params.slug!, publicUrl)
      if (!project) return answerDenied(deny(404, NO_SUCH_PROJECT))
      return create(project, w.caller, w.body)
    },
    async show(req) {
      return show(req, await ticketByRef(sql, publicUrl, req.params.ref!))
    },
    async showByNumber(req) {
      return show(req, await ticketByNumber(sql, publicUrl, req.params.slug!, req.params.number!))
    },
  }
}
