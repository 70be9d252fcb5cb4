/**
 * Reading and writing the `Cookie` and `Set-Cookie` headers (RFC 6265), in the manner of
 * Deno std's `getCookies` / `setCookie`.
 */

/** Parses a `Cookie` header into a null-prototype record; the first of two same-named cookies wins. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null)
  if (!header) return out
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    const name = part.slice(0, eq).trim()
    if (!name || name in out) continue
    let value = part.slice(eq + 1).trim()
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1)
    out[name] = value
  }
  return out
}

export interface CookieOptions {
  maxAgeSeconds?: number
  path?: string
  httpOnly?: boolean
  secure?: boolean
  sameSite?: 'Lax' | 'Strict' | 'None'
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/

/** Builds a `Set-Cookie` header value; throws for a name or value the RFC does not allow (a programmer mistake). */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (!TOKEN.test(name)) throw new Error(`invalid cookie name '${name}'`)
  if (!VALUE.test(value)) throw new Error(`invalid value for cookie '${name}'`)
  let out = `${name}=${value}`
  if (options.maxAgeSeconds !== undefined) out += `; Max-Age=${Math.floor(options.maxAgeSeconds)}`
  out += `; Path=${options.path ?? '/'}`
  if (options.httpOnly) out += '; HttpOnly'
  if (options.secure) out += '; Secure'
  if (options.sameSite) out += `; SameSite=${options.sameSite}`
  return out
}
