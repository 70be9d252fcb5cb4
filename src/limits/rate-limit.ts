/**
 * Rate limits (docs/operations.md, "Rate limits"): a token bucket per client and class of
 * route, kept in this process's memory so that a request costs no database round trip, and,
 * on a shared PostgreSQL server, reconciled with the other processes' buckets about once a
 * second through the table `rate_limits` ({@link SharedBuckets}, src/limits/shared-buckets.ts).
 *
 * Who a client is: the owner of the credential it presents (the `Authorization` header, else
 * the service's session cookie) once the service has verified it (`verify`: a token it knows,
 * the cookie of a signed-in session, answered as the person it belongs to, so that all the
 * sessions and tokens of one person share one bucket); else, and for a credential it could not
 * verify, its address ({@link clientAddress}), so a made-up token or cookie buys no bucket of its
 * own. The services read credentials strictly (one secret has one spelling), and the first
 * request of a credential not yet verified counts on its address and, verified, on its owner's
 * bucket too. Sign-in routes count by address only. A refused
 * request is answered 429 with `Retry-After` and the `RateLimit-Policy` and `RateLimit` fields
 * of draft-ietf-httpapi-ratelimit-headers-11.
 *
 * ```ts
 * const limiter = createRateLimiter({ limits: DEFAULT_LIMITS, clock: Date.now, cookieName: 'notes_session', verify: service.verifyCredential })
 * await limiter.check(req, 'api') // null: go on; else the 429 to answer
 * ```
 *
 * @module
 */
import { createHash } from 'node:crypto'
import type { Request } from '../http/request.ts'
import type { Response } from '../http/response.ts'
import { answerRefusal, reason, refuse } from '../http/refusal.ts'
import type { LimitClass, Limiter } from '../http/handler.ts'

/** A token bucket's shape: `rate` requests a second on average, `burst` at once. */
export interface Limit {
  rate: number
  burst: number
}

export type { LimitClass }

export type Limits = Readonly<Record<LimitClass, Limit>>

/** The defaults of `RATE_LIMIT` and `RATE_LIMIT_SIGNIN` (README, "Configuration"). */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  api: Object.freeze({ rate: 100, burst: 1000 }),
  signin: Object.freeze({ rate: 5, burst: 100 }),
})

/** The policy names the header fields give each class. */
export const POLICY_NAMES: Readonly<Record<LimitClass, string>> = { api: 'api', signin: 'sign-in' }

/** The 429's `error` text. */
export const TOO_MANY_REQUESTS = reason('rate_limited', 'too many requests')

/** How often a process exchanges its counts with the shared table, and sweeps full buckets. */
export const SYNC_MS = 1000

/** On a shared server, a bucket is forgotten once full and unused this long. */
const IDLE_MS = 60_000

/** A credential longer than this is kept by its hash, so a huge header costs no more memory. */
const LONGEST_KEY = 200

/**
 * One token bucket: `tokens` as of `at` (ms), refilled at `limit.rate` a second up to
 * `limit.burst`. `spent` counts the requests taken since the last exchange with the shared table.
 */
export class TokenBucket {
  tokens: number
  at: number
  spent = 0
  used: number
  /** The row's key in `rate_limits`: a hash, so no credential or address is stored. */
  id: string | null = null

  constructor(
    readonly limit: Limit,
    now: number,
  ) {
    this.tokens = limit.burst
    this.at = now
    this.used = now
  }

  /** Refills the bucket up to `now` (a clock that went back refills nothing). */
  refill(now: number): void {
    if (now <= this.at) return
    this.tokens = Math.min(
      this.limit.burst,
      this.tokens + ((now - this.at) * this.limit.rate) / 1000,
    )
    this.at = now
  }

  /** Takes one request: 0 when it may go on, else the milliseconds until it could. */
  take(now: number): number {
    this.refill(now)
    this.used = now
    if (this.tokens >= 1) {
      this.tokens -= 1
      this.spent += 1
      return 0
    }
    return Math.ceil(((1 - this.tokens) * 1000) / this.limit.rate)
  }

  /** True when the bucket is full at `now`: forgetting it changes nothing. */
  full(now: number): boolean {
    this.refill(now)
    return this.tokens >= this.limit.burst
  }
}

/** What one bucket's row is sent: the requests this process took since the last exchange. */
export interface BucketCount {
  /** The row's key: a hash, never a credential or an address. */
  key: string
  spent: number
  rate: number
  burst: number
}

/**
 * The buckets' table shared by the processes of one PostgreSQL server (src/limits/shared-buckets.ts
 * makes one on `sql`).
 */
