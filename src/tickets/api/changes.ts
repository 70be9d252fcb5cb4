/**
 * Changes to a ticket (docs/tickets-api.md, 4.3 to 4.6): comment, state change, assign and
 * edit, each recorded as a history event and emitted as `ticketEvent` in the same transaction.
 *
 * State changes assign (docs/tickets-api.md, 4.4): to `doing` on an unassigned ticket assigns the
 * acting user; to `review` assigns the author when someone else holds it.
 */
import { json, type Response } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import type { Actor } from '../rules/actor.ts'
import type { Callers } from '../credentials.ts'
import type { Body, Shape } from '../rules/body.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse, type Refusal } from '../../http/refusal.ts'
import { refuseRole } from '../rules/roles.ts'
import { isState, type State } from '../rules/states.ts'
import {
  ALREADY_UNASSIGNED, alreadyAssignedTo, alreadyInState, fieldRequired, fieldTooLong, NO_SUCH_TICKET, EDIT_STALE, NOTHING_CHANGED, SUBJECT_EMPTY, SUBJECT_OR_SUMMARY, unknownState,
} from '../rules/messages.ts'
import { ticketAnswer, ticketAnswers, type TicketAnswer } from '../representations/json.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { User } from '../store/users.ts'
import type { Ticket } from '../store/ticket-row.ts'
import type { LockedTicket } from '../store/ticket-writes.ts'
import { isBlank, lengthRefusal } from './tickets.ts'
import { ticketEtag } from '../representations/json.ts'
import { matches } from '../../http/conditional.ts'
import { acceptWrite } from './accept-write.ts'

const COMMENT_MAX = 100_000

/** The ticket a change names, locked, with the actor's role in its project. */
async function lockFor(tx: TicketTx, ticketId: string, actor: Actor): Promise<LockedTicket> {
  // The route found the ticket before the transaction; tickets are not deleted.
  return (await tx.tickets.lock(ticketId, actor.user.id))!
}

type Changed = { ok: true; ticket: TicketAnswer; event: TicketEvent; assignEvent?: TicketEvent } | Refusal

export interface ChangeHandlers {
  comment: Handler
  state: Handler
  assign: Handler
  edit: Handler
}

type Change = (tx: TicketTx, actor: Actor, ticketId: string, body: Body, req: Request) => Promise<Changed>

