/**
 * Sign-in attempts at the built-in provider, limited per account and per address with the
 * rate limiter's token buckets (src/limits/rate-limit.ts): a password guesser meets the limit whether
 * it tries many passwords for one name or one password for many names. Only failed attempts
 * are counted against the account, so a person's own successful sign-ins never lock them out.
 */
import { addressKey, clientAddress, TokenBucket, type Limit } from '../limits/rate-limit.ts'
import type { Request } from '../http/request.ts'

/** Per account: 10 failed attempts at once, then one every 30 seconds. */
export const ACCOUNT_LIMIT: Limit = Object.freeze({ rate: 1 / 30, burst: 10 })
/** Per address: 30 attempts at once, then one every 5 seconds. */
export const ADDRESS_LIMIT: Limit = Object.freeze({ rate: 1 / 5, burst: 30 })

export interface SignInAttempts {
  /** Counts an attempt from the request's address: 0 when it may go on, else the milliseconds to wait. */
  fromAddress(req: Request): number
  /** Milliseconds until the name may be tried again (0: now), without counting. */
  accountWait(name: string): number
  /** Counts a failed attempt against the name. */
  failed(name: string): void
}

export function createSignInAttempts(deps: { clock: () => number; trustProxy: number; limits?: { account: Limit; address: Limit } }): SignInAttempts {
  const { clock, trustProxy } = deps
  const limits = deps.limits ?? { account: ACCOUNT_LIMIT, address: ADDRESS_LIMIT }
  const byAccount = new Map<string, TokenBucket>()
  const byAddress = new Map<string, TokenBucket>()

  /** Drops the full buckets now and then, so the maps hold only those that matter. */
  function sweep(map: Map<string, TokenBucket>, now: number): void {
    if (map.size < 1000) return
    for (const [key, bucket] of map) if (bucket.full(now)) map.delete(key)
  }

  function bucket(map: Map<string, TokenBucket>, key: string, limit: Limit, now: number): TokenBucket {
    let found = map.get(key)
    if (found === undefined) {
      sweep(map, now)
      map.set(key, (found = new TokenBucket(limit, now)))
    }
    return found
  }

  return {
    fromAddress(req) {
      const now = clock()
      return bucket(byAddress, addressKey(clientAddress(req, trustProxy)), limits.address, now).take(now)
    },
    accountWait(name) {
      const now = clock()
      const found = byAccount.get(name.toLowerCase())
      if (found === undefined) return 0
      found.refill(now)
      return found.tokens >= 1 ? 0 : Math.ceil(((1 - found.tokens) * 1000) / found.limit.rate)
    },
    failed(name) {
      const now = clock()
      bucket(byAccount, name.toLowerCase(), limits.account, now).take(now)
    },
  }
}
