/**
 * Signing in to the notes service (docs/notes-api.md, "Signing in"): the login
 * button's target, the identity provider's return point, and the failure page.
 */
import { shownName } from '../auth/shown-name.ts'
import { htmlResponse } from '../http/html.ts'
import { ERROR_CODE, refuse, type Refusal } from '../http/refusal.ts'
import { PRIVATE_NO_STORE, redirect, type Response } from '../http/response.ts'
import type { Request } from '../http/request.ts'
import { loginButtonUrl, safeNext, type IdentityProvider } from '../auth/idp.ts'
import type { Session, Sessions } from '../auth/session.ts'
import { randomToken } from '../base/random.ts'
import { LOGIN } from './messages.ts'
import { loginFailedPage } from './pages.ts'

const NO_STORE = { 'cache-control': 'no-store' }

export interface LoginHandlers {
  /** `GET /login?next=<path>`: to the provider's login address, returning to the callback. */
  login(req: Request): Response
  /** `GET /login/callback` (docs/notes-api.md, "Signing in"). */
  callback(req: Request): Promise<Response>
  /** `GET /login/failed` (docs/notes-api.md, "Signing in"). */
  failed(req: Request): Promise<Response>
}

export function createLoginHandlers(deps: {
  idp: IdentityProvider
  sessions: Sessions
  publicUrl: string
  /** Keeps the names each sign-in gives (src/notes/shares.ts), by which people share notes. */
  people?: { seen(user: string, name: string, login: string | null): Promise<void> }
}): LoginHandlers {
  const { idp, sessions, publicUrl } = deps

  /**
   * Rule 6: a refused sign-in's message goes into the session, then the 302 to the failure page,
   * with the refusal's code in its header.
   */
  async function failure(req: Request, refusal: Refusal): Promise<Response> {
    const session = (await sessions.load(req)) ?? sessions.create()
    // `loginError` is the interface's (its message); the code beside it for the failure page.
    session.data.loginError = refusal.message
    session.data.loginErrorCode = refusal.code
    return answer(session, '/login/failed', LOGIN.failed(refusal.message), {
      [ERROR_CODE]: refusal.code,
    })
  }

  /** Rules 5 to 7: saves the session, then the 302, with `Set-Cookie` for a new session. */
  async function answer(
    session: Session,
    location: string,
    body: string,
    extra: Record<string, string> = {},
  ): Promise<Response> {
    const isNew = session.isNew
    await sessions.save(session)
    const headers: Record<string, string> = { ...NO_STORE, ...extra }
    if (isNew) headers['set-cookie'] = sessions.cookie(session)
    return redirect(302, location, body, headers)
  }

  return {
    login(req) {
      const next = req.query.get('next')
      return redirect(
        302,
        loginButtonUrl(idp, publicUrl, next ? safeNext(next) : undefined),
        undefined,
        NO_STORE,
      )
    },

    async callback(req) {
      if (req.method !== 'GET') return failure(req, refuse(400, LOGIN.getOnly))
      const code = req.query.get('idp_code')
      if (!code) return failure(req, refuse(400, LOGIN.noCode))
      // No transaction is open here: the exchange waits on the network (docs/core.md, "Database").
      const result = await idp.exchange(code)
      if (!result.ok) return failure(req, result)
      // Rule 4's session. A sign-in that changes who it names gets a fresh id, so a cookie
      // planted before it names nothing after it, and the answer carries the new cookie; the
      // same person signing in again on their own session keeps its id and gets no Set-Cookie,
      // as rule 7 says (decisions, section 4; docs/core.md, "Sessions and credentials").
      const loaded = await sessions.load(req)
      const same = loaded !== null && loaded.userId === result.identity.id
      const session = same ? loaded : sessions.renew(loaded ?? sessions.create())
      // A switch from one person to another is said on the next page (docs/core.md, "Login CSRF").
      const before =
        !same && loaded?.userId && typeof loaded.data.name === 'string'
          ? shownName(loaded.data.name, loaded.data.login)
          : null
      session.data.switchedFrom = before
      session.userId = result.identity.id
      session.data.tag = randomToken(16)
      // Shown in the app instead of the id.
      session.data.name = result.identity.name
      session.data.owner = result.identity.owner === true
      session.data.login = result.identity.login ?? null
      // The provider's sign-in: signing out here ends it, and it ends this session (docs/core.md).
      if (result.identity.sid !== undefined) session.data.idpSid = result.identity.sid
      else delete session.data.idpSid
      session.data.loginError = null
      session.data.loginErrorCode = null
      await deps.people?.seen(
        result.identity.id,
        result.identity.name,
        result.identity.login ?? null,
      )
      return answer(session, safeNext(req.query.get('next')), LOGIN.loggedIn)
    },

    async failed(req) {
      const session = await sessions.load(req)
      const reason = session?.data.loginError
      const code = session?.data.loginErrorCode
      // The reason is the session's: no cache keeps it. The page answers 200 (the interface's),
      // with the refusal's code in its header as every refusal's page has it.
      return htmlResponse(
        200,
        loginFailedPage(typeof reason === 'string' ? reason : null),
        typeof reason === 'string' && typeof code === 'string'
          ? { ...PRIVATE_NO_STORE, [ERROR_CODE]: code }
          : PRIVATE_NO_STORE,
      )
    },
  }
}
