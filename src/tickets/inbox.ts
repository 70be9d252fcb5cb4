/**
 * The inbox (tickets-interface.md 4.8, decisions.md section 6): tickets assigned to the caller,
 * `pending` in `open` or `doing`, `review` in `review`, most recently changed first.
 */
import { json, type Handler } from '../http.ts'
import type { Context } from './context.ts'
import { selectTickets } from './views.ts'

export function inboxHandler(ctx: Context): Handler {
  const { sql, publicUrl } = ctx
  return async (req) => {
    const who = await ctx.credentials.resolve(req, 'B')
    if (!who.ok) return who.response
    const me = who.caller.user.id
    const newest = sql`t.updated desc, t.created desc`
    const pending = await selectTickets(sql, publicUrl, sql`t.assignee_id = ${me} and t.state in ('open', 'doing')`, newest)
    const review = await selectTickets(sql, publicUrl, sql`t.assignee_id = ${me} and t.state = 'review'`, newest)
    return json(200, { pending, review })
  }
}
