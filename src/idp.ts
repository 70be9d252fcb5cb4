/**
 * The identity provider, server side (decisions.md section 3): where the login button goes, and
 * the exchange of a one-time login code for an identity.
 */

export interface Identity {
  /** The provider's user id. */
  id: string
  name: string
  email?: string
}

export type ExchangeResult = { ok: true; identity: Identity } | { ok: false; error: string }

export interface IdentityProvider {
  /** `{AUTH_URL}/login?key=<API_KEY>&return=<returnUrl>` */
  loginUrl(returnUrl: string): string
  /** Exchanges a login code; errors are values with the reason text, never exceptions. */
  exchange(code: string): Promise<ExchangeResult>
}

/** How long the provider has to answer an exchange. */
export const EXCHANGE_TIMEOUT_MS = 5000

/** The client for the provider at `authUrl`, using app key and secret. */
export function createIdentityProvider(deps: {
  authUrl: string
  apiKey: string
  apiSecret: string
  fetch?: typeof fetch
  timeoutMs?: number
}): IdentityProvider {
  const doFetch = deps.fetch ?? fetch
  const base = deps.authUrl.replace(/\/+$/, '')
  return {
    loginUrl(returnUrl) {
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
        body = await res.json().catch(() => null)
      } catch {
        return { ok: false, error: 'idp unreachable' }
      }
      const record = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {}
      if (status !== 200) {
        const error = typeof record.error === 'string' && record.error !== '' ? record.error : `idp answered ${status}`
        return { ok: false, error }
      }
      const id = typeof record.id === 'number' ? String(record.id) : record.id
      if (typeof id !== 'string' || id === '' || typeof record.name !== 'string') {
        return { ok: false, error: 'idp sent no usable identity' }
      }
      const identity: Identity = { id, name: record.name }
      if (typeof record.email === 'string') identity.email = record.email
      return { ok: true, identity }
    },
  }
}

/**
 * The login button's address (tickets interface 4.10 rule 9, notes interface section 5): the
 * provider's login, returning to `<publicUrl>/login/callback`, with `?next=<path>` when a path
 * is given. The caller passes a path it has made safe (or built itself).
 */
export function loginButtonUrl(idp: IdentityProvider, publicUrl: string, next?: string): string {
  return idp.loginUrl(`${publicUrl}/login/callback${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`)
}

/**
 * The safe form of a `next` path (tickets interface 4.10 rule 8, used by both services): `next`
 * when it is a non-empty string of at most 500 characters starting with exactly one `/`, not
 * under `/login/`, made only of letters, digits and `-._~/?&=%+,;@!$()*:`; otherwise `/`.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next === '' || next.length > 500) return '/'
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/login/')) return '/'
  return SAFE_PATH.test(next) ? next : '/'
}
const SAFE_PATH = /^[A-Za-z0-9\-._~/?&=%+,;@!$()*:]+$/
