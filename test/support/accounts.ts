/**
 * The built-in identity provider (src/accounts/provider.ts) for tests that call it without a
 * socket: its deps on the ticket tracker's test schema, with both services' hooks as in a real
 * install, and a browser that keeps its cookies and sends each form with the page's token.
 */
import type { Handler } from '../../src/http/handler.ts'
import { makeRequest } from '../../src/http/request.ts'
import { bodyText } from '../../src/http/response.ts'
import type { AccountsProviderDeps } from '../../src/accounts/provider.ts'
import { createSignInAttempts, type SignInAttempts } from '../../src/accounts/attempts.ts'
import type { Sql } from '../../src/db/client.ts'
import { notesAccountHooks } from '../../src/notes/account-hooks.ts'
import { ticketsAccountHooks } from '../../src/tickets/account-hooks.ts'

export const NOTES = 'http://localhost:3001'
export const TICKETS = 'http://localhost:3002'
export const IDP = 'http://localhost:3003'

/**
 * The provider's deps at {@link IDP} for {@link NOTES} and {@link TICKETS} on `sql` (the tracker's
 * schema), with the API key `dev-key` and its secret `dev-secret`; `more` adds or replaces.
 */
export function providerDeps(
  sql: Sql,
  clock: () => number,
  secret: Uint8Array,
  more: Partial<AccountsProviderDeps> = {},
): AccountsProviderDeps {
  return {
    sql,
    clock,
    apiKey: 'dev-key',
    apiSecret: 'dev-secret',
    publicUrl: IDP,
    services: { notes: NOTES, tickets: TICKETS },
    hooks: [notesAccountHooks(), ticketsAccountHooks({ sql, clock, publicUrl: TICKETS })],
    secret,
    trustProxy: 0,
    assets: null,
    ...more,
  }
}

/** The sign-in attempts of a provider made by {@link providerDeps}, with no proxy in front. */
export function testAttempts(sql: Sql, clock: () => number, secret: Uint8Array): SignInAttempts {
  return createSignInAttempts({ sql, clock, trustProxy: 0, secret, secure: false })
}

export interface Answer {
  status: number
  headers: Record<string, string | string[]>
  text: string
}

/**
 * A browser asking `serve` from `address`: keeps its cookies, reads each page's form token and
 * sends it with the next form (a form given as a string is sent as it is, token and all).
 */
export function formBrowser(serve: Handler, address: string) {
  const jar = new Map<string, string>()
  let csrf = ''
  async function send(
    method: string,
    url: string,
    form?: Record<string, string> | string,
  ): Promise<Answer> {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
    const headers: Record<string, string> = cookie ? { cookie } : {}
    let body: string | undefined
    if (form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = typeof form === 'string' ? form : new URLSearchParams({ csrf, ...form }).toString()
    }
    const response = await serve(makeRequest({ method, url, headers, body, address }))
    const set = response.headers?.['set-cookie']
    for (const line of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      if (/Max-Age=0/.test(line)) jar.delete(pair!.slice(0, eq))
      else jar.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    const text = await bodyText(response.body)
    const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1]
    if (token) csrf = token
    return { status: response.status, headers: response.headers ?? {}, text }
  }
  return {
    jar,
    get csrf() {
      return csrf
    },
    setCsrf: (value: string) => void (csrf = value),
    get: (url: string) => send('GET', url),
    post: (url: string, form: Record<string, string> | string) => send('POST', url, form),
    /**
     * POSTs `value` as JSON with this browser's cookies and `extraCookie` after them, as a
     * page's script does (a passkey ceremony); the answer's cookies are not kept.
     */
    async postJson(url: string, value: unknown, extraCookie = '') {
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ') + extraCookie
      const response = await serve(
        makeRequest({
          method: 'POST',
          url,
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify(value),
          address,
        }),
      )
      return {
        status: response.status,
        headers: response.headers ?? {},
        body: JSON.parse(await bodyText(response.body)),
      }
    },
  }
}
