/** Checks on the ids and numbers a request names. */
import { textDefect } from '../../http/text.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** True for a UUID in its usual text form (so it can go to a `uuid` column without an error). */
export function isUuid(text: string): boolean {
  return UUID.test(text)
}

/**
 * True for text a lookup can send to PostgreSQL as is (src/http/text.ts): text columns cannot hold
 * U+0000, and a lone surrogate would be looked up as U+FFFD. A path value carrying one (`%00`)
 * names nothing.
 */
export function isLookupText(text: string): boolean {
  return textDefect(text) === null
}

/** A positive whole number that fits an `integer` column, from its decimal text; null otherwise. */
export function parseNumber(text: string): number | null {
  if (!/^[0-9]{1,10}$/.test(text)) return null
  const n = Number(text)
  return n >= 1 && n <= 2_147_483_647 ? n : null
}
