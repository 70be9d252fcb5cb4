/**
 * Changes to a ticket (docs/tickets-api.md, 4.3 to 4.6): comment, state change, assign and
 * edit, each recorded as a history event and emitted as `ticketEvent` in the same transaction.
 *
 * State changes assign (docs/tickets-api.md, 4.4): to `doing` on an unassigned ticket assigns the
 * acting user; to `review` assigns the author when someone else holds it.
 */
import { json, type Response } from '../../response.ts'
import type { Handler } from '../../handler.ts'
import type { Request } from '../../request.ts'
import type { Actor } from '../actor.ts'
import type { Callers } from '../auth.ts'
import type { Body, Shape } from '../body.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse, type Refusal } from '../refusal.ts'
import { refuseRole } from '../roles.ts'
import { isState, type State } from '../states.ts'
import {
  ALREADY_UNASSIGNED, alreadyAssignedTo, alreadyInState, fieldTooLong, NO_SUCH_TICKET, NOTHING_CHANGED, SUBJECT_EMPTY, SUBJECT_OR_SUMMARY, unknownState,
} from '../messages.ts'
import { ticketAnswer, ticketAnswers, type TicketAnswer } from './answers.ts'
import type { TicketEvent } from '../store/history.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { User } from '../store/users.ts'
import { lengthRefusal } from './tickets.ts'
import { acceptWrite } from './accept-write.ts'

const COMMENT_MAX = 100_000

type Changed = { ok: true; ticket: TicketAnswer; event: TicketEvent; assignEvent?: TicketEvent } | Refusal

export interface ChangeHandlers {
  comment: Handler
  state: Handler
  assign: Handler
  edit: Handler
}

type Change = (tx: TicketTx, actor: Actor, ticketId: string, body: Body) => Promise<Changed>

