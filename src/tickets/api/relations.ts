/**
 * The routes of relations between tickets (docs/tickets-api.md, 4.7): a parent, and blockers.
 * Each reads its request and hands the change to the domain (src/tickets/domain/relations.ts).
 */
import { json, type Response } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Actor } from '../rules/actor.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import { ADD_OR_REMOVE, NO_SUCH_TICKET, notATicket } from '../rules/messages.ts'
import type { Ticket } from '../store/ticket-row.ts'
import { changeBlocker, setParent, type Linked } from '../domain/relations.ts'
import { acceptWrite } from './accept-write.ts'
import { readTicketReference } from '../rules/ticket-reference.ts'

const isTicket = (found: Ticket | Response): found is Ticket => 'ref' in found

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
  const answer = (result: Linked) =>
    result.ok ? json(201, { ticket: result.ticket, event: result.event }) : answerRefusal(result)

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
      return answer(await store.transact((tx) => setParent(tx, publicUrl, actor, ticket, parent)))
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
      return answer(
        await store.transact((tx) => changeBlocker(tx, publicUrl, actor, ticket, blocker, field)),
      )
    },
  }
}
