/**
 * Changes to a ticket (docs/tickets-api.md, 4.3 to 4.6): comment, state change, assign and
 * edit, each recorded as a history event and emitted as `ticketEvent` in the same transaction.
 *
 * State changes assign (docs/tickets-api.md, 4.4): to `doing` on an unassigned ticket assigns the
 * acting user; to `review` assigns the author when someone else holds it.
 */
import type { TransactionSql } from '../db.ts'
import { json, type Response } from '../response.ts'
import type { Handler } from '../handler.ts'
import type { Request } from '../request.ts'
import type { Group } from './auth.ts'
import type { Body, Shape } from './body.ts'
import type { Context, Emit } from './context.ts'
import { answerRefusal, refuse, type Refusal } from './refusal.ts'
import { refuseRole } from './roles.ts'
import { roleOf } from './store/projects.ts'
import { isState, type State } from './states.ts'
import { NO_SUCH_TICKET, unknownState, fieldTooLong, alreadyInState, alreadyAssignedTo, ALREADY_UNASSIGNED, SUBJECT_OR_SUMMARY, SUBJECT_EMPTY, NOTHING_CHANGED } from './messages.ts'
import { ticketAnswer, ticketAnswers, type TicketAnswer } from './answers.ts'
import { addEvent, type TicketEvent } from './store/history.ts'
import { lockTicket, relatedTickets, ticketById, updateTicket } from './store/tickets.ts'
import { lengthRefusal, ticketOfPath } from './tickets.ts'
import { resolveUser, userById, type User } from './store/users.ts'
import { acceptWrite } from './write.ts'

const COMMENT_MAX = 100_000

async function userRef(tx: TransactionSql, id: string | null): Promise<User | null> {
  return id === null ? null : userById(tx, id)
}

export type Changed = { ok: true; ticket: TicketAnswer; event: TicketEvent; assignEvent?: TicketEvent } | Refusal

/** Adds a comment. */
export async function comment(tx: TransactionSql, emit: Emit, ctx: ChangeContext, ticketId: string, text: string): Promise<Changed> {
  const t = await lockTicket(tx, ticketId)
  const refused = refuseRole(await roleOf(tx, t.projectId, ctx.user.id), 'use', 'project')
  if (refused) return refused
  if (text.length > COMMENT_MAX) return refuse(400, fieldTooLong('text', COMMENT_MAX), 'text')
  const event = await addEvent(tx, t.id, 'comment', actor(ctx), { text }, ctx.now)
  const ticket = await touch(tx, ctx, t.id)
  await emit(t.projectId, 'ticketEvent', [t.id, event, ticket])
  return { ok: true, ticket, event }
}

/** Changes the state, assigning as decided; emits both events and the related views. */
export async function changeState(tx: TransactionSql, emit: Emit, ctx: ChangeContext, ticketId: string, state: string, text: string): Promise<Changed> {
  const t = await lockTicket(tx, ticketId)
  const refused = refuseRole(await roleOf(tx, t.projectId, ctx.user.id), 'use', 'project')
  if (refused) return refused
  if (!isState(state)) return refuse(400, unknownState(state), 'state')
  if (state === t.state) return refuse(400, alreadyInState(state), 'state')
  if (text.length > COMMENT_MAX) return refuse(400, fieldTooLong('text', COMMENT_MAX), 'text')

  let assignTo: string | null | undefined
  if (state === 'doing' && t.assigneeId === null) assignTo = ctx.user.id
  if (state === 'review' && t.assigneeId !== null && t.authorId !== null && t.assigneeId !== t.authorId) assignTo = t.authorId

  const data: Record<string, unknown> = { from: t.state, to: state }
  if (text !== '') data.text = text
  await updateTicket(tx, t.id, { state })
  const event = await addEvent(tx, t.id, 'state', actor(ctx), data, ctx.now)
  let assignEvent: TicketEvent | undefined
  if (assignTo !== undefined) {
    const from = await userRef(tx, t.assigneeId)
    await updateTicket(tx, t.id, { assigneeId: assignTo })
    assignEvent = await addEvent(tx, t.id, 'assign', actor(ctx), { from, to: await userRef(tx, assignTo) }, ctx.now)
  }
  const ticket = await touch(tx, ctx, t.id)
  await emit(t.projectId, 'ticketEvent', [t.id, event, ticket])
  if (assignEvent) await emit(t.projectId, 'ticketEvent', [t.id, assignEvent, ticket])
  await emit(t.projectId, 'ticketsRelated', [ticketAnswers(ctx.publicUrl, await relatedTickets(tx, [t.id]))])
  return assignEvent ? { ok: true, ticket, event, assignEvent } : { ok: true, ticket, event }
}