export function createChangeHandlers(ctx: Context): ChangeHandlers {
  const { store, publicUrl } = ctx

  async function userRef(tx: TicketTx, id: string | null): Promise<User | null> {
    return id === null ? null : tx.users.byId(id)
  }

  /** Marks the ticket changed now and answers it. */
  async function touch(tx: TicketTx, actor: Actor, id: string): Promise<TicketAnswer> {
    await tx.tickets.update(id, { updated: actor.now })
    return ticketAnswer(publicUrl, (await tx.tickets.byId(id))!)
  }

  /** Adds a comment. */
  async function comment(tx: TicketTx, actor: Actor, ticketId: string, text: string): Promise<Changed> {
    const t = await tx.tickets.lock(ticketId)
    const refused = refuseRole(await tx.projects.roleOf(t.projectId, actor.user.id), 'use', 'project')
    if (refused) return refused
    if (text.length > COMMENT_MAX) return refuse(400, fieldTooLong('text', COMMENT_MAX), 'text')
    const event = await tx.history.add(t.id, 'comment', actor, { text })
    const ticket = await touch(tx, actor, t.id)
    await tx.emit(t.projectId, 'ticketEvent', [t.id, event, ticket])
    return { ok: true, ticket, event }
  }

  /** Changes the state, assigning as decided; emits both events and the related views. */
  async function changeState(tx: TicketTx, actor: Actor, ticketId: string, state: string, text: string): Promise<Changed> {
    const t = await tx.tickets.lock(ticketId)
    const refused = refuseRole(await tx.projects.roleOf(t.projectId, actor.user.id), 'use', 'project')
    if (refused) return refused
    if (!isState(state)) return refuse(400, unknownState(state), 'state')
    if (state === t.state) return refuse(400, alreadyInState(state), 'state')
    if (text.length > COMMENT_MAX) return refuse(400, fieldTooLong('text', COMMENT_MAX), 'text')

    let assignTo: string | null | undefined
    if (state === 'doing' && t.assigneeId === null) assignTo = actor.user.id
    if (state === 'review' && t.assigneeId !== null && t.authorId !== null && t.assigneeId !== t.authorId) assignTo = t.authorId

    const data: Record<string, unknown> = { from: t.state, to: state }
    if (text !== '') data.text = text
    await tx.tickets.update(t.id, { state: state as State })
    const event = await tx.history.add(t.id, 'state', actor, data)
    let assignEvent: TicketEvent | undefined
    if (assignTo !== undefined) {
      const from = await userRef(tx, t.assigneeId)
      await tx.tickets.update(t.id, { assigneeId: assignTo })
      assignEvent = await tx.history.add(t.id, 'assign', actor, { from, to: await userRef(tx, assignTo) })
    }
    const ticket = await touch(tx, actor, t.id)
    await tx.emit(t.projectId, 'ticketEvent', [t.id, event, ticket])
    if (assignEvent) await tx.emit(t.projectId, 'ticketEvent', [t.id, assignEvent, ticket])
    await tx.emit(t.projectId, 'ticketsRelated', [ticketAnswers(publicUrl, await tx.tickets.related([t.id]))])
    return assignEvent ? { ok: true, ticket, event, assignEvent } : { ok: true, ticket, event }
  }

  /** Assigns the ticket to a member (a user reference), or to nobody for an empty `assignee`. */
  async function assign(tx: TicketTx, actor: Actor, ticketId: string, assignee: string): Promise<Changed> {
    const t = await tx.tickets.lock(ticketId)
    const refused = refuseRole(await tx.projects.roleOf(t.projectId, actor.user.id), 'edit', 'project')
    if (refused) return refused
    let to: User | null = null
    if (assignee !== '') {
      const found = await tx.users.resolve(assignee, 'assignee', t.projectId)
      if (!found.ok) return found
      to = found.user
    }
    if ((to?.id ?? null) === t.assigneeId) return refuse(400, to ? alreadyAssignedTo(to.name) : ALREADY_UNASSIGNED, 'assignee')
    const from = await userRef(tx, t.assigneeId)
    await tx.tickets.update(t.id, { assigneeId: to?.id ?? null })
    const event = await tx.history.add(t.id, 'assign', actor, { from, to })
    const ticket = await touch(tx, actor, t.id)
    await tx.emit(t.projectId, 'ticketEvent', [t.id, event, ticket])
    return { ok: true, ticket, event }
  }

  /** Edits subject and summary; the event keeps each changed field's previous value. */
  async function edit(tx: TicketTx, actor: Actor, ticketId: string, fields: { subject?: string; summary?: string }): Promise<Changed> {
    const t = await tx.tickets.lock(ticketId)
    // The interface answers `{ error }` without a field for a missing role here.
    const refused = refuseRole(await tx.projects.roleOf(t.projectId, actor.user.id), 'edit')
    if (refused) return refused
    if (fields.subject === undefined && fields.summary === undefined) return refuse(400, SUBJECT_OR_SUMMARY, 'subject')
    if (fields.subject !== undefined && fields.subject.trim() === '') return refuse(400, SUBJECT_EMPTY, 'subject')
    const tooLong = lengthRefusal(fields)
    if (tooLong) return tooLong
    const data: Record<string, { from: string; to: string }> = {}
    if (fields.subject !== undefined && fields.subject !== t.subject) data.subject = { from: t.subject, to: fields.subject }
    if (fields.summary !== undefined && fields.summary !== t.summary) data.summary = { from: t.summary, to: fields.summary }
    if (Object.keys(data).length === 0) return refuse(400, NOTHING_CHANGED, fields.subject !== undefined ? 'subject' : 'summary')
    await tx.tickets.update(t.id, { subject: fields.subject ?? t.subject, summary: fields.summary ?? t.summary })
    const event = await tx.history.add(t.id, 'edit', actor, data)
    const ticket = await touch(tx, actor, t.id)
    await tx.emit(t.projectId, 'ticketEvent', [t.id, event, ticket])
    await tx.emit(t.projectId, 'ticketsRelated', [ticketAnswers(publicUrl, await tx.tickets.related([t.id]))])
    return { ok: true, ticket, event }
  }

  /** 405 was the router's; then credential, body, ticket (404), acting user, and the change. */
  function route(callers: Callers, shape: Shape, run: Change): Handler {
    return async (req: Request): Promise<Response> => {
      const w = await acceptWrite(ctx, req, callers, shape)
      if (!w.ok) return answerRefusal(w)
      const ticket = await store.tickets.byPath(req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const acting = await ctx.credentials.actingUser(w.caller, ticket.project)
      if (!acting.ok) return answerRefusal(acting)
      const actor: Actor = { user: acting.user, app: acting.app, now: ctx.clock() }
      const result = await store.transact((tx) => run(tx, actor, ticket.id, w.body))
      if (!result.ok) return answerRefusal(result)
      const { ok: _, ...answer } = result
      return json(201, answer)
    }
  }

  return {
    comment: route('user-or-key', { text: 'required' }, (tx, actor, id, body) => comment(tx, actor, id, body.text!)),
    state: route('user-or-key', { state: 'required', text: 'optional' }, (tx, actor, id, body) => changeState(tx, actor, id, body.state!, body.text ?? '')),
    assign: route('user', { assignee: 'present' }, (tx, actor, id, body) => assign(tx, actor, id, body.assignee!)),
    edit: route('user', { subject: 'optional', summary: 'optional' }, (tx, actor, id, body) => edit(tx, actor, id, { subject: body.subject, summary: body.summary })),
  }
}
