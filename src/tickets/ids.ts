/** Record ids: 12 characters of a-z0-9 (users, projects, tokens). */
import { randomBytes } from 'node:crypto'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** A fresh 12-character id of a-z0-9 (about 62 bits). */
export function recordId(): string {
  // 252 is the largest multiple of 36 below 256: bytes above it are skipped to keep it uniform.
  let out = ''
  while (out.length < 12) {
    for (const byte of randomBytes(16)) {
      if (byte < 252 && out.length < 12) out += ALPHABET[byte % 36]
    }
  }
  return out
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** True for a UUID in its usual text form (so it can go to a `uuid` column without an error). */
export function isUuid(text: string): boolean {
  return UUID.test(text)
}

/**
 * True for text a lookup can send to PostgreSQL as is: text columns cannot hold U+0000, and a
 * path or query value carrying one (`%00`) names nothing.
 */
export function isLookupText(text: string): boolean {
  return !text.includes('\0')
}

/** A positive whole number that fits an `integer` column, from its decimal text; null otherwise. */
export function parseNumber(text: string): number | null {
  if (!/^[0-9]{1,10}$/.test(text)) return null
  const n = Number(text)
  return n >= 1 && n <= 2_147_483_647 ? n : null
}
