/**
 * Sign-in attempts at the built-in provider (docs/core.md, "Sign-in attempts"), kept in the
 * database so every process sharing it counts the same attempts:
 *
 * - **Per address**, every attempt of a form that hashes a password (sign-in, setup, sign-up,
 *   reset, password change) takes from a token bucket of the address before any hash is made
 *   (the shared `rate_limits` table, src/limits/shared-buckets.ts): 30 at once, then one every 5
 *   seconds. A password sprayer meets it whatever names it tries.
 * - **Per account and address**, failed passwords: the first {@link FREE_FAILURES} cost nothing,
 *   each later one doubles the wait before the next try from that address (1 s, 2 s, 4 s, … up
 *   to {@link LONGEST_WAIT_MS}). Another address with no failures for the account is not held
 *   back, so nobody can lock a person out by failing on purpose.
 * - **Device cookies**, as the OWASP Slow Down Online Guessing Attacks with Device Cookies
 *   describes them: a browser that signed in to the account gets `idp_device` (a nonce and an
 *   HMAC of the account's name key and the nonce under the session secret). Trying that account
 *   with it, failures count against the device alone, so the address's failures do not hold it
 *   back (the address's bucket still counts its attempts, as every other).
 *
 * Passkeys need none of this: a passkey cannot be guessed, and its sign-in never waits on these
 * counts. Every key stored is a hash, never a name, an address or a cookie.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { Sql } from '../db/client.ts'
import type { Request } from '../http/request.ts'
import { serializeCookie } from '../http/cookie.ts'
import { randomToken } from '../base/random.ts'
import { addressKey, clientAddress, TokenBucket, type Limit } from '../limits/rate-limit.ts'
import { createSharedBuckets } from '../limits/shared-buckets.ts'
import { nameKey } from './names.ts'
import { cookieName } from './cookies.ts'

/** Per address: 30 attempts at once, then one every 5 seconds. */
export const ADDRESS_LIMIT: Limit = Object.freeze({ rate: 1 / 5, burst: 30 })
/** Failed passwords for one account from one address (or device) that cost no wait. */
export const FREE_FAILURES = 5
/** The longest wait after failures. */
export const LONGEST_WAIT_MS = 15 * 60_000
/** Failures older than this are forgotten. */
const FAILURES_KEPT_MS = 24 * 60 * 60_000
/** The device cookie's name, and how long it lives. */
export const DEVICE_COOKIE = 'idp_device'
const DEVICE_DAYS = 180

/** Milliseconds to wait after `failures` failed tries, the last at `last`, as of `now` (0: may try now). */
export function failureWait(failures: number, last: number, now: number): number {
  if (failures < FREE_FAILURES) return 0
  const delay = Math.min(LONGEST_WAIT_MS, 1000 * 2 ** Math.min(30, failures - FREE_FAILURES))
  return Math.max(0, last + delay - now)
}

export interface SignInAttempts {
  /** Counts an attempt from the request's address: 0 when it may go on, else the milliseconds to wait. */
  fromAddress(req: Request): Promise<number>
  /** Milliseconds until `name` may be tried from this request (its device, else its address); 0: now. Counts nothing. */
  accountWait(req: Request, name: string): Promise<number>
  /** Counts a failed password for `name` from this request (its device, else its address). */
  failed(req: Request, name: string): Promise<void>
  /**
   * A sign-in of `name` from this request succeeded: its failures from here are forgotten, and
   * the answer is the device cookie to set.
   */
  succeeded(req: Request, name: string): Promise<string>
}

export function createSignInAttempts(deps: {
  sql: Sql
  clock: () => number
  trustProxy: number
  secret: Uint8Array
  secure: boolean
  address?: Limit
}): SignInAttempts {
  const { sql, clock, trustProxy, secret, secure } = deps
  const addressLimit = deps.address ?? ADDRESS_LIMIT
  const buckets = createSharedBuckets(sql, 'idp')
  // This process's own attempts per address, counted first and in memory: a burst of parallel
  // posts is refused past the limit without a database round trip each. The shared row then
  // adds what the other processes counted.
  const local = new Map<string, TokenBucket>()
  const hash = (text: string) => createHash('sha256').update(text).digest('hex')
  /** Failures recorded by this process since it last swept the old ones. */
  let recorded = 0
  const deviceCookie = cookieName(DEVICE_COOKIE, secure)
  const mac = (key: string, nonce: string) =>
    createHmac('sha256', secret).update(`idp device\n${key}\n${nonce}`).digest('base64url')

  /** The device nonce of a valid device cookie for `name`, or null. */
  function device(req: Request, name: string): string | null {
    const value = req.cookies[deviceCookie]
    const match =
      value === undefined ? null : /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(value)
    if (match === null) return null
    const expected = Buffer.from(mac(nameKey(name), match[1]!))
    const given = Buffer.from(match[2]!)
    return given.length === expected.length && timingSafeEqual(given, expected) ? match[1]! : null
  }

  /** The row that counts this request's failures for `name`: its device's, else its address's. */
  function failureKey(req: Request, name: string): string {
    const nonce = device(req, name)
    if (nonce !== null) return hash(`device\n${nonce}`)
    return hash(`account\n${nameKey(name)}\n${addressKey(clientAddress(req, trustProxy))}`)
  }

  return {
    async fromAddress(req) {
      const address = addressKey(clientAddress(req, trustProxy))
      const now = clock()
      let mine = local.get(address)
      if (mine === undefined) {
        if (local.size >= 1000) for (const [k, b] of local) if (b.full(now)) local.delete(k)
        local.set(address, (mine = new TokenBucket(addressLimit, now)))
      }
      const wait = mine.take(now)
      if (wait > 0) return wait
      const key = hash(`address\n${address}`)
      const level =
        (
          await buckets.exchange(
            [{ key, spent: 1, rate: addressLimit.rate, burst: addressLimit.burst }],
            now,
          )
        ).get(key) ?? 0
      // The level after this attempt: below 0, there was no token for it.
      return level >= 0 ? 0 : Math.ceil((-level * 1000) / addressLimit.rate)
    },
    async accountWait(req, name) {
      const [row] = await sql<{ failures: number; last_failure: number }[]>`
        select failures, last_failure from idp_signin_failures where key = ${failureKey(req, name)}`
      if (!row) return 0
      const now = clock()
      const last = Number(row.last_failure)
      return last <= now - FAILURES_KEPT_MS ? 0 : failureWait(row.failures, last, now)
    },
    async failed(req, name) {
      const now = clock()
      await sql`
        insert into idp_signin_failures as f (key, failures, last_failure) values (${failureKey(req, name)}, 1, ${now})
        on conflict (key) do update set
          failures = case when f.last_failure <= ${now - FAILURES_KEPT_MS} then 1 else f.failures + 1 end,
          last_failure = ${now}`
      if (++recorded % 100 === 0)
        await sql`delete from idp_signin_failures where last_failure <= ${now - FAILURES_KEPT_MS}`
    },
    async succeeded(req, name) {
      await sql`delete from idp_signin_failures where key = ${failureKey(req, name)}`
      const nonce = device(req, name) ?? randomToken(16)
      return serializeCookie(deviceCookie, `${nonce}.${mac(nameKey(name), nonce)}`, {
        httpOnly: true,
        secure,
        sameSite: 'Lax',
        path: '/',
        maxAgeSeconds: DEVICE_DAYS * 86_400,
      })
    },
  }
}
