/**
 * Relations between tickets (docs/tickets-api.md, 4.7): a parent, and blockers. The caller needs
 * `edit` or `admin` in both tickets' projects. No ticket may be its own parent or ancestor, nor
 * block itself, nor close a blocked-by cycle of any length. Relation changes take one
 * transaction-scoped advisory lock, so two concurrent changes cannot close a cycle between them.
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import {
  alreadyBlockedBy,
  alreadyParent,
  blockedByCycle,
  BLOCKS_ITSELF,
  hasNoParent,
  notBlockedBy,
  OWN_PARENT,
  ownAncestor,
} from '../rules/messages.ts'
import { refuseRole } from '../rules/roles.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import { ticketAnswer, ticketAnswers, type TicketAnswer } from '../representations/json.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { Ticket } from '../store/ticket-row.ts'
import { EDIT } from './tickets.ts'

export type Linked = { ok: true; ticket: TicketAnswer; event: TicketEvent } | Refusal

/** Refuses a caller without `edit` in either ticket's project; `{ error }` without a field. */
async function refuseEither(
  tx: TicketTx,
  userId: string,
  a: Ticket,
  b: Ticket | null,
): Promise<Refusal | null> {
  for (const projectId of new Set([a.project, b?.project ?? a.project])) {
    const refused = refuseRole(await tx.projects.roleOf(projectId, userId), EDIT)
    if (refused) return refused
  }
  return null
}

/** Sets (`parent` not null) or removes the parent of `ticket`. */
export async function setParent(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticket: Ticket,
  parent: Ticket | null,
): Promise<Linked> {
  await tx.relations.lock()
  const refused = await refuseEither(tx, actor.user.id, ticket, parent)
  if (refused) return refused
  const current = await tx.tickets.parentOf(ticket.id)
  if (parent === null) {
    if (current === null) return refuse(400, hasNoParent(ticket.ref), 'parent')
  } else {
    if (parent.id === ticket.id) return refuse(400, OWN_PARENT, 'parent')
    if (parent.id === current) return refuse(400, alreadyParent(parent.ref, ticket.ref), 'parent')
    if (await tx.relations.isAncestorOrSelf(ticket.id, parent.id))
      return refuse(400, ownAncestor(parent.ref, ticket.ref), 'parent')
  }
  await tx.tickets.update(ticket.id, { parentId: parent?.id ?? null, updated: actor.now })
  const other = parent ?? (await tx.tickets.byId(current!))!
  const data = {
    relation: 'parent',
    action: parent ? 'set' : 'removed',
    ticket: { id: other.id, ref: other.ref },
  }
  return finish(tx, publicUrl, actor, ticket, data, [
    ticket.id,
    other.id,
    ...(current ? [current] : []),
  ])
}

/** Adds or removes `blocker` as a blocker of `ticket`. */
export async function changeBlocker(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticket: Ticket,
  blocker: Ticket,
  action: 'add' | 'remove',
): Promise<Linked> {
  await tx.relations.lock()
  const refused = await refuseEither(tx, actor.user.id, ticket, blocker)
  if (refused) return refused
  const existing = await tx.relations.isBlockedBy(ticket.id, blocker.id)
  if (action === 'remove') {
    if (!existing) return refuse(400, notBlockedBy(ticket.ref, blocker.ref), 'remove')
    await tx.relations.removeBlocker(ticket.id, blocker.id)
  } else {
    if (blocker.id === ticket.id) return refuse(400, BLOCKS_ITSELF, 'add')
    if (existing) return refuse(400, alreadyBlockedBy(ticket.ref, blocker.ref), 'add')
    // A cycle closes when `ticket` already blocks `blocker`, directly or through others.
    if (await tx.relations.blocks(ticket.id, blocker.id))
      return refuse(400, blockedByCycle(blocker.ref, ticket.ref), 'add')
    await tx.relations.addBlocker(ticket.id, blocker.id)
  }
  await tx.tickets.update(ticket.id, { updated: actor.now })
  const data = {
    relation: 'blocked-by',
    action: action === 'add' ? 'added' : 'removed',
    ticket: { id: blocker.id, ref: blocker.ref },
  }
  return finish(tx, publicUrl, actor, ticket, data, [ticket.id, blocker.id])
}

/** Records the `link` event and emits it with the related views of every ticket involved. */
async function finish(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticket: Ticket,
  data: Record<string, unknown>,
  involved: string[],
): Promise<Linked> {
  const event = await tx.history.add(ticket.id, 'link', actor, data)
  const view = ticketAnswer(publicUrl, (await tx.tickets.byId(ticket.id))!)
  await tx.emit(ticket.project, 'ticketEvent', [ticket.id, event, view])
  await tx.emit(ticket.project, 'ticketsRelated', [
    ticketAnswers(publicUrl, await tx.tickets.related(involved)),
  ])
  return { ok: true, ticket: view, event }
}
