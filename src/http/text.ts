/**
 * The one rule for text that comes from outside (a body, a query, a path, the identity
 * provider) before it may reach the database: no U+0000, which PostgreSQL text and jsonb cannot
 * hold, and no lone surrogate, which cannot be encoded as UTF-8 and would be stored as U+FFFD
 * (or, inside jsonb, refused by the database). Each service answers a defect in its own words
 * (docs/core.md, "Text").
 */

// Node 20 has it; TypeScript's lib types it from ES2024, past this project's target.
declare global {
  interface String {
    /** False when the string holds a lone surrogate. */
    isWellFormed(): boolean
  }
}

/** What makes a text unusable: a U+0000, or a UTF-16 surrogate without its pair. */
export type TextDefect = 'nul' | 'surrogate'

/** The first defect of `value`, or null when it can be stored as sent. */
export function textDefect(value: string): TextDefect | null {
  if (value.includes('\0')) return 'nul'
  if (!value.isWellFormed()) return 'surrogate'
  return null
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true })
// A percent-escape of a byte from 0x80 up: only those can make a sequence that is not UTF-8.
const HIGH_ESCAPE = /%[89A-Fa-f][0-9A-Fa-f]/

/**
 * The first parameter of a raw query string (without `?`) whose name or value percent-decodes to
 * bytes that are not UTF-8 (`%FF`, an encoded surrogate `%ED%A0%80`, an overlong `%C0%AF`, a
 * sequence cut short), named as `URLSearchParams` reads it; null when there is none.
 * `URLSearchParams` would read each such sequence as U+FFFD, a silent replacement; a request
 * carrying one is refused instead (src/http/handler.ts). A `%` without two hex digits after it is no
 * escape and stays as sent, as the URL standard says.
 */
export function queryNotUtf8(search: string): string | null {
  if (!HIGH_ESCAPE.test(search)) return null
  for (const pair of search.split('&')) {
    if (!HIGH_ESCAPE.test(pair)) continue
    const eq = pair.indexOf('=')
    const name = eq === -1 ? pair : pair.slice(0, eq)
    const value = eq === -1 ? '' : pair.slice(eq + 1)
    if (!isUtf8Escaped(name) || !isUtf8Escaped(value))
      return new URLSearchParams(`${name}=`).keys().next().value ?? ''
  }
  return null
}

/** True when the percent-escapes of `raw` decode, with the characters around them, to UTF-8. */
function isUtf8Escaped(raw: string): boolean {
  if (!HIGH_ESCAPE.test(raw)) return true
  // As the URL standard reads it: the characters as UTF-8 bytes, then each escape as its byte.
  const bytes = Buffer.from(raw, 'utf8').toString('latin1')
  const decoded = new Uint8Array(Buffer.from(unescapeBytes(bytes), 'latin1'))
  try {
    STRICT_UTF8.decode(decoded)
    return true
  } catch {
    return false
  }
}

/** `%XY` escapes turned into the byte they name, in a latin1 string of bytes. */
function unescapeBytes(latin1: string): string {
  return latin1.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  )
}
