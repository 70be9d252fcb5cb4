/**
 * The login return (docs/tickets-api.md, 4.10): exchanges the provider's code for an identity,
 * stores the user, joins an invite, and logs the session in with a fresh tag. Failures are HTML
 * pages `Login failed` or `Invite failed`. The provider is called outside any transaction.
 */
import { text } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import { safeNext } from '../../auth/idp.ts'
import { randomToken } from '../../base/random.ts'
import type { Context } from '../context.ts'
import { joinInvite } from '../domain/invites.ts'
import { messagePage } from '../pages/message-page.ts'
import { INVITE_FAILED, LOGIN_FAILED, NO_LOGIN_CODE, USER_NOT_STORED, GET_ONLY } from '../rules/messages.ts'
import type { User } from '../store/users.ts'

export function createLoginHandler(ctx: Context): Handler {
  return async (req) => {
    if (req.method !== 'GET') return messagePage(405, LOGIN_FAILED, GET_ONLY, { allow: 'GET' })
    const code = req.query.get('idp_code')
    if (!code) return messagePage(400, LOGIN_FAILED, NO_LOGIN_CODE)
    const exchanged = await ctx.idp.exchange(code)
    if (!exchanged.ok) return messagePage(400, LOGIN_FAILED, exchanged.message)

    let user: User
    try {
      user = await ctx.store.users.store(exchanged.identity)
    } catch (err) {
      ctx.logger.line(`tickets login: storing the user failed: ${err instanceof Error ? err.message : String(err)}`)
      return messagePage(500, LOGIN_FAILED, USER_NOT_STORED)
    }

    let target = safeNext(req.query.get('next'))
    // The project an invite was joined: its page welcomes the person once (pages/web.ts).
    let joinedSlug: string | null = null
    const invite = req.query.get('invite')
    if (invite) {
      const joined = await ctx.store.transact((tx) => joinInvite(tx, invite, user.id))
      if (!joined.ok) return messagePage(400, INVITE_FAILED, joined.message)
      target = `/${joined.slug}`
      joinedSlug = joined.slug
    }

    // Rule 6's session, under a fresh id: a cookie planted before the sign-in names nothing
    // after it, and the new session's cookie is sent as rule 7 says (docs/core.md).
    const session = ctx.sessions.renew((await ctx.sessions.load(req)) ?? ctx.sessions.create())
    session.userId = user.id
    session.data = { ...session.data, user: { id: user.id }, tag: randomToken(16), ...(joinedSlug !== null ? { joined: joinedSlug } : {}) }
    await ctx.sessions.save(session)
    const headers: Record<string, string> = { location: target, 'cache-control': 'no-store' }
    if (session.isNew) headers['set-cookie'] = ctx.sessions.cookie(session)
    return text(302, 'logged in', headers)
  }
}
