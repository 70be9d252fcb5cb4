/**
 * The routes of changes to a ticket (docs/tickets-api.md, 4.3 to 4.6): comment, state change,
 * assign and edit. Each reads its request in the interface's order of checks and hands the change
 * to the domain (src/tickets/domain/changes.ts), which decides who may and what it does.
 */
import { json, type Response } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import type { Actor } from '../rules/actor.ts'
import type { Callers } from '../credentials.ts'
import type { Body, Shape } from '../rules/body.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import { fieldRequired, NO_SUCH_TICKET } from '../rules/messages.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import { assign, changeState, comment, edit, type Changed } from '../domain/changes.ts'
import { isBlank } from '../domain/tickets.ts'
import { acceptWrite } from './accept-write.ts'

export interface ChangeHandlers {
  comment: Handler
  state: Handler
  assign: Handler
  edit: Handler
}

type Change = (
  tx: TicketTx,
  actor: Actor,
  ticketId: string,
  body: Body,
  req: Request,
) => Promise<Changed>

export function createChangeHandlers(ctx: Context): ChangeHandlers {
  const { store, publicUrl } = ctx

  /** 405 was the router's; then credential, body, ticket (404), acting user, and the change. */
  function route(
    callers: Callers,
    shape: Shape,
    run: Change,
    notBlank: readonly string[] = [],
  ): Handler {
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
    comment: route(
      'user-or-key',
      { text: 'required' },
      (tx, actor, id, body) => comment(tx, publicUrl, actor, id, body.text!),
      ['text'],
    ),
    state: route('user-or-key', { state: 'required', text: 'optional' }, (tx, actor, id, body) =>
      changeState(tx, publicUrl, actor, id, body.state!, body.text ?? ''),
    ),
    assign: route('user', { assignee: 'present' }, (tx, actor, id, body) =>
      assign(tx, publicUrl, actor, id, body.assignee!),
    ),
    edit: route('user', { subject: 'optional', summary: 'optional' }, (tx, actor, id, body, req) =>
      edit(
        tx,
        publicUrl,
        actor,
        id,
        { subject: body.subject, summary: body.summary },
        req.headers['if-match'],
      ),
    ),
  }
}