export function createChangeHandlers(ctx: Context): ChangeHandlers {
  const { store, publicUrl } = ctx

  /** Emits `ticketEvent` for each of `events` with the ticket as changed; answers the change. */
  async function emitTicketEvents(tx: TicketTx, projectId: string, done: { ticket: Ticket; events: TicketEvent[] }): Promise<{ ticket: TicketAnswer; events: TicketEvent[] }> {
    const ticket = ticketAnswer(publicUrl, done.ticket)
    for (const event of done.events) await tx.emit(projectId, 'ticketEvent', [ticket.id, event, ticket])
    return { ticket, events: done.events }
  }

  /** Adds a comment. */
  async function comment(tx: TicketTx, actor: Actor, ticketId: string, text: string): Promise<Changed> {
    const events = [{ kind: 'comment' as const, data: { text } }]
    if (text.length <= COMMENT_MAX) {
      // The common comment in one statement, written only when the actor is a member. When
      // nothing was written, the checks below answer why, in their order.
      const done = await tx.tickets.change(ticketId, { updated: actor.now }, events, actor, actor.user.id)
      if (done) {
        const { ticket, events: [event] } = await emitTicketEvents(tx, done.ticket.project, done)
        return { ok: true, ticket, event: event! }
      }
    }
    const t = await lockFor(tx, ticketId, actor)
    const refused = refuseRole(t.role, 'use', 'project')
    if (refused) return refused
    if (text.length > COMMENT_MAX) return refuse(400, fieldTooLong('text', COMMENT_MAX), 'text')
    const { ticket, events: [event] } = await emitTicketEvents(tx, t.projectId, (await tx.tickets.change(t.id, { updated: actor.now }, events, actor))!)
    return { ok: true, ticket, event: event! }
  }

  /** Changes the state, assigning as decided; emits both events and the related views. */
  async function changeState(tx: TicketTx, actor: Actor, ticketId: string, state: string, text: string): Promise<Changed> {
    const t = await lockFor(tx, ticketId, actor)
    const refused = refuseRole(t.role, 'use', 'project')
    if (refused) return refused
    if (!isState(state)) return refuse(400, unknownState(state), 'state')
    if (state === t.state) return refuse(400, alreadyInState(state), 'state')
    if (text.length > COMMENT_MAX) return refuse(400, fieldTooLong('text', COMMENT_MAX), 'text')

    let assignTo: User | undefined
    const me = { id: actor.user.id, name: actor.user.name }
    if (state === 'doing' && t.assigneeId === null) assignTo = me
    if (state === 'review' && t.assigneeId !== null && t.authorId !== null && t.assigneeId !== t.authorId) assignTo = t.author ?? undefined

    const data: Record<string, unknown> = { from: t.state, to: state }
    if (text.trim() !== '') data.text = text
    const change = { state: state as State, updated: actor.now, ...(assignTo !== undefined ? { assigneeId: assignTo.id } : {}) }
    const events = [{ kind: 'state' as const, data }, ...(assignTo !== undefined ? [{ kind: 'assign' as const, data: { from: t.assignee, to: assignTo } }] : [])]
    const { ticket, events: [event, assignEvent] } = await emitTicketEvents(tx, t.projectId, (await tx.tickets.change(t.id, change, events, actor))!)
    await tx.emit(t.projectId, 'ticketsRelated', [ticketAnswers(publicUrl, await tx.tickets.related([t.id]))])
    return assignEvent ? { ok: true, ticket, event: event!, assignEvent } : { ok: true, ticket, event: event! }
  }

  /** Assigns the ticket to a member (a user reference), or to nobody for an empty `assignee`. */
  async function assign(tx: TicketTx, actor: Actor, ticketId: string, assignee: string): Promise<Changed> {
    const t = await lockFor(tx, ticketId, actor)
    const refused = refuseRole(t.role, 'edit', 'project')
    if (refused) return refused
    let to: User | null = null
    if (assignee !== '') {
      const found = await tx.users.resolve(assignee, 'assignee', t.projectId)
      if (!found.ok) return found
      to = found.user
    }
    if ((to?.id ?? null) === t.assigneeId) return refuse(400, to ? alreadyAssignedTo(to.name) : ALREADY_UNASSIGNED, 'assignee')
    const events = [{ kind: 'assign' as const, data: { from: t.assignee, to } }]
    const { ticket, events: [event] } = await emitTicketEvents(tx, t.projectId, (await tx.tickets.change(t.id, { assigneeId: to?.id ?? null, updated: actor.now }, events, actor))!)
    return { ok: true, ticket, event: event! }
  }

  /**
   * Edits subject and summary; the event keeps each changed field's previous value. With
   * `ifMatch` (the request's `If-Match`), only when it names the ticket's current `ETag`, else
   * 412: checked under the row's lock, after the role, so no other edit can come in between.
   */
  async function edit(tx: TicketTx, actor: Actor, ticketId: string, fields: { subject?: string; summary?: string }, ifMatch: string | undefined): Promise<Changed> {
    const t = await lockFor(tx, ticketId, actor)
    // The interface answers `{ error }` without a field for a missing role here.
    const refused = refuseRole(t.role, 'edit')
    if (refused) return refused
    if (ifMatch !== undefined) {
      const current = ticketEtag(publicUrl, (await tx.tickets.byId(t.id))!, await tx.history.of(t.id))
      if (!matchesStrongly(ifMatch, current)) return refuse(412, EDIT_STALE)
    }
    if (fields.subject === undefined && fields.summary === undefined) return refuse(400, SUBJECT_OR_SUMMARY, 'subject')
    if (fields.subject !== undefined && fields.subject.trim() === '') return refuse(400, SUBJECT_EMPTY, 'subject')
    if (fields.subject !== undefined) fields = { ...fields, subject: fields.subject.trim() }
    const tooLong = lengthRefusal(fields)
    if (tooLong) return tooLong
    const data: Record<string, { from: string; to: string }> = {}
    if (fields.subject !== undefined && fields.subject !== t.subject) data.subject = { from: t.subject, to: fields.subject }
    if (fields.summary !== undefined && fields.summary !== t.summary) data.summary = { from: t.summary, to: fields.summary }
    if (Object.keys(data).length === 0) return refuse(400, NOTHING_CHANGED, fields.subject !== undefined ? 'subject' : 'summary')
    const change = { subject: fields.subject ?? t.subject, summary: fields.summary ?? t.summary, updated: actor.now }
    const { ticket, events: [event] } = await emitTicketEvents(tx, t.projectId, (await tx.tickets.change(t.id, change, [{ kind: 'edit', data }], actor))!)
    await tx.emit(t.projectId, 'ticketsRelated', [ticketAnswers(publicUrl, await tx.tickets.related([t.id]))])
    return { ok: true, ticket, event: event! }
  }

  /** 405 was the router's; then credential, body, ticket (404), acting user, and the change. */
  function route(callers: Callers, shape: Shape, run: Change, notBlank: readonly string[] = []): Handler {
    return async (req: Request): Promise<Response> => {
      const w = await acceptWrite(ctx, req, callers, shape)
      if (!w.ok) return answerRefusal(w)
      const blank = notBlank.find((name) => isBlank(w.body[name]))
      if (blank !== undefined) return answerRefusal(refuse(400, fieldRequired(blank), blank))
      const ticket = await store.tickets.locate(req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const acting = await ctx.credentials.actingUser(w.caller, ticket.project)
      if (!acting.ok) return answerRefusal(acting)
      const actor: Actor = { user: acting.user, app: acting.app, now: ctx.clock() }
      const result = await store.transact((tx) => run(tx, actor, ticket.id, w.body, req))
      if (!result.ok) return answerRefusal(result)
      const { ok: _, ...answer } = result
      return json(201, answer)
    }
  }

  return {
    comment: route('user-or-key', { text: 'required' }, (tx, actor, id, body) => comment(tx, actor, id, body.text!), ['text']),
    state: route('user-or-key', { state: 'required', text: 'optional' }, (tx, actor, id, body) => changeState(tx, actor, id, body.state!, body.text ?? '')),
    assign: route('user', { assignee: 'present' }, (tx, actor, id, body) => assign(tx, actor, id, body.assignee!)),
    edit: route('user', { subject: 'optional', summary: 'optional' }, (tx, actor, id, body, req) => edit(tx, actor, id, { subject: body.subject, summary: body.summary }, req.headers['if-match'])),
  }
}

/**
 * True when an `If-Match` field names `etag` by the strong comparison RFC 9110 section 13.1.1
 * asks of it: `*` (the ticket exists) or the same opaque tag, never a weak `W/` one.
 */
export function matchesStrongly(field: string, etag: string): boolean {
  return matches(field.replace(/W\/"[^"]*"/g, ''), etag)
}
