/**
 * Changes to a ticket (docs/tickets-api.md, 4.3 to 4.6): who may comment, change the state,
 * assign and edit, and what each change does. Each is recorded as a history event and emitted as
 * `ticketEvent` in the same transaction, with the ticket as answers show it (its page under the
 * service's public URL).
 *
 * State changes assign (docs/tickets-api.md, 4.4): to `doing` on an unassigned ticket assigns the
 * acting user; to `review` assigns the author when someone else holds it.
 */
import { matches } from '../../http/conditional.ts'
import { refuse, Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import {
  ALREADY_UNASSIGNED,
  alreadyAssignedTo,
  alreadyInState,
  fieldTooLong,
  EDIT_STALE,
  NOTHING_CHANGED,
  SUBJECT_EMPTY,
  SUBJECT_OR_SUMMARY,
  unknownState,
} from '../rules/messages.ts'
import { COMMENT_MAX } from '../rules/lengths.ts'
import { refuseRole } from '../rules/roles.ts'
import { isState } from '../rules/states.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import {
  ticketAnswer,
  ticketAnswers,
  ticketEtag,
  type TicketAnswer,
} from '../representations/json.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { Ticket } from '../store/ticket-row.ts'
import type { LockedTicket, NewHistoryEvent, TicketChange } from '../store/ticket-writes.ts'
import type { User } from '../store/users.ts'
import { EDIT, lengthRefusal, USE } from './tickets.ts'
import { watchOnWrite } from './notifications.ts'

export type Changed =
  { ok: true; ticket: TicketAnswer; event: TicketEvent; assignEvent?: TicketEvent } | Refusal

/** The ticket a change names, locked, with the actor's role in its project. */
export async function lockFor(tx: TicketTx, ticketId: string, actor: Actor): Promise<LockedTicket> {
  // The route found the ticket before the transaction; tickets are not deleted.
  return (await tx.tickets.lock(ticketId, actor.user.id))!
}

/** Emits `ticketEvent` for each of `events` with the ticket as changed; answers the change. */
export async function emitTicketEvents(
  tx: TicketTx,
  publicUrl: string,
  done: { ticket: Ticket; events: TicketEvent[] },
): Promise<{ ticket: TicketAnswer; events: TicketEvent[] }> {
  const ticket = ticketAnswer(publicUrl, done.ticket)
  for (const event of done.events)
    await tx.emit(done.ticket.project, 'ticketEvent', [ticket.id, event, ticket])
  return { ticket, events: done.events }
}

/** Writes `change` and `events` to the ticket `id` and emits the events; answers the change. */
async function changeAndEmit(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  id: string,
  change: TicketChange,
  events: readonly NewHistoryEvent[],
): Promise<{ ticket: TicketAnswer; events: TicketEvent[] }> {
  // The ticket is locked by the caller and tickets are not deleted, so the change writes.
  return emitTicketEvents(tx, publicUrl, (await tx.tickets.change(id, change, events, actor))!)
}

/** Adds a comment: a member of any role may. */
export async function comment(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticketId: string,
  text: string,
): Promise<Changed> {
  const events = [{ kind: 'comment' as const, data: { text } }]
  if (text.length > COMMENT_MAX) {
    // The role is checked before the length.
    const t = await lockFor(tx, ticketId, actor)
    return (
      refuseRole(t.role, USE, 'project') ?? refuse(400, fieldTooLong('text', COMMENT_MAX), 'text')
    )
  }
  const written = await tx.tickets.changeAsMember(
    ticketId,
    { updated: actor.now },
    events,
    actor,
    USE,
  )
  if (!written.ok) return refuseRole(written.role, USE, 'project')!
  const {
    ticket,
    events: [event],
  } = await emitTicketEvents(tx, publicUrl, written)
  await watchOnWrite(tx, ticketId, actor, { actorWatches: true, assignee: null })
  return { ok: true, ticket, event: event! }
}

/** Changes the state, assigning as decided; emits both events and the related views. */
export async function changeState(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticketId: string,
  state: string,
  text: string,
): Promise<Changed> {
  const t = await lockFor(tx, ticketId, actor)
  const refused = refuseRole(t.role, USE, 'project')
  if (refused) return refused
  if (!isState(state)) return refuse(400, unknownState(state), 'state')
  if (state === t.state) return refuse(400, alreadyInState(state), 'state')
  if (text.length > COMMENT_MAX) return refuse(400, fieldTooLong('text', COMMENT_MAX), 'text')

  let assignTo: User | undefined
  const me = { id: actor.user.id, name: actor.user.name }
  if (state === 'doing' && t.assigneeId === null) assignTo = me
  if (
    state === 'review' &&
    t.assigneeId !== null &&
    t.authorId !== null &&
    t.assigneeId !== t.authorId
  )
    assignTo = t.author ?? undefined

  const data: Record<string, unknown> = { from: t.state, to: state }
  if (text.trim() !== '') data.text = text
  const change = {
    state: state,
    updated: actor.now,
    ...(assignTo !== undefined ? { assigneeId: assignTo.id } : {}),
  }
  const events = [
    { kind: 'state' as const, data },
    ...(assignTo !== undefined
      ? [{ kind: 'assign' as const, data: { from: t.assignee, to: assignTo } }]
      : []),
  ]
  const {
    ticket,
    events: [event, assignEvent],
  } = await changeAndEmit(tx, publicUrl, actor, t.id, change, events)
  await tx.emit(t.projectId, 'ticketsRelated', [
    ticketAnswers(publicUrl, await tx.tickets.related([t.id])),
  ])
  await watchOnWrite(tx, t.id, actor, {
    actorWatches: text.trim() !== '',
    assignee: assignTo?.id ?? null,
  })
  return assignEvent
    ? { ok: true, ticket, event: event!, assignEvent }
    : { ok: true, ticket, event: event! }
}

