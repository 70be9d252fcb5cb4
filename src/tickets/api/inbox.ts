/**
 * The inbox (docs/tickets-api.md, 4.8, "GET /api/inbox"): tickets assigned to the caller,
 * `pending` in `open` or `doing`, `review` in `review`, most recently changed first.
 */
import { json, PRIVATE_NO_STORE } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import { ticketAnswers } from '../representations/json.ts'
import { answerRefusal } from '../../http/refusal.ts'
import type { Context } from '../context.ts'

export function createInboxHandler(ctx: Context): Handler {
  const { store, publicUrl } = ctx
  return async (req) => {
    const who = await ctx.credentials.resolve(req, 'user')
    if (!who.ok) return answerRefusal(who)
    const me = who.caller.user.id
    const pending = await store.tickets.assignedTo(me, ['open', 'doing'])
    const review = await store.tickets.assignedTo(me, ['review'])
    return json(
      200,
      { pending: ticketAnswers(publicUrl, pending), review: ticketAnswers(publicUrl, review) },
      PRIVATE_NO_STORE,
    )
  }
}
