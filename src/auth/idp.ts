/**
 * The identity provider, server side (docs/core.md, "Identity provider"): where the login button
 * goes, and the exchange of a one-time login code for an identity.
 */
import { parseJsonBody } from '../http/json-validate.ts'
import { reason, refuse, type Refusal } from '../http/refusal.ts'
import { textDefect } from '../http/text.ts'

export interface Identity {
  /** The provider's user id. */
  id: string
  name: string
  email?: string
  /** The provider's owner, who has its `/admin` (the built-in provider says so; others never do). */
  owner?: boolean
  /** The account's unique sign-in name, when the provider sends one (the built-in one does). */
  login?: string
  /**
   * The provider's sign-in this identity came from (the built-in provider sends it, as OpenID
   * Connect's `sid`): the app keeps it in its session and hands it back to {@link
   * IdentityProvider.signOut} when the person signs out (docs/core.md, "Signing out").
   */
  sid?: string
}

/** An identity, or the refusal of the sign-in (`login_failed`) whose message is the reason. */
export type ExchangeResult = { ok: true; identity: Identity } | Refusal

export interface IdentityProvider {
  /** `{AUTH_URL}/login?key=<API_KEY>&return=<returnUrl>` */
  loginUrl(returnUrl: string): string
  /** Exchanges a login code; errors are values with the reason text, never exceptions. */
  exchange(code: string): Promise<ExchangeResult>
  /**
   * Ends the provider's sign-in `sid` (`POST {AUTH_URL}/api/signout { key, secret, sid }`): the
   * provider session and every app session it started. False when the provider could not be
   * reached or refused (an outside provider without the route); never throws.
   */
  signOut(sid: string): Promise<boolean>
}

/** How long the provider has to answer an exchange. */
export const EXCHANGE_TIMEOUT_MS = 5000

/** The client for the provider at `authUrl`, using app key and secret. */
export function createIdentityProvider(deps: {
  authUrl: string
  apiKey: string
  apiSecret: string
  /**
   * False for the built-in provider, which knows its apps by their return addresses: its links
   * then carry no `key` (a person never sees `key=dev-key`). True (the default) for others.
   */
  keyInLinks?: boolean
  fetch?: typeof fetch
  timeoutMs?: number
}): IdentityProvider {
  const doFetch = deps.fetch ?? fetch
  const base = deps.authUrl.replace(/\/+$/, '')
  return {
    loginUrl(returnUrl) {
      if (deps.keyInLinks === false) return `${base}/login?return=${encodeURIComponent(returnUrl)}`
      return `${base}/login?key=${encodeURIComponent(deps.apiKey)}&return=${encodeURIComponent(returnUrl)}`
    },
    async exchange(code) {
      let status: number
      let body: unknown
      try {
        const res = await doFetch(`${base}/api/exchange`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ key: deps.apiKey, secret: deps.apiSecret, code }),
          signal: AbortSignal.timeout(deps.timeoutMs ?? EXCHANGE_TIMEOUT_MS),
        })
        status = res.status
        // Read strictly (src/http/json-validate.ts): bytes that are not UTF-8 make no answer, rather
        // than names with U+FFFD in them.
        const parsed = parseJsonBody(new Uint8Array(await res.arrayBuffer()))
        body = parsed.ok ? parsed.value : null
      } catch {
        return loginFailed('idp unreachable')
      }
      return exchangeResult(status, body)
    },
    async signOut(sid) {
      try {
        const res = await doFetch(`${base}/api/signout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ key: deps.apiKey, secret: deps.apiSecret, sid }),
          signal: AbortSignal.timeout(deps.timeoutMs ?? EXCHANGE_TIMEOUT_MS),
        })
        await res.arrayBuffer()
        return res.ok
      } catch {
        return false
      }
    },
  }
}

/**
 * The outcome of the provider's answer to an exchange: status 200 with `{ id, name, email?,
 * login?, owner?, sid? }` is an identity (`sid` kept only when it is 1 to 100 base64url characters) (`owner` only when it is `true`); any other status is a
 * failure whose reason is the body's `error` text. Text from the provider is input too
 * (src/http/text.ts): an `error` text with U+0000 or a lone surrogate counts as none (`idp
 * answered <status>`), an identity with such a character in its id, name or email is no usable
 * identity, and such a `login` is left out, so no such text reaches a session or the users table.
 */
export function exchangeResult(status: number, body: unknown): ExchangeResult {
  const record = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {}
  if (status !== 200) {
    const error = record.error
    const usable = typeof error === 'string' && error !== '' && textDefect(error) === null
    return loginFailed(usable ? error : `idp answered ${status}`)
  }
  const id = typeof record.id === 'number' ? String(record.id) : record.id
  const { name, email } = record
  if (typeof id !== 'string' || id === '' || typeof name !== 'string')
    return loginFailed(NO_USABLE_IDENTITY)
  if (
    textDefect(id) !== null ||
    textDefect(name) !== null ||
    (typeof email === 'string' && textDefect(email) !== null)
  ) {
    return loginFailed(NO_USABLE_IDENTITY)
  }
  const identity: Identity = { id, name }
  if (typeof email === 'string') identity.email = email
  if (record.owner === true) identity.owner = true
  if (typeof record.login === 'string' && record.login !== '' && textDefect(record.login) === null)
    identity.login = record.login
  if (typeof record.sid === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(record.sid))
    identity.sid = record.sid
  return { ok: true, identity }
}

const NO_USABLE_IDENTITY = 'idp sent no usable identity'

/** A failed exchange: 400 `login_failed`, the reason its message (the login pages show it). */
export function loginFailed(why: string): Refusal {
  return refuse(400, reason('login_failed', why))
}

/**
 * After an app's sign-out: ends the provider's sign-in the session came from (its data's
 * `idpSid`), so the provider's session and the other app's end too (docs/core.md, "Signing
 * out"). A session without one (the development provider, an outside provider that sends no
 * `sid`) has nothing to end there.
 */
export async function endProviderSignIn(
  idp: IdentityProvider,
  data: Record<string, unknown>,
): Promise<void> {
  if (typeof data.idpSid === 'string') await idp.signOut(data.idpSid)
}

/**
 * The login button's address (docs/core.md, "Identity provider"): the
 * provider's login, returning to `<publicUrl>/login/callback`, with `?next=<path>` when a path
 * is given. The caller passes a path it has made safe (or built itself).
 */
export function loginButtonUrl(idp: IdentityProvider, publicUrl: string, next?: string): string {
  return idp.loginUrl(
    `${publicUrl}/login/callback${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`,
  )
}

/**
 * The safe form of a `next` path (docs/core.md, "Identity provider"; used by both services): `next`
 * when it is a non-empty string of at most 500 characters starting with exactly one `/`, not
 * under `/login/`, made only of letters, digits and `-._~/?&=%+,;@!$()*:`; otherwise `/`.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next === '' || next.length > 500) return '/'
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/login/')) return '/'
  return SAFE_PATH.test(next) ? next : '/'
}
const SAFE_PATH = /^[A-Za-z0-9\-._~/?&=%+,;@!$()*:]+$/
