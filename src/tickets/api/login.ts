/**
 * The login return (docs/tickets-api.md, 4.10): exchanges the provider's code for an identity,
 * stores the user, joins an invite, and logs the session in with a fresh tag. Failures are HTML
 * pages `Login failed` or `Invite failed`. The provider is called outside any transaction.
 */
import { shownName } from '../../auth/shown-name.ts'
import { text } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import { safeNext } from '../../auth/idp.ts'
import { randomToken } from '../../base/random.ts'
import type { Context } from '../context.ts'
import { joinInvite } from '../domain/invites.ts'
import { refuse } from '../../http/refusal.ts'
import { refusalPage } from '../pages/message-page.ts'
import {
  INVITE_FAILED,
  LOGIN_FAILED,
  NO_LOGIN_CODE,
  USER_NOT_STORED,
  GET_ONLY,
} from '../rules/messages.ts'
import type { User } from '../store/users.ts'

export function createLoginHandler(ctx: Context): Handler {
  return async (req) => {
    if (req.method !== 'GET')
      return refusalPage(LOGIN_FAILED, refuse(405, GET_ONLY), { allow: 'GET' })
    const code = req.query.get('idp_code')
    if (!code) return refusalPage(LOGIN_FAILED, refuse(400, NO_LOGIN_CODE))
    const exchanged = await ctx.idp.exchange(code)
    if (!exchanged.ok) return refusalPage(LOGIN_FAILED, exchanged)

    let user: User
    try {
      user = await ctx.store.users.store(exchanged.identity)
    } catch (err) {
      ctx.logger.line(
        `tickets login: storing the user failed: ${err instanceof Error ? err.message : String(err)}`,
      )
      return refusalPage(LOGIN_FAILED, refuse(500, USER_NOT_STORED))
    }

    let target = safeNext(req.query.get('next'))
    // The project an invite was joined: its page welcomes the person once (pages/web.ts).
    let joinedSlug: string | null = null
    const invite = req.query.get('invite')
    if (invite) {
      const joined = await ctx.store.transact((tx) => joinInvite(tx, invite, user.id))
      if (!joined.ok) return refusalPage(INVITE_FAILED, joined)
      target = `/${joined.slug}`
      joinedSlug = joined.slug
    }

    // Rule 6's session. A sign-in that changes who it names gets a fresh id, so a cookie planted
    // before it names nothing after it, and the new session's cookie is sent; the same person
    // signing in again on their own session keeps its id and gets no Set-Cookie, as rule 7 says
    // (decisions, section 4; docs/core.md, "Sessions and credentials").
    const loaded = await ctx.sessions.load(req)
    const same = loaded !== null && loaded.userId === user.id
    const session = same ? loaded : ctx.sessions.renew(loaded ?? ctx.sessions.create())
    // A switch from one person to another is said on the next page (docs/core.md, "Login CSRF").
    const before = !same && loaded?.userId ? await ctx.store.users.byId(loaded.userId) : null
    session.userId = user.id
    session.data = {
      ...session.data,
      user: { id: user.id },
      tag: randomToken(16),
      switchedFrom: before ? shownName(before.name, loaded?.data.login) : null,
      login: exchanged.identity.login ?? null,
      owner: exchanged.identity.owner === true,
      // The provider's sign-in: signing out here ends it, and it ends this session (docs/core.md).
      idpSid: exchanged.identity.sid,
      ...(joinedSlug !== null ? { joined: joinedSlug } : {}),
    }
    await ctx.sessions.save(session)
    const headers: Record<string, string> = { location: target, 'cache-control': 'no-store' }
    if (session.isNew) headers['set-cookie'] = ctx.sessions.cookie(session)
    return text(302, 'logged in', headers)
  }
}
