/**
 * Ties the provider's forms to the browser that was shown them (login CSRF at the provider): a
 * random `idp_browser` cookie, set when a page with a form is shown, and in each form a token
 * that is the HMAC of that cookie under the session secret. A form sent from another site's
 * page, or with another browser's token, is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { serializeCookie } from '../http/cookie.ts'
import { randomToken } from '../base/random.ts'
import type { Request } from '../http/request.ts'

export const BROWSER_COOKIE = 'idp_browser'

export interface BrowserBinding {
  /** The request's browser id and form token; `setCookie` when the browser had none yet. */
  of(req: Request): { csrf: string; setCookie: string | null }
  /** True when the form's token belongs to the request's browser. */
  check(req: Request, token: string | null | undefined): boolean
}

export function createBrowserBinding(deps: { secret: Uint8Array; secure: boolean }): BrowserBinding {
  const tokenOf = (browser: string) => createHmac('sha256', deps.secret).update(`idp form\n${browser}`).digest('base64url')
  const valid = (value: string | undefined): value is string => value !== undefined && /^[A-Za-z0-9_-]{20,60}$/.test(value)
  return {
    of(req) {
      const existing = req.cookies[BROWSER_COOKIE]
      if (valid(existing)) return { csrf: tokenOf(existing), setCookie: null }
      const browser = randomToken(24)
      const setCookie = serializeCookie(BROWSER_COOKIE, browser, { httpOnly: true, secure: deps.secure, sameSite: 'Lax', path: '/' })
      return { csrf: tokenOf(browser), setCookie }
    },
    check(req, token) {
      const browser = req.cookies[BROWSER_COOKIE]
      if (!valid(browser) || typeof token !== 'string') return false
      const expected = Buffer.from(tokenOf(browser))
      const given = Buffer.from(token)
      return given.length === expected.length && timingSafeEqual(given, expected)
    },
  }
}
