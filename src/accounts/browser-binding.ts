/**
 * Ties the provider's forms to who was shown them (login CSRF and CSRF at the provider). Each
 * form carries a token: before sign-in, the HMAC under the session secret of a random
 * `idp_browser` cookie set when a page with a form is shown; once the browser has a provider
 * session, the HMAC of that session's cookie. A form sent from another site's page, with another
 * browser's token, or with a token made before sign-in or for another session is refused: an
 * attacker who plants their own `idp_browser` cookie and token in a signed-in person's browser
 * still has no token for that person's session, which never leaves the browser (`HttpOnly`).
 * On https the cookie is `__Host-idp_browser`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { serializeCookie } from '../http/cookie.ts'
import { randomToken } from '../base/random.ts'
import type { Request } from '../http/request.ts'
import { cookieName } from './cookies.ts'

export const BROWSER_COOKIE = 'idp_browser'

export interface BrowserBinding {
  /** The form token for the request's session, else its browser id; `setCookie` when the browser had no id yet. */
  of(req: Request): { csrf: string; setCookie: string | null }
  /** True when the form's token belongs to the request's session (when it has one), else to its browser. */
  check(req: Request, token: string | null | undefined): boolean
}

export function createBrowserBinding(deps: {
  secret: Uint8Array
  secure: boolean
  sessionCookie: string
}): BrowserBinding {
  const browserCookie = cookieName(BROWSER_COOKIE, deps.secure)
  const tokenOf = (kind: 'browser' | 'session', value: string) =>
    createHmac('sha256', deps.secret).update(`idp form\n${kind}\n${value}`).digest('base64url')
  const valid = (value: string | undefined): value is string =>
    value !== undefined && /^[A-Za-z0-9_-]{20,60}$/.test(value)
  /** The token the request's forms must carry, or null when it has neither session nor browser cookie. */
  function expected(req: Request): string | null {
    const session = req.cookies[deps.sessionCookie]
    if (valid(session)) return tokenOf('session', session)
    const browser = req.cookies[browserCookie]
    return valid(browser) ? tokenOf('browser', browser) : null
  }
  return {
    of(req) {
      const token = expected(req)
      if (token !== null) return { csrf: token, setCookie: null }
      const browser = randomToken(24)
      const setCookie = serializeCookie(browserCookie, browser, {
        httpOnly: true,
        secure: deps.secure,
        sameSite: 'Lax',
        path: '/',
      })
      return { csrf: tokenOf('browser', browser), setCookie }
    },
    check(req, token) {
      const wanted = expected(req)
      if (wanted === null || typeof token !== 'string') return false
      const given = Buffer.from(token)
      const want = Buffer.from(wanted)
      return given.length === want.length && timingSafeEqual(given, want)
    },
  }
}
