/**
 * The development identity provider: DEVELOPMENT ONLY. It signs anyone in as anyone, for trying
 * the project out and for tests, and never runs when `AUTH_URL` is set
 * (docs/core.md, "Identity provider").
 *
 * It speaks the real provider's protocol: `GET /login?key&return` shows a form asking for a
 * name (or, with `&name=`, redirects at once) and sends the browser to `return` with
 * `idp_code=<code>`; `POST /api/exchange { key, secret, code }` answers `{ id, name }`.
 * Codes live 60 seconds and work once.
 */
import { createHash } from 'node:crypto'
import { html, type Html } from '../http/html.ts'
import { providerPage, providerPolicy, type PageFrame } from './page.ts'
import { sameText } from '../http/guards.ts'
import { json, redirect, type Response } from '../http/response.ts'
import type { HttpRoute } from '../http/handler.ts'
import type { Request } from '../http/request.ts'
import { parseJsonObject } from '../http/json-validate.ts'
import { answerRefusal, refuse } from '../http/refusal.ts'
import { API_REFUSED } from './messages.ts'
import { randomToken } from '../base/random.ts'

const CODE_MS = 60_000

export interface DevIdentityProvider {
  routes: HttpRoute[]
}

/**
 * The provider's routes; `clock` is injectable for tests of the code lifetime. `frame` gives the
 * page its stylesheet and its policy (whose `form-action` names the services' origins, where
 * the form's answer redirects); without it the page has no stylesheet and allows only itself.
 */
export function createDevIdentityProvider(deps: {
  apiKey: string
  apiSecret: string
  clock?: () => number
  frame?: PageFrame
}): DevIdentityProvider {
  const clock = deps.clock ?? Date.now
  const frame = deps.frame ?? { stylesheet: null, policy: providerPolicy([]) }
  const page = (status: number, content: Html) => devPage(frame, status, content)
  const codes = new Map<string, { name: string; expires: number }>()

  function issue(name: string): string {
    const now = clock()
    for (const [code, entry] of codes) if (entry.expires <= now) codes.delete(code)
    const code = randomToken(18)
    codes.set(code, { name, expires: now + CODE_MS })
    return code
  }

  function login(req: Request): Response {
    const key = req.query.get('key') ?? ''
    const returnTo = req.query.get('return') ?? ''
    if (key !== deps.apiKey)
      return page(
        400,
        html`<p class="error">This app key is not known here, so the login is refused.</p>`,
      )
    if (!isHttpUrl(returnTo))
      return page(
        400,
        html`<p class="error">The login needs a <code>return</code> address (an absolute http or https URL).</p>`,
      )
    const name = (req.query.get('name') ?? '').trim()
    if (name !== '') {
      if (name.length > 100)
        return page(400, html`<p class="error">A name has at most 100 characters.</p>`)
      const target = new URL(returnTo)
      target.searchParams.set('idp_code', issue(name))
      return redirect(302, target.href, 'logged in at the development provider', {
        'cache-control': 'no-store',
      })
    }
    return page(
      200,
      html`<form method="get" action="/login" class="stack">
  <input type="hidden" name="key" value="${key}">
  <input type="hidden" name="return" value="${returnTo}">
  <div class="field"><label for="name">Name</label><input id="name" name="name" required maxlength="100" autofocus placeholder="alice" autocomplete="username"></div>
  <button type="submit" class="primary">Sign in</button>
</form>`,
    )
  }

  async function exchange(req: Request): Promise<Response> {
    const parsed = parseJsonObject(await req.body())
    if (!parsed.ok) return answerRefusal(parsed)
    const body = parsed.value
    // Compared in constant time, as the built-in provider compares them.
    const known =
      typeof body.key === 'string' &&
      sameText(body.key, deps.apiKey) &&
      typeof body.secret === 'string' &&
      sameText(body.secret, deps.apiSecret)
    if (!known) return answerRefusal(refuse(401, API_REFUSED.badSecret))
    const code = typeof body.code === 'string' ? body.code : ''
    const entry = codes.get(code)
    codes.delete(code)
    if (!entry || entry.expires <= clock())
      return answerRefusal(refuse(400, API_REFUSED.codeUnknown))
    return json(200, { id: devUserId(entry.name), name: entry.name })
  }

  return {
    routes: [
      {
        method: 'GET',
        path: '/',
        handler: () =>
          page(
            200,
            html`<p>Apps send people to <code>/login?key=…&amp;return=…</code> to sign in here.</p>`,
          ),
      },
      { method: 'GET', path: '/login', handler: login },
      { method: 'POST', path: '/api/exchange', handler: exchange },
    ],
  }
}

/** The same name always gets the same id, so signing in again finds the same user. */
export function devUserId(name: string): string {
  return 'dev-' + createHash('sha256').update(name).digest('hex').slice(0, 16)
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

function devPage(frame: PageFrame, status: number, content: Html): Response {
  return providerPage(
    frame,
    status,
    'Development sign-in',
    html`<div class="notice warn"><p><strong>Development only.</strong> This provider signs anyone in as anyone. It runs because <code>DEV_SIGNIN=1</code> is set; never expose it.</p></div>
<div class="card">${content}</div>`,
  )
}
