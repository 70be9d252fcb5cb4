/** Start-up: the rate limits of one server (docs/rate-limits.md), when `RATE_LIMITS` sets any. */
import type { Config } from '../config.ts'
import type { Database } from '../db/client.ts'
import {
  createRateLimiter,
  type RateLimiter,
  type RateLimiterOptions,
} from '../limits/rate-limit.ts'
import { createSharedBuckets } from '../limits/shared-buckets.ts'

/** What a service adds to a server's limits: its session cookie and its credential check. */
export type LimiterExtras = Pick<RateLimiterOptions, 'cookieName' | 'verify'>

/**
 * The started limiter of the server `scope` (`idp`, `notes`, `tickets`), or null without limits.
 * Processes share a PostgreSQL server, so there the buckets are shared; the embedded database
 * has one process.
 */
export function startLimiter(
  config: Config,
  db: Database,
  clock: () => number,
  scope: string,
  extras: LimiterExtras = {},
): RateLimiter | null {
  if (!config.rateLimits) return null
  const limiter = createRateLimiter({
    limits: config.rateLimits,
    clock,
    ...extras,
    trustProxy: config.trustProxy,
    shared: config.databaseUrl !== null ? createSharedBuckets(db.sql, scope) : null,
  })
  limiter.start()
  return limiter
}
