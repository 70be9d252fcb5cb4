/**
 * Relations between tickets (tickets-interface.md 4.7): a parent, and blockers. The caller needs
 * `edit` or `admin` in both tickets' projects. No ticket may be its own parent or ancestor, nor
 * block itself, nor close a blocked-by cycle of any length (decisions.md section 6). Relation
 * changes take one transaction-scoped advisory lock, so two concurrent changes cannot close a
 * cycle between them.
 */
import type { TransactionSql } from '../db.ts'
import { json, type Handler } from '../http.ts'
import type { Context, Emit, Query } from './context.ts'
import { answerDenied, deny, type Denied } from './denied.ts'
import { isUuid, parseNumber } from './ids.ts'
import { refuseRole, roleOf } from './roles.ts'
import { NO_SUCH_TICKET } from './texts.ts'
import { ticketOfPath } from './tickets.ts'
import type { User } from './users.ts'
import { addEvent, relatedViews, selectTickets, ticketById, type Ticket, type TicketEvent } from './views.ts'
import { acceptWrite } from './write.ts'

// Any constant will do, as long as it differs from the migrations' lock.
const RELATIONS_LOCK = 4_711_043

/** The ticket a relation names: `<project>#<number>` (slug, old slug or id) or a UUID. */
export async function relatedTicket(q: Query, publicUrl: string, name: string): Promise<Ticket | null> {
  if (isUuid(name)) return ticketById(q, publicUrl, name.toLowerCase())
  const hash = name.lastIndexOf('#')
  if (hash <= 0) return null
  const number = parseNumber(name.slice(hash + 1))
  if (number === null) return null
  const [ticket] = await selectTickets(q, publicUrl, q`
    t.number = ${number} and t.project_id = (select project_id from project_names where name = ${name.slice(0, hash)})`)
  return ticket ?? null
}

export type Linked = { ok: true; ticket: Ticket; event: TicketEvent } | Denied

interface LinkContext {
  user: User
  now: number
  publicUrl: string
}

/** Refuses a caller without `edit` in either ticket's project; `{ error }` without a field. */
async function refuseEither(tx: TransactionSql, userId: string, a: Ticket, b: Ticket | null): Promise<Denied | null> {
  for (const projectId of new Set([a.project, b?.project ?? a.project])) {
    const denied = refuseRole(await roleOf(tx, projectId, userId), 'edit')
    if (denied) return denied
  }
  return null
}

/** Sets (`parent` not null) or removes the parent of `ticket`. */
export async function setParent(tx: TransactionSql, emit: Emit, ctx: LinkContext, ticket: Ticket, parent: Ticket | null): Promise<Linked> {
  await tx`select pg_advisory_xact_lock(${RELATIONS_LOCK})`
  const denied = await refuseEither(tx, ctx.user.id, ticket, parent)
  if (denied) return denied
  const [row] = await tx`select parent_id from tickets where id = ${ticket.id}`
  const current = (row!.parent_id as string | null) ?? null
  if (parent === null) {
    if (current === null) return deny(400, `${ticket.ref} has no parent`, 'parent')
  } else {
    if (parent.id === ticket.id) return deny(400, 'a ticket cannot be its own parent', 'parent')
    if (parent.id === current) return deny(400, `${parent.ref} is already the parent of ${ticket.ref}`, 'parent')
    const [cycle] = await tx`
      with recursive up(id) as (
        select parent_id from tickets where id = ${parent.id}
        union
        select t.parent_id from tickets t join up on t.id = up.id
      )
      select 1 from up where id = ${ticket.id}`
    if (cycle) return deny(400, `${parent.ref} is under ${ticket.ref}: a ticket cannot be its own ancestor`, 'parent')
  }
  await tx`update tickets set parent_id = ${parent?.id ?? null}, updated = ${ctx.now} where id = ${ticket.id}`
  const other = parent ?? (await ticketById(tx, ctx.publicUrl, current!))!
  const data = { relation: 'parent', action: parent ? 'set' : 'removed', ticket: { id: other.id, ref: other.ref } }
  return finish(tx, emit, ctx, ticket, data, [ticket.id, other.id, ...(current ? [current] : [])])
}