/** Assigns the ticket to a member (a user reference), or to nobody for an empty `assignee`. */
export async function assign(tx: TransactionSql, emit: Emit, ctx: ChangeContext, ticketId: string, assignee: string): Promise<Changed> {
  const t = await lockTicket(tx, ticketId)
  const refused = refuseRole(await roleOf(tx, t.projectId, ctx.user.id), 'edit', 'project')
  if (refused) return refused
  let to: User | null = null
  if (assignee !== '') {
    const found = await resolveUser(tx, assignee, 'assignee', t.projectId)
    if (!found.ok) return found
    to = found.user
  }
  if ((to?.id ?? null) === t.assigneeId) {
    return refuse(400, to ? alreadyAssignedTo(to.name) : ALREADY_UNASSIGNED, 'assignee')
  }
  const from = await userRef(tx, t.assigneeId)
  await updateTicket(tx, t.id, { assigneeId: to?.id ?? null })
  const event = await addEvent(tx, t.id, 'assign', actor(ctx), { from, to }, ctx.now)
  const ticket = await touch(tx, ctx, t.id)
  await emit(t.projectId, 'ticketEvent', [t.id, event, ticket])
  return { ok: true, ticket, event }
}

/** Edits subject and summary; the event keeps each changed field's previous value. */
export async function edit(tx: TransactionSql, emit: Emit, ctx: ChangeContext, ticketId: string, fields: { subject?: string; summary?: string }): Promise<Changed> {
  const t = await lockTicket(tx, ticketId)
  // The interface answers `{ error }` without a field for a missing role here.
  const refused = refuseRole(await roleOf(tx, t.projectId, ctx.user.id), 'edit')
  if (refused) return refused
  if (fields.subject === undefined && fields.summary === undefined) return refuse(400, SUBJECT_OR_SUMMARY, 'subject')
  if (fields.subject !== undefined && fields.subject.trim() === '') return refuse(400, SUBJECT_EMPTY, 'subject')
  const tooLong = lengthRefusal(fields)
  if (tooLong) return tooLong
  const data: Record<string, { from: string; to: string }> = {}
  if (fields.subject !== undefined && fields.subject !== t.subject) data.subject = { from: t.subject, to: fields.subject }
  if (fields.summary !== undefined && fields.summary !== t.summary) data.summary = { from: t.summary, to: fields.summary }
  if (Object.keys(data).length === 0) return refuse(400, NOTHING_CHANGED, fields.subject !== undefined ? 'subject' : 'summary')
  await updateTicket(tx, t.id, { subject: fields.subject ?? t.subject, summary: fields.summary ?? t.summary })
  const event = await addEvent(tx, t.id, 'edit', actor(ctx), data, ctx.now)
  const ticket = await touch(tx, ctx, t.id)
  await emit(t.projectId, 'ticketEvent', [t.id, event, ticket])
  await emit(t.projectId, 'ticketsRelated', [ticketAnswers(ctx.publicUrl, await relatedTickets(tx, [t.id]))])
  return { ok: true, ticket, event }
}

/** Who acts (and through which connected app, if any), when, and where links point. */
export interface ChangeContext {
  user: User
  /** The label of the connected app acting for `user`; absent or null for the person. */
  app?: string | null
  now: number
  publicUrl: string
}

/** The author of the change's events: the person, with the app's label when one acts for them. */
function actor(ctx: ChangeContext): { id: string; name: string; app: string | null } {
  return { ...ctx.user, app: ctx.app ?? null }
}

/** Marks the ticket changed now and answers its view. */
async function touch(tx: TransactionSql, ctx: ChangeContext, id: string): Promise<TicketAnswer> {
  await updateTicket(tx, id, { updated: ctx.now })
  return ticketAnswer(ctx.publicUrl, (await ticketById(tx, id))!)
}

export interface ChangeHandlers {
  comment: Handler
  state: Handler
  assign: Handler
  edit: Handler
}

type Change = (tx: TransactionSql, emit: Emit, change: ChangeContext, ticketId: string, body: Body) => Promise<Changed>

export function changeHandlers(ctx: Context): ChangeHandlers {
  /** 405 was the router's; then credential, body, ticket (404), acting user, and the change. */
  function route(group: Group, shape: Shape, run: Change): Handler {
    return async (req: Request): Promise<Response> => {
      const w = await acceptWrite(ctx, req, group, shape)
      if (!w.ok) return w.response
      const ticket = await ticketOfPath(ctx.sql, req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const acting = await ctx.credentials.actingUser(w.caller, ticket.project)
      if (!acting.ok) return answerRefusal(acting)
      const change = { user: acting.user, app: acting.app, now: ctx.clock(), publicUrl: ctx.publicUrl }
      const result = await ctx.transact((tx, emit) => run(tx, emit, change, ticket.id, w.body))
      if (!result.ok) return answerRefusal(result)
      const { ok: _, ...answer } = result
      return json(201, answer)
    }
  }

  return {
    comment: route('user-or-key', { text: 'required' }, (tx, emit, c, id, body) => comment(tx, emit, c, id, body.text!)),
    state: route('user-or-key', { state: 'required', text: 'optional' }, (tx, emit, c, id, body) => changeState(tx, emit, c, id, body.state!, body.text ?? '')),
    assign: route('user', { assignee: 'present' }, (tx, emit, c, id, body) => assign(tx, emit, c, id, body.assignee!)),
    edit: route('user', { subject: 'optional', summary: 'optional' }, (tx, emit, c, id, body) =>
      edit(tx, emit, c, id, { subject: body.subject, summary: body.summary })),
  }
}
