/**
 * Creating a ticket (docs/tickets-api.md, 4.2): who may, what a new ticket holds, and what its
 * creation does. Numbers are per project, taken from the project's counter under the project
 * row's lock, so parallel creates never collide; a repeated non-empty `source` answers the ticket
 * that has it (`existed: true`). Called by the API.
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import { SOURCE_MAX, SUBJECT_MAX, SUMMARY_MAX } from '../rules/lengths.ts'
import { fieldTooLong } from '../rules/messages.ts'
import { refuseRole, type Role } from '../rules/roles.ts'
import { ticketAnswer } from '../representations/json.ts'
import type { Project } from '../store/projects.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { Ticket } from '../store/ticket-row.ts'
import { watchOnWrite } from './notifications.ts'

/** The role that may create tickets, comment and change a ticket's state. */
export const USE: Role = 'use'
/** The role that may also assign, edit and relate tickets. */
export const EDIT: Role = 'edit'

/** What a request asks a new ticket to be. */
export interface NewTicket {
  subject: string
  summary: string
  source: string
  /** A user reference among the project's members; empty for nobody. */
  assignee: string
}

export type Created = { ok: true; ticket: Ticket; existed: boolean } | Refusal

/** Refuses a subject, summary or source over its length limit. */
export function lengthRefusal(input: {
  subject?: string
  summary?: string
  source?: string
}): Refusal | null {
  if (input.subject !== undefined && input.subject.length > SUBJECT_MAX)
    return refuse(400, fieldTooLong('subject', SUBJECT_MAX), 'subject')
  if (input.summary !== undefined && input.summary.length > SUMMARY_MAX)
    return refuse(400, fieldTooLong('summary', SUMMARY_MAX), 'summary')
  if (input.source !== undefined && input.source.length > SOURCE_MAX)
    return refuse(400, fieldTooLong('source', SOURCE_MAX), 'source')
  return null
}

/**
 * True for a required text of white space only: refused as the body check refuses an empty one
 * (docs/tickets-api.md, "Conventions"), so a ticket never has a blank subject nor a blank comment.
 */
export function isBlank(text: string | undefined): boolean {
  return text !== undefined && text.trim() === ''
}

/**
 * Creates a ticket in `project` by `actor` (or finds the one with the same `source`); emits
 * `ticketCreated` with the ticket as answers show it (its page under `publicUrl`) when new.
 * Checks, in the interface's order: the role, the source, the lengths, the assignee.
 */
export async function createTicket(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  project: Project,
  input: NewTicket,
): Promise<Created> {
  const fields = {
    projectId: project.id,
    subject: input.subject,
    summary: input.summary,
    source: input.source,
  }
  if (input.source === '' && input.assignee === '' && lengthRefusal(input) === null) {
    // The common create: nothing to check but the role, which the store checks as it writes.
    const written = await tx.tickets.insertAsMember(actor, { ...fields, assigneeId: null }, USE)
    return written.ok
      ? created(tx, publicUrl, actor, written.ticket)
      : refuseRole(written.role, USE, 'project')!
  }
  // The lock makes the source check and the number one step for this project.
  const refused = refuseRole(
    await tx.projects.lockedRole(project.id, actor.user.id),
    USE,
    'project',
  )
  if (refused) return refused
  if (input.source !== '') {
    const existing = await tx.tickets.bySource(project.id, input.source)
    if (existing) return { ok: true, ticket: existing, existed: true }
  }
  const tooLong = lengthRefusal(input)
  if (tooLong) return tooLong
  let assigneeId: string | null = null
  if (input.assignee !== '') {
    const found = await tx.users.resolve(input.assignee, 'assignee', project.id)
    if (!found.ok) return found
    assigneeId = found.user.id
  }
  return created(tx, publicUrl, actor, (await tx.tickets.insert(actor, { ...fields, assigneeId }))!)
}

/** A new ticket's answer, its `ticketCreated` emitted; its author and assignee watch it. */
async function created(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticket: Ticket,
): Promise<Created> {
  await tx.emit(ticket.project, 'ticketCreated', [ticketAnswer(publicUrl, ticket)])
  await watchOnWrite(tx, ticket.id, actor, {
    actorWatches: true,
    assignee: ticket.assignee?.id ?? null,
  })
  return { ok: true, ticket, existed: false }
}
