/**
 * Relations between tickets (docs/tickets-api.md, 4.7): a parent, and blockers. The caller needs
 * `edit` or `admin` in both tickets' projects. No ticket may be its own parent or ancestor, nor
 * block itself, nor close a blocked-by cycle of any length. Relation
 * changes take one transaction-scoped advisory lock, so two concurrent changes cannot close a
 * cycle between them.
 */
import { json, type Response } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Actor } from '../rules/actor.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse, type Refusal } from '../../http/refusal.ts'
import { refuseRole } from '../rules/roles.ts'
import {
  ADD_OR_REMOVE, alreadyBlockedBy, alreadyParent, blockedByCycle, BLOCKS_ITSELF, hasNoParent, NO_SUCH_TICKET, notATicket, notBlockedBy, OWN_PARENT, ownAncestor,
} from '../rules/messages.ts'
import { ticketAnswer, ticketAnswers, type TicketAnswer } from '../representations/json.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { Ticket } from '../store/ticket-row.ts'
import { acceptWrite } from './accept-write.ts'
import { readTicketReference } from '../rules/ticket-reference.ts'

const isTicket = (found: Ticket | Response): found is Ticket => 'ref' in found

type Linked = { ok: true; ticket: TicketAnswer; event: TicketEvent } | Refusal

/** Refuses a caller without `edit` in either ticket's project; `{ error }` without a field. */
async function refuseEither(tx: TicketTx, userId: string, a: Ticket, b: Ticket | null): Promise<Refusal | null> {
  for (const projectId of new Set([a.project, b?.project ?? a.project])) {
    const refused = refuseRole(await tx.projects.roleOf(projectId, userId), 'edit')
    if (refused) return refused
  }
  return null
}

export interface RelationHandlers {
  parent: Handler
  blockedBy: Handler
}

export function createRelationHandlers(ctx: Context): RelationHandlers {
  const { store, publicUrl } = ctx
  const missing = (field: string) => answerRefusal(refuse(404, NO_SUCH_TICKET, field))

  /**
   * The ticket `name` names beside `ticket` (a bare number is one of its project), or the
   * answer: 400 for text that names no ticket, 404 `no such ticket` for one that does not exist.
   */
  async function related(name: string, ticket: Ticket, field: string): Promise<Ticket | Response> {
    const ref = readTicketReference(name, ticket.project, publicUrl)
    if (ref.kind === 'none') return answerRefusal(refuse(400, notATicket(name.trim()), field))
    return (await store.tickets.byReference(ref)) ?? missing(field)
  }
  const answer = (result: Linked) => (result.ok ? json(201, { ticket: result.ticket, event: result.event }) : answerRefusal(result))

  /** Sets (`parent` not null) or removes the parent of `ticket`. */
  async function setParent(tx: TicketTx, actor: Actor, ticket: Ticket, parent: Ticket | null): Promise<Linked> {
    await tx.relations.lock()
    const refused = await refuseEither(tx, actor.user.id, ticket, parent)
    if (refused) return refused
    const current = await tx.tickets.parentOf(ticket.id)
    if (parent === null) {
      if (current === null) return refuse(400, hasNoParent(ticket.ref), 'parent')
    } else {
      if (parent.id === ticket.id) return refuse(400, OWN_PARENT, 'parent')
      if (parent.id === current) return refuse(400, alreadyParent(parent.ref, ticket.ref), 'parent')
      if (await tx.relations.isAncestorOrSelf(ticket.id, parent.id)) return refuse(400, ownAncestor(parent.ref, ticket.ref), 'parent')
    }
    await tx.tickets.update(ticket.id, { parentId: parent?.id ?? null, updated: actor.now })
    const other = parent ?? (await tx.tickets.byId(current!))!
    const data = { relation: 'parent', action: parent ? 'set' : 'removed', ticket: { id: other.id, ref: other.ref } }
    return finish(tx, actor, ticket, data, [ticket.id, other.id, ...(current ? [current] : [])])
  }

  /** Adds or removes `blocker` as a blocker of `ticket`. */
  async function changeBlocker(tx: TicketTx, actor: Actor, ticket: Ticket, blocker: Ticket, action: 'add' | 'remove'): Promise<Linked> {
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
      if (await tx.relations.blocks(ticket.id, blocker.id)) return refuse(400, blockedByCycle(blocker.ref, ticket.ref), 'add')
      await tx.relations.addBlocker(ticket.id, blocker.id)
    }
    await tx.tickets.update(ticket.id, { updated: actor.now })
    const data = { relation: 'blocked-by', action: action === 'add' ? 'added' : 'removed', ticket: { id: blocker.id, ref: blocker.ref } }
    return finish(tx, actor, ticket, data, [ticket.id, blocker.id])
  }

  /** Records the `link` event and emits it with the related views of every ticket involved. */
  async function finish(tx: TicketTx, actor: Actor, ticket: Ticket, data: Record<string, unknown>, involved: string[]): Promise<Linked> {
    const event = await tx.history.add(ticket.id, 'link', actor, data)
    const view = ticketAnswer(publicUrl, (await tx.tickets.byId(ticket.id))!)
    await tx.emit(ticket.project, 'ticketEvent', [ticket.id, event, view])
    await tx.emit(ticket.project, 'ticketsRelated', [ticketAnswers(publicUrl, await tx.tickets.related(involved))])
    return { ok: true, ticket: view, event }
  }

  return {
    async parent(req) {
      const w = await acceptWrite(ctx, req, 'user', { parent: 'present' })
      if (!w.ok) return answerRefusal(w)
      const ticket = await store.tickets.byPath(req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const name = w.body.parent!
      const parent = name.trim() === '' ? null : await related(name, ticket, 'parent')
      if (parent !== null && !isTicket(parent)) return parent
      const actor: Actor = { user: w.caller.user, app: null, now: ctx.clock() }
      return answer(await store.transact((tx) => setParent(tx, actor, ticket, parent)))
    },
    async blockedBy(req) {
      const w = await acceptWrite(ctx, req, 'user', { add: 'optional', remove: 'optional' })
      if (!w.ok) return answerRefusal(w)
      const { add, remove } = w.body
      if (!add === !remove) {
        const field = add ? 'remove' : 'add'
        return answerRefusal(refuse(400, ADD_OR_REMOVE, field))
      }
      const ticket = await store.tickets.byPath(req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const field = add ? 'add' : 'remove'
      const blocker = await related((add || remove)!, ticket, field)
      if (!isTicket(blocker)) return blocker
      const actor: Actor = { user: w.caller.user, app: null, now: ctx.clock() }
      return answer(await store.transact((tx) => changeBlocker(tx, actor, ticket, blocker, field)))
    },
  }
}