export interface SharedBuckets {
  /** Names this service's buckets apart from the other's. */
  scope: string
  /**
   * Refills each row to `now`, takes its `spent` off, and answers the rows' levels by key (a
   * new row starts full); one statement.
   */
  exchange(counts: readonly BucketCount[], now: number): Promise<Map<string, number>>
  /** Deletes the rows whose bucket has refilled (a full bucket is as good as no row). */
  sweep(now: number): Promise<void>
}

export interface RateLimiterOptions {
  limits: Limits
  /** Milliseconds since the epoch. */
  clock: () => number
  /** The service's session cookie: a request carrying it is counted by it. */
  cookieName?: string
  /** How many reverse proxies to trust for `X-Forwarded-For` (`TRUST_PROXY`); 0 by default. */
  trustProxy?: number
  /**
   * The database the processes share, and a name for this service's buckets in it; null or
   * absent: the buckets are this process's alone (the embedded database has one process).
   */
  shared?: SharedBuckets | null
  /**
   * Who the credential a request is counted by (its `Authorization` header, else the session
   * cookie) belongs to, when the service knows it: a name for its owner (`user:<id>` for a
   * person, so that every session and token of one person share one bucket); null when the
   * service does not know it. Absent: none is known, and every request counts by address.
   */
  verify?: (req: Request) => Promise<string | null>
}

export interface RateLimiter extends Limiter {
  /**
   * Counts the request in class `cls`: null when it may go on, else the 429 to answer. The first
   * request of a credential without a bucket waits while the credential is verified.
   */
  check(req: Request, cls: LimitClass): Promise<Response | null>
  /**
   * Forgets full buckets and, when shared, sends the requests counted since the last call to
   * `rate_limits` and takes back each bucket's level there, which the other processes' counts
   * have lowered. The timer of {@link RateLimiter.start} calls it every {@link SYNC_MS}.
   */
  sync(): Promise<void>
  /** Starts calling {@link RateLimiter.sync} every {@link SYNC_MS} (an unref'd timer). */
  start(): void
  /** Stops the timer and waits for a sync under way. */
  close(): Promise<void>
}