/** Assigns the ticket to a member (a user reference), or to nobody for an empty `assignee`. */
export async function assign(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticketId: string,
  assignee: string,
): Promise<Changed> {
  const done = await changeAsEditor(tx, publicUrl, actor, ticketId, async (t) => {
    let to: User | null = null
    if (assignee !== '') {
      const found = await tx.users.resolve(assignee, 'assignee', t.projectId)
      if (!found.ok) return found
      to = found.user
    }
    if ((to?.id ?? null) === t.assigneeId)
      return refuse(400, to ? alreadyAssignedTo(to.name) : ALREADY_UNASSIGNED, 'assignee')
    return {
      change: { assigneeId: to?.id ?? null },
      event: { kind: 'assign', data: { from: t.assignee, to } },
    }
  })
  if (done.ok)
    await watchOnWrite(tx, ticketId, actor, {
      actorWatches: false,
      assignee: done.ticket.assignee?.id ?? null,
    })
  return done
}

/** What one change to a ticket sets (besides `updated`) and the history event that records it. */
export interface OneChange {
  change: TicketChange
  event: NewHistoryEvent
}

/**
 * A change that editors and admins may make to one ticket: locks it, refuses a lesser role (403
 * naming `project`), then asks `decide` for the change or a refusal, writes it with its event,
 * marks the ticket updated and emits the event.
 */
export async function changeAsEditor(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticketId: string,
  decide: (t: LockedTicket) => Promise<OneChange | Refusal>,
): Promise<Changed> {
  const t = await lockFor(tx, ticketId, actor)
  const refused = refuseRole(t.role, EDIT, 'project')
  if (refused) return refused
  const decided = await decide(t)
  if (decided instanceof Refusal) return decided
  const change = { ...decided.change, updated: actor.now }
  const done = await changeAndEmit(tx, publicUrl, actor, t.id, change, [decided.event])
  return { ok: true, ticket: done.ticket, event: done.events[0]! }
}

/**
 * Edits subject and summary; the event keeps each changed field's previous value. With
 * `ifMatch` (the request's `If-Match`), only when it names the ticket's current `ETag`, else
 * 412: checked under the row's lock, after the role, so no other edit can come in between.
 */
export async function edit(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticketId: string,
  fields: { subject?: string; summary?: string },
  ifMatch: string | undefined,
): Promise<Changed> {
  const t = await lockFor(tx, ticketId, actor)
  // The interface answers `{ error }` without a field for a missing role here.
  const refused = refuseRole(t.role, EDIT)
  if (refused) return refused
  if (ifMatch !== undefined) {
    const current = ticketEtag(publicUrl, (await tx.tickets.byId(t.id))!, await tx.history.of(t.id))
    if (!matchesStrongly(ifMatch, current)) return refuse(412, EDIT_STALE)
  }
  if (fields.subject === undefined && fields.summary === undefined)
    return refuse(400, SUBJECT_OR_SUMMARY, 'subject')
  if (fields.subject !== undefined && fields.subject.trim() === '')
    return refuse(400, SUBJECT_EMPTY, 'subject')
  if (fields.subject !== undefined) fields = { ...fields, subject: fields.subject.trim() }
  const tooLong = lengthRefusal(fields)
  if (tooLong) return tooLong
  const data: Record<string, { from: string; to: string }> = {}
  if (fields.subject !== undefined && fields.subject !== t.subject)
    data.subject = { from: t.subject, to: fields.subject }
  if (fields.summary !== undefined && fields.summary !== t.summary)
    data.summary = { from: t.summary, to: fields.summary }
  if (Object.keys(data).length === 0)
    return refuse(400, NOTHING_CHANGED, fields.subject !== undefined ? 'subject' : 'summary')
  const change = {
    subject: fields.subject ?? t.subject,
    summary: fields.summary ?? t.summary,
    updated: actor.now,
  }
  const {
    ticket,
    events: [event],
  } = await changeAndEmit(tx, publicUrl, actor, t.id, change, [{ kind: 'edit', data }])
  await tx.emit(t.projectId, 'ticketsRelated', [
    ticketAnswers(publicUrl, await tx.tickets.related([t.id])),
  ])
  return { ok: true, ticket, event: event! }
}

/**
 * True when an `If-Match` field names `etag` by the strong comparison RFC 9110 section 13.1.1
 * asks of it: `*` (the ticket exists) or the same opaque tag, never a weak `W/` one.
 */
export function matchesStrongly(field: string, etag: string): boolean {
  return matches(field.replace(/W\/"[^"]*"/g, ''), etag)
}
