/** Reading the provider's HTML forms, and the small pieces of answers its handlers share. */
import { serializeCookie } from '../http/cookie.ts'
import type { Request } from '../http/request.ts'
import type { Headers } from '../http/response.ts'
import { queryNotUtf8, textDefect } from '../http/text.ts'

/**
 * A form body (`application/x-www-form-urlencoded`, UTF-8, at most 64 KiB, no U+0000 or lone
 * surrogate), or null. Percent-escapes that decode to bytes that are not UTF-8 (`%FF`, a cut
 * sequence) make no form, as a query string with them makes no request (src/http/text.ts):
 * `URLSearchParams` would have read each as U+FFFD.
 */
export async function readForm(req: Request): Promise<URLSearchParams | null> {
  const bytes = await req.body()
  if (bytes.length > 65_536) return null
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return null
  }
  if (queryNotUtf8(text) !== null) return null
  const form = new URLSearchParams(text)
  for (const [name, value] of form)
    if (textDefect(name) !== null || textDefect(value) !== null) return null
  return form
}

/** A whole number from `min` to `max` written in decimal, or null. */
export function wholeNumber(text: string | null, min: number, max: number): number | null {
  if (text === null || !/^[0-9]{1,4}$/.test(text.trim())) return null
  const n = Number(text.trim())
  return n >= min && n <= max ? n : null
}

/** The `Set-Cookie` values already in `headers`. */
export function cookiesOf(headers: Headers): string[] {
  const value = headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

/** A `Set-Cookie` that deletes the cookie `name`. */
export function expired(name: string, secure: boolean): string {
  return serializeCookie(name, '', {
    httpOnly: true,
    secure,
    sameSite: 'Lax',
    path: '/',
    maxAgeSeconds: 0,
  })
}