/** Builds a rate limiter; nothing runs in the background until `start()`. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { limits, clock, cookieName, verify } = options
  const trustProxy = options.trustProxy ?? 0
  const shared = options.shared ?? null
  const buckets = {
    api: { byOwner: new Map<string, TokenBucket>(), byAddress: new Map<string, TokenBucket>() },
    signin: { byOwner: new Map<string, TokenBucket>(), byAddress: new Map<string, TokenBucket>() },
  }
  /** The owner each verified credential was found to belong to, and when it was last used. */
  const owners = new Map<string, { owner: string; used: number }>()
  const policies = {
    api: policyField('api', limits.api),
    signin: policyField('signin', limits.signin),
  }
  let timer: NodeJS.Timeout | null = null
  let running: Promise<void> | null = null
  let syncs = 0

  function tooMany(cls: LimitClass, waitMs: number): Response {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000))
    return answerRefusal(refuse(429, TOO_MANY_REQUESTS), {
      'retry-after': String(seconds),
      'ratelimit-policy': policies[cls],
      ratelimit: `"${POLICY_NAMES[cls]}";r=0;t=${seconds}`,
      'cache-control': 'no-store',
    })
  }

  /** Takes from the bucket of `key` in `map`, making it (full) when there is none. */
  function takeFrom(
    map: Map<string, TokenBucket>,
    key: string,
    cls: LimitClass,
    now: number,
  ): Response | null {
    let bucket = map.get(key)
    if (bucket === undefined) map.set(key, (bucket = new TokenBucket(limits[cls], now)))
    const wait = bucket.take(now)
    return wait === 0 ? null : tooMany(cls, wait)
  }

  function credentialOf(req: Request): string | null {
    const authorization = req.headers.authorization
    let credential = authorization !== undefined && authorization !== '' ? authorization : null
    if (credential === null && cookieName !== undefined && req.headers.cookie !== undefined) {
      credential = req.cookies[cookieName] ?? null
    }
    if (credential === null || credential.length <= LONGEST_KEY) return credential
    return createHash('sha256').update(credential).digest('base64url')
  }

  async function check(req: Request, cls: LimitClass): Promise<Response | null> {
    const now = clock()
    const mine = buckets[cls]
    const credential = cls === 'signin' ? null : credentialOf(req)
    // Only a credential the service verified counts on its owner's bucket; any other request,
    // a made-up credential's included, counts against its address.
    const known = credential === null ? undefined : owners.get(credential)
    if (known !== undefined) {
      known.used = now
      return takeFrom(mine.byOwner, known.owner, cls, now)
    }
    const refused = takeFrom(mine.byAddress, addressKey(clientAddress(req, trustProxy)), cls, now)
    if (refused !== null || credential === null || verify === undefined) return refused
    // A lookup that failed (the database away) leaves the request counted by its address.
    const owner = await verify(req).catch(() => null)
    if (owner === null || owners.has(credential)) return null
    owners.set(credential, { owner, used: now })
    // The request verified is the credential's first: it counts on its owner's bucket as well
    // as on its address, so a new credential buys its owner nothing.
    return takeFrom(mine.byOwner, owner, cls, now)
  }

  async function exchange(): Promise<void> {
    const now = clock()
    const batch: { bucket: TokenBucket; sent: number }[] = []
    // A credential unused for a while is verified again on its next request.
    for (const [credential, known] of owners)
      if (now - known.used >= IDLE_MS) owners.delete(credential)
    for (const cls of ['api', 'signin'] as const) {
      for (const [kind, map] of [
        ['c', buckets[cls].byOwner],
        ['a', buckets[cls].byAddress],
      ] as const) {
        for (const [key, bucket] of map) {
          const full = bucket.full(now)
          if (shared === null) {
            bucket.spent = 0
            if (full && (kind === 'a' || now - bucket.used >= IDLE_MS)) map.delete(key)
            continue
          }
          if (full && bucket.spent === 0) {
            if (now - bucket.used >= IDLE_MS) map.delete(key)
            continue
          }
          bucket.id ??= createHash('sha256')
            .update(`${shared.scope}\n${cls}\n${kind}\n${key}`)
            .digest('base64url')
          batch.push({ bucket, sent: bucket.spent })
          bucket.spent = 0
        }
      }
    }
    if (shared === null) return
    let level: Map<string, number>
    try {
      // A full bucket is as good as no row: the rows of full buckets go, about once a minute.
      if (++syncs % 60 === 0) await shared.sweep(now)
      if (batch.length === 0) return
      level = await shared.exchange(
        batch.map(({ bucket, sent }) => ({
          key: bucket.id!,
          spent: sent,
          rate: bucket.limit.rate,
          burst: bucket.limit.burst,
        })),
        now,
      )
    } catch (err) {
      // The counts are sent again next time; the local buckets hold meanwhile.
      for (const { bucket, sent } of batch) bucket.spent += sent
      throw err
    }
    for (const { bucket } of batch) {
      const tokens = level.get(bucket.id!)
      if (tokens === undefined) continue
      // The shared level is as of `now`; what was taken here since then is taken from it.
      bucket.tokens = Math.min(bucket.limit.burst, tokens - bucket.spent)
      bucket.at = now
    }
  }

  function sync(): Promise<void> {
    running ??= exchange().finally(() => (running = null))
    return running
  }

  return {
    check,
    sync,
    start() {
      if (timer !== null) return
      // A database outage must not stop the limits: the local buckets go on alone meanwhile.
      timer = setInterval(() => sync().catch(() => {}), SYNC_MS)
      timer.unref()
    },
    async close() {
      if (timer !== null) clearInterval(timer)
      timer = null
      await running?.catch(() => {})
    },
  }
}

/**
 * The `RateLimit-Policy` field of a class: its quota `q` is the burst and its window `w` the
 * seconds the bucket takes to refill from empty, so a client that keeps to it is never refused
 * (a bucket allows a burst and then `rate` a second; the field has no way to say both).
 */
export function policyField(cls: LimitClass, limit: Limit): string {
  const window = Math.max(1, Math.round(limit.burst / limit.rate))
  return `"${POLICY_NAMES[cls]}";q=${Math.floor(limit.burst)};w=${window}`
}

/**
 * The client's address: the socket's peer, or with `trustProxy` = n > 0 the address the
 * outermost of n trusted reverse proxies saw, the n-th of `X-Forwarded-For` from the right
 * (each proxy appends the address it received from; entries further left were sent by the
 * client and prove nothing). Fewer entries than that: the leftmost.
 */
export function clientAddress(req: Request, trustProxy: number): string {
  const peer = req.address
  if (trustProxy <= 0) return peer
  const header = req.headers['x-forwarded-for']
  if (typeof header !== 'string' || header === '') return peer
  const hops = header.split(',')
  return hops[Math.max(0, hops.length - trustProxy)]!.trim() || peer
}

/**
 * The key of an address: an IPv4 address as it is (also one mapped into IPv6), an IPv6
 * address by its /64 network, since one subscriber usually holds a whole /64 and could
 * otherwise take a new address for every request.
 */
export function addressKey(address: string): string {
  if (!address.includes(':')) return address
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7)
  const bare = address.split('%')[0]!
  const [head, tail] = bare.split('::') as [string, string | undefined]
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`
}
