/**
 * Relations between tickets (docs/tickets-api.md, 4.7): a parent, and blockers. The caller needs
 * `edit` or `admin` in both tickets' projects. No ticket may be its own parent or ancestor, nor
 * block itself, nor close a blocked-by cycle of any length. Relation
 * changes take one transaction-scoped advisory lock, so two concurrent changes cannot close a
 * cycle between them.
 */
import type { TransactionSql } from '../db.ts'
import { json } from '../response.ts'
import type { Handler } from '../handler.ts'
import type { Context, Emit } from './context.ts'
import { answerRefusal, refuse, type Refusal } from './refusal.ts'
import { refuseRole } from './roles.ts'
import { roleOf } from './store/projects.ts'
import { NO_SUCH_TICKET, hasNoParent, OWN_PARENT, alreadyParent, ownAncestor, notBlockedBy, BLOCKS_ITSELF, alreadyBlockedBy, blockedByCycle, ADD_OR_REMOVE } from './messages.ts'
import { ticketAnswer, ticketAnswers, type TicketAnswer } from './answers.ts'
import { addEvent, type TicketEvent } from './store/history.ts'
import { addBlocker, blocks, isAncestorOrSelf, isBlockedBy, lockRelations, removeBlocker } from './store/relations.ts'
import { parentOf, relatedTickets, ticketById, ticketByName, updateTicket, type Ticket } from './store/tickets.ts'
import { ticketOfPath } from './tickets.ts'
import type { User } from './store/users.ts'
import { acceptWrite } from './write.ts'

export type Linked = { ok: true; ticket: TicketAnswer; event: TicketEvent } | Refusal

interface LinkContext {
  user: User
  now: number
  publicUrl: string
}

/** Refuses a caller without `edit` in either ticket's project; `{ error }` without a field. */
async function refuseEither(tx: TransactionSql, userId: string, a: Ticket, b: Ticket | null): Promise<Refusal | null> {
  for (const projectId of new Set([a.project, b?.project ?? a.project])) {
    const refused = refuseRole(await roleOf(tx, projectId, userId), 'edit')
    if (refused) return refused
  }
  return null
}

/** Sets (`parent` not null) or removes the parent of `ticket`. */
export async function setParent(tx: TransactionSql, emit: Emit, ctx: LinkContext, ticket: Ticket, parent: Ticket | null): Promise<Linked> {
  await lockRelations(tx)
  const refused = await refuseEither(tx, ctx.user.id, ticket, parent)
  if (refused) return refused
  const current = await parentOf(tx, ticket.id)
  if (parent === null) {
    if (current === null) return refuse(400, hasNoParent(ticket.ref), 'parent')
  } else {
    if (parent.id === ticket.id) return refuse(400, OWN_PARENT, 'parent')
    if (parent.id === current) return refuse(400, alreadyParent(parent.ref, ticket.ref), 'parent')
    if (await isAncestorOrSelf(tx, ticket.id, parent.id)) return refuse(400, ownAncestor(parent.ref, ticket.ref), 'parent')
  }
  await updateTicket(tx, ticket.id, { parentId: parent?.id ?? null, updated: ctx.now })
  const other = parent ?? (await ticketById(tx, current!))!
  const data = { relation: 'parent', action: parent ? 'set' : 'removed', ticket: { id: other.id, ref: other.ref } }
  return finish(tx, emit, ctx, ticket, data, [ticket.id, other.id, ...(current ? [current] : [])])
}

/** Adds or removes `blocker` as a blocker of `ticket`. */
export async function changeBlocker(tx: TransactionSql, emit: Emit, ctx: LinkContext, ticket: Ticket, blocker: Ticket, action: 'add' | 'remove'): Promise<Linked> {
  await lockRelations(tx)
  const refused = await refuseEither(tx, ctx.user.id, ticket, blocker)
  if (refused) return refused
  const existing = await isBlockedBy(tx, ticket.id, blocker.id)
  if (action === 'remove') {
    if (!existing) return refuse(400, notBlockedBy(ticket.ref, blocker.ref), 'remove')
    await removeBlocker(tx, ticket.id, blocker.id)
  } else {
    if (blocker.id === ticket.id) return refuse(400, BLOCKS_ITSELF, 'add')
    if (existing) return refuse(400, alreadyBlockedBy(ticket.ref, blocker.ref), 'add')
    // A cycle closes when `ticket` already blocks `blocker`, directly or through others.
    if (await blocks(tx, ticket.id, blocker.id)) return refuse(400, blockedByCycle(blocker.ref, ticket.ref), 'add')
    await addBlocker(tx, ticket.id, blocker.id)
  }
  await updateTicket(tx, ticket.id, { updated: ctx.now })
  const data = { relation: 'blocked-by', action: action === 'add' ? 'added' : 'removed', ticket: { id: blocker.id, ref: blocker.ref } }
  return finish(tx, emit, ctx, ticket, data, [ticket.id, blocker.id])
}

/** Records the `link` event and emits it with the related views of every ticket involved. */
async function finish(tx: TransactionSql, emit: Emit, ctx: LinkContext, ticket: Ticket, data: Record<string, unknown>, involved: string[]): Promise<Linked> {
  const event = await addEvent(tx, ticket.id, 'link', ctx.user, data, ctx.now)
  const view = ticketAnswer(ctx.publicUrl, (await ticketById(tx, ticket.id))!)
  await emit(ticket.project, 'ticketEvent', [ticket.id, event, view])
  await emit(ticket.project, 'ticketsRelated', [ticketAnswers(ctx.publicUrl, await relatedTickets(tx, involved))])
  return { ok: true, ticket: view, event }
}

export interface RelationHandlers {
  parent: Handler
  blockedBy: Handler
}

export function relationHandlers(ctx: Context): RelationHandlers {
  const { sql, publicUrl } = ctx
  const missing = (field: string) => answerRefusal(refuse(404, NO_SUCH_TICKET, field))
  const answer = (result: Linked) => (result.ok ? json(201, { ticket: result.ticket, event: result.event }) : answerRefusal(result))

  return {
    async parent(req) {
      const w = await acceptWrite(ctx, req, 'user', { parent: 'present' })
      if (!w.ok) return w.response
      const ticket = await ticketOfPath(sql, req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const name = w.body.parent!
      const parent = name === '' ? null : await ticketByName(sql, name)
      if (name !== '' && parent === null) return missing('parent')
      const link = { user: w.caller.user, now: ctx.clock(), publicUrl }
      return answer(await ctx.transact((tx, emit) => setParent(tx, emit, link, ticket, parent)))
    },
    async blockedBy(req) {
      const w = await acceptWrite(ctx, req, 'user', { add: 'optional', remove: 'optional' })
      if (!w.ok) return w.response
      const { add, remove } = w.body
      if (!add === !remove) {
        const field = add ? 'remove' : 'add'
        return answerRefusal(refuse(400, ADD_OR_REMOVE, field))
      }
      const ticket = await ticketOfPath(sql, req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const field = add ? 'add' : 'remove'
      const blocker = await ticketByName(sql, (add || remove)!)
      if (!blocker) return missing(field)
      const link = { user: w.caller.user, now: ctx.clock(), publicUrl }
      return answer(await ctx.transact((tx, emit) => changeBlocker(tx, emit, link, ticket, blocker, field)))
    },
  }
}