/** Adds or removes `blocker` as a blocker of `ticket`. */
export async function changeBlocker(tx: TransactionSql, emit: Emit, ctx: LinkContext, ticket: Ticket, blocker: Ticket, action: 'add' | 'remove'): Promise<Linked> {
  await tx`select pg_advisory_xact_lock(${RELATIONS_LOCK})`
  const denied = await refuseEither(tx, ctx.user.id, ticket, blocker)
  if (denied) return denied
  const [existing] = await tx`select 1 from blockers where ticket_id = ${ticket.id} and blocker_id = ${blocker.id}`
  if (action === 'remove') {
    if (!existing) return deny(400, `${ticket.ref} is not blocked by ${blocker.ref}`, 'remove')
    await tx`delete from blockers where ticket_id = ${ticket.id} and blocker_id = ${blocker.id}`
  } else {
    if (blocker.id === ticket.id) return deny(400, 'a ticket cannot block itself', 'add')
    if (existing) return deny(400, `${ticket.ref} is already blocked by ${blocker.ref}`, 'add')
    // A cycle closes when `ticket` already blocks `blocker`, directly or through others.
    const [cycle] = await tx`
      with recursive chain(id) as (
        select blocker_id from blockers where ticket_id = ${blocker.id}
        union
        select b.blocker_id from blockers b join chain c on b.ticket_id = c.id
      )
      select 1 from chain where id = ${ticket.id}`
    if (cycle) return deny(400, `${blocker.ref} already waits for ${ticket.ref}: that would make a blocked-by cycle`, 'add')
    await tx`insert into blockers (ticket_id, blocker_id) values (${ticket.id}, ${blocker.id})`
  }
  await tx`update tickets set updated = ${ctx.now} where id = ${ticket.id}`
  const data = { relation: 'blocked-by', action: action === 'add' ? 'added' : 'removed', ticket: { id: blocker.id, ref: blocker.ref } }
  return finish(tx, emit, ctx, ticket, data, [ticket.id, blocker.id])
}

/** Records the `link` event and emits it with the related views of every ticket involved. */
async function finish(tx: TransactionSql, emit: Emit, ctx: LinkContext, ticket: Ticket, data: Record<string, unknown>, involved: string[]): Promise<Linked> {
  const event = await addEvent(tx, ticket.id, 'link', ctx.user, data, ctx.now)
  const view = (await ticketById(tx, ctx.publicUrl, ticket.id))!
  await emit(ticket.project, 'ticketEvent', [ticket.id, event, view])
  await emit(ticket.project, 'ticketsRelated', [await relatedViews(tx, ctx.publicUrl, involved)])
  return { ok: true, ticket: view, event }
}

export interface RelationHandlers {
  parent: Handler
  blockedBy: Handler
}

export function relationHandlers(ctx: Context): RelationHandlers {
  const { sql, publicUrl } = ctx
  const missing = (field: string) => answerDenied(deny(404, NO_SUCH_TICKET, field))
  const answer = (result: Linked) => (result.ok ? json(201, { ticket: result.ticket, event: result.event }) : answerDenied(result))

  return {
    async parent(req) {
      const w = await acceptWrite(ctx, req, 'B', { parent: 'present' })
      if (!w.ok) return w.response
      const ticket = await ticketOfPath(sql, publicUrl, req.params)
      if (!ticket) return answerDenied(deny(404, NO_SUCH_TICKET))
      const name = w.body.parent!
      const parent = name === '' ? null : await relatedTicket(sql, publicUrl, name)
      if (name !== '' && parent === null) return missing('parent')
      const link = { user: w.caller.user, now: ctx.clock(), publicUrl }
      return answer(await ctx.transact((tx, emit) => setParent(tx, emit, link, ticket, parent)))
    },
    async blockedBy(req) {
      const w = await acceptWrite(ctx, req, 'B', { add: 'optional', remove: 'optional' })
      if (!w.ok) return w.response
      const { add, remove } = w.body
      if (!add === !remove) {
        const field = add ? 'remove' : 'add'
        return answerDenied(deny(400, "give exactly one of 'add' or 'remove'", field))
      }
      const ticket = await ticketOfPath(sql, publicUrl, req.params)
      if (!ticket) return answerDenied(deny(404, NO_SUCH_TICKET))
      const field = add ? 'add' : 'remove'
      const blocker = await relatedTicket(sql, publicUrl, (add || remove)!)
      if (!blocker) return missing(field)
      const link = { user: w.caller.user, now: ctx.clock(), publicUrl }
      return answer(await ctx.transact((tx, emit) => changeBlocker(tx, emit, link, ticket, blocker, field)))
    },
  }
}
