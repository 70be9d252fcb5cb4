/**
 * The token buckets of src/limits/rate-limit.ts on a clock the test moves by hand: bursts, refill,
 * the 429 and its header fields, who counts as one client, and two limiters sharing one
 * database (on either database, as `npm test` runs this file).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { IncomingHttpHeaders } from 'node:http'
import type { Response } from '../src/http/response.ts'
import { makeRequest } from '../src/http/request.ts'
import {
  addressKey,
  clientAddress,
  createRateLimiter,
  TokenBucket,
  type Limits,
  type RateLimiter,
} from '../src/limits/rate-limit.ts'
import { createSharedBuckets } from '../src/limits/shared-buckets.ts'
import { testDatabase } from './support/db.ts'
import { testClock } from './support/service.ts'

const db = await testDatabase()
const TIGHT: Limits = { api: { rate: 2, burst: 5 }, signin: { rate: 0.5, burst: 2 } }

function get(headers: IncomingHttpHeaders = {}, address = '192.0.2.1') {
  return makeRequest({ url: '/api/notes', headers, address })
}

/** The limiter's answer to a request. */
function checkNow(
  limiter: RateLimiter,
  req: ReturnType<typeof get>,
  cls: 'api' | 'signin',
): Promise<Response | null> {
  return limiter.check(req, cls)
}

/** How many of `n` requests the limiter lets through in class `cls`. */
async function allowed(
  limiter: RateLimiter,
  n: number,
  headers: IncomingHttpHeaders = {},
  address?: string,
  cls: 'api' | 'signin' = 'api',
): Promise<number> {
  let ok = 0
  for (let i = 0; i < n; i++)
    if ((await checkNow(limiter, get(headers, address), cls)) === null) ok++
  return ok
}

/** How many of `n` requests a limiter that verifies credentials lets through, one after another. */
async function allowedVerified(
  limiter: RateLimiter,
  n: number,
  headers: IncomingHttpHeaders = {},
  address?: string,
): Promise<number> {
  let ok = 0
  for (let i = 0; i < n; i++) if ((await limiter.check(get(headers, address), 'api')) === null) ok++
  return ok
}

/** A `verify` that knows the credentials given, each its own owner. */
function knowing(
  ...credentials: string[]
): (req: ReturnType<typeof get>) => Promise<string | null> {
  return owning(Object.fromEntries(credentials.map((c) => [c, c])))
}

/** A `verify` that knows the credentials given, as belonging to the owners given. */
function owning(
  owners: Record<string, string>,
): (req: ReturnType<typeof get>) => Promise<string | null> {
  return async (req) => owners[req.headers.authorization ?? req.cookies.notes_session ?? ''] ?? null
}

test('a bucket gives its burst at once, then one request per 1/rate seconds', async () => {
  const bucket = new TokenBucket({ rate: 2, burst: 3 }, 0)
  assert.deepEqual([bucket.take(0), bucket.take(0), bucket.take(0)], [0, 0, 0])
  assert.equal(bucket.take(0), 500, 'the fourth waits half a second')
  assert.equal(bucket.take(250), 250)
  assert.equal(bucket.take(500), 0)
  assert.equal(bucket.take(500), 500)
})

test('a bucket never refills past its burst, and a clock that goes back refills nothing', async () => {
  const bucket = new TokenBucket({ rate: 10, burst: 2 }, 1000)
  bucket.take(1000)
  bucket.take(1000)
  bucket.refill(900)
  assert.equal(bucket.tokens, 0)
  bucket.refill(60_000)
  assert.equal(bucket.tokens, 2)
  assert.equal(bucket.full(60_000), true)
})

test('past its burst a client is answered 429 with Retry-After, RateLimit-Policy and RateLimit', async () => {
  const clock = testClock()
  const limiter = createRateLimiter({ limits: TIGHT, clock: clock.now })
  assert.equal(await allowed(limiter, 5), 5)
  const refused = await checkNow(limiter, get(), 'api')
  assert.ok(refused)
  assert.equal(refused.status, 429)
  assert.deepEqual(JSON.parse(String(refused.body)), { error: 'too many requests' })
  assert.equal(refused.headers?.['retry-after'], '1')
  assert.equal(refused.headers?.['ratelimit-policy'], '"api";q=5;w=3')
  assert.equal(refused.headers?.ratelimit, '"api";r=0;t=1')
  assert.equal(refused.headers?.['content-type'], 'application/json; charset=utf-8')
  clock.advance(500)
  assert.equal(await allowed(limiter, 2), 1, 'half a second at 2 a second refills one')
})

test('Retry-After and t are whole seconds, rounded up, and the same', async () => {
  const clock = testClock()
  const limiter = createRateLimiter({
    limits: { api: { rate: 0.1, burst: 1 }, signin: TIGHT.signin },
    clock: clock.now,
  })
  assert.equal(await allowed(limiter, 1), 1)
  clock.advance(2_500)
  const refused = await checkNow(limiter, get(), 'api')
  assert.equal(refused?.headers?.['retry-after'], '8')
  assert.equal(refused?.headers?.ratelimit, '"api";r=0;t=8')
  assert.equal(refused?.headers?.['ratelimit-policy'], '"api";q=1;w=10')
})

test("one token's limit does not touch another token's, nor the address's", async () => {
  const limiter = createRateLimiter({
    limits: TIGHT,
    clock: testClock().now,
    verify: knowing('Bearer tt_one', 'Bearer tt_two'),
  })
  assert.equal(await allowedVerified(limiter, 10, { authorization: 'Bearer tt_one' }), 5)
  assert.equal(await allowedVerified(limiter, 10, { authorization: 'Bearer tt_two' }), 5)
  // Each token's first request, before it was verified, counted on the address too: 3 of its 5 are left.
  assert.equal(await allowed(limiter, 10), 3)
})

test("the sessions and tokens of one person share the person's bucket: a new credential buys nothing", async () => {
  // The review's finding: ten sessions made from one provider session gave ten buckets.
  const limiter = createRateLimiter({
    limits: TIGHT,
    clock: testClock().now,
    cookieName: 'notes_session',
    verify: owning({
      s1: 'user:alice',
      s2: 'user:alice',
      'Bearer tt_a': 'user:alice',
      s3: 'user:bob',
    }),
  })
  const alice =
    (await allowedVerified(limiter, 10, { cookie: 'notes_session=s1' }, '192.0.2.1')) +
    (await allowedVerified(limiter, 10, { cookie: 'notes_session=s2' }, '192.0.2.2')) +
    (await allowedVerified(limiter, 10, { authorization: 'Bearer tt_a' }, '192.0.2.3'))
  assert.equal(alice, 5, "one burst for all of alice's credentials")
  assert.equal(
    await allowedVerified(limiter, 10, { cookie: 'notes_session=s3' }, '192.0.2.4'),
    5,
    "bob's bucket is his own",
  )
})

test('a session cookie the service knows counts as a credential, another cookie does not', async () => {
  const limiter = createRateLimiter({
    limits: TIGHT,
    clock: testClock().now,
    cookieName: 'notes_session',
    verify: knowing('abc', 'def'),
  })
  assert.equal(await allowedVerified(limiter, 10, { cookie: 'notes_session=abc' }), 5)
  assert.equal(await allowedVerified(limiter, 10, { cookie: 'notes_session=def; theme=dark' }), 5)
  assert.equal(
    await allowed(limiter, 10, { cookie: 'theme=dark' }),
    3,
    'no session cookie: by address',
  )
})

test('a new made-up credential with every request runs out when its address does', async () => {
  const limiter = createRateLimiter({ limits: TIGHT, clock: testClock().now })
  let ok = 0
  for (let i = 0; i < 20; i++)
    if ((await checkNow(limiter, get({ authorization: `Bearer made-up-${i}` }), 'api')) === null)
      ok++
  assert.equal(ok, 5)
  assert.equal(await allowed(limiter, 1, {}, '192.0.2.2'), 1, 'another address is not touched')
})

test('a made-up credential changed every few requests buys no bucket of its own: the address is all it gets', async () => {
  const limiter = createRateLimiter({
    limits: TIGHT,
    clock: testClock().now,
    cookieName: 'notes_session',
  })
  let ok = 0
  // The probe, scaled down: a junk token (or cookie) changed every 5 requests.
  for (let i = 0; i < 40; i++)
    if (
      (await limiter.check(
        get({ authorization: `Bearer tt_junk-${Math.floor(i / 5)}` }),
        'api',
      )) === null
    )
      ok++
  assert.equal(ok, 5)
  let cookies = 0
  for (let i = 0; i < 40; i++)
    if (
      (await limiter.check(
        get({ cookie: `notes_session=junk-${Math.floor(i / 5)}` }, '192.0.2.9'),
        'api',
      )) === null
    )
      cookies++
  assert.equal(cookies, 5)
})

test('a credential the service does not know counts by address, even beside a known cookie', async () => {
  const limiter = createRateLimiter({
    limits: TIGHT,
    clock: testClock().now,
    cookieName: 'notes_session',
    verify: knowing('valid'),
  })
  // A valid cookie and a junk header changed with every request: the header is what counts.
  let ok = 0
  for (let i = 0; i < 20; i++)
    if (
      (await limiter.check(
        get({ cookie: 'notes_session=valid', authorization: `Bearer junk-${i}` }),
        'api',
      )) === null
    )
      ok++
  assert.equal(ok, 5)
})

test('a credential whose check fails (the database away) counts by address', async () => {
  const limiter = createRateLimiter({
    limits: TIGHT,
    clock: testClock().now,
    verify: async () => Promise.reject(new Error('down')),
  })
  assert.equal(await allowedVerified(limiter, 10, { authorization: 'Bearer tt_real' }), 5)
})

test('sign-in counts by address even with a credential, in a bucket of its own', async () => {
  const limiter = createRateLimiter({ limits: TIGHT, clock: testClock().now })
  assert.equal(await allowed(limiter, 5, { authorization: 'Bearer a' }, undefined, 'signin'), 2)
  assert.equal(await allowed(limiter, 5, { authorization: 'Bearer b' }, undefined, 'signin'), 0)
  const refused = await checkNow(limiter, get(), 'signin')
  assert.equal(refused?.headers?.['ratelimit-policy'], '"sign-in";q=2;w=4')
  assert.equal(refused?.headers?.ratelimit, '"sign-in";r=0;t=2')
  assert.equal(await allowed(limiter, 5), 5, 'the api bucket of the address is whole')
})

test('different addresses count apart; X-Forwarded-For is read only with TRUST_PROXY', async () => {
  const spoofed = { 'x-forwarded-for': '203.0.113.9' }
  const direct = createRateLimiter({ limits: TIGHT, clock: testClock().now })
  assert.equal(
    (await allowed(direct, 3, spoofed, '192.0.2.1')) +
      (await allowed(direct, 3, { 'x-forwarded-for': '203.0.113.10' }, '192.0.2.1')),
    5,
  )
  assert.equal(await allowed(direct, 5, {}, '192.0.2.3'), 5)

  const proxied = createRateLimiter({ limits: TIGHT, clock: testClock().now, trustProxy: 1 })
  assert.equal(await allowed(proxied, 5, spoofed, '10.0.0.1'), 5)
  assert.equal(await allowed(proxied, 5, { 'x-forwarded-for': '203.0.113.10' }, '10.0.0.1'), 5)
})

test('clientAddress takes the address the outermost trusted proxy saw', async () => {
  const req = makeRequest({
    headers: { 'x-forwarded-for': '1.1.1.1, 2.2.2.2 ,3.3.3.3' },
    address: '10.0.0.1',
  })
  assert.equal(clientAddress(req, 0), '10.0.0.1')
  assert.equal(clientAddress(req, 1), '3.3.3.3')
  assert.equal(clientAddress(req, 2), '2.2.2.2')
  assert.equal(clientAddress(req, 3), '1.1.1.1')
  assert.equal(clientAddress(req, 9), '1.1.1.1', 'fewer entries than proxies: the leftmost')
  assert.equal(
    clientAddress(makeRequest({ address: '10.0.0.1' }), 1),
    '10.0.0.1',
    'no header: the socket',
  )
})

test('an IPv6 address counts by its /64, an IPv4 one mapped into IPv6 as itself', async () => {
  assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  assert.equal(addressKey('2001:db8:1:2::9'), '2001:db8:1:2::/64')
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64')
  assert.equal(addressKey('::1'), '0:0:0:0::/64')
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
  assert.equal(addressKey('::ffff:192.0.2.1'), '192.0.2.1')
  assert.equal(addressKey('192.0.2.1'), '192.0.2.1')
  const limiter = createRateLimiter({ limits: TIGHT, clock: testClock().now })
  assert.equal(
    (await allowed(limiter, 3, {}, '2001:db8:1:2::a')) +
      (await allowed(limiter, 3, {}, '2001:db8:1:2::b')),
    5,
  )
})

test("a sync in a process of its own changes no client's count", async () => {
  const clock = testClock()
  const limiter = createRateLimiter({ limits: TIGHT, clock: clock.now })
  await allowed(limiter, 5)
  clock.advance(1000)
  await limiter.sync()
  assert.equal(await allowed(limiter, 5), 2, 'the half-empty bucket was kept')
  clock.advance(10_000)
  await limiter.sync()
  assert.equal(await allowed(limiter, 9), 5)
})

test('two limiters sharing one database converge to one limit', async () => {
  const limits: Limits = { api: { rate: 2, burst: 10 }, signin: TIGHT.signin }
  const clock = testClock()
  const verify = knowing('Bearer tt_shared')
  const one = createRateLimiter({
    limits,
    clock: clock.now,
    verify,
    shared: createSharedBuckets(db.sql, 'notes'),
  })
  const two = createRateLimiter({
    limits,
    clock: clock.now,
    verify,
    shared: createSharedBuckets(db.connect(2), 'notes'),
  })
  const apart = [
    createRateLimiter({ limits, clock: clock.now, verify }),
    createRateLimiter({ limits, clock: clock.now, verify }),
  ]
  const token = { authorization: 'Bearer tt_shared' }
  let together = 0
  let separately = 0
  // 100 seconds of a client asking 5 times a second of each process; each syncs every second.
  for (let second = 0; second < 100; second++) {
    together += (await allowedVerified(one, 5, token)) + (await allowedVerified(two, 5, token))
    separately +=
      (await allowedVerified(apart[0]!, 5, token)) + (await allowedVerified(apart[1]!, 5, token))
    clock.advance(1000)
    await one.sync()
    await two.sync()
  }
  // One bucket gives at most 10 + 2 × 100 = 210; each process's first second may add one burst.
  assert.ok(together >= 200 && together <= 220, `shared: ${together} requests in 100 s`)
  assert.ok(separately >= 400, `not shared: ${separately}`)
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from rate_limits`
  assert.ok(row!.n >= 1, 'the shared bucket has its row')
  const stored = await db.sql<{ key: string }[]>`select key from rate_limits`
  assert.ok(
    stored.every((r) => !r.key.includes('tt_shared')),
    'no credential is stored',
  )
  await one.close()
  await two.close()
})

test('a limiter goes on counting on its own while the shared database is unreachable', async () => {
  const clock = testClock()
  const broken = db.connect(1)
  await broken.end()
  const limiter = createRateLimiter({
    limits: TIGHT,
    clock: clock.now,
    shared: createSharedBuckets(broken, 'notes'),
  })
  assert.equal(await allowed(limiter, 10), 5)
  await assert.rejects(limiter.sync())
  assert.equal(await allowed(limiter, 10), 0, 'the counts were kept')
  clock.advance(1000)
  assert.equal(await allowed(limiter, 10), 2)
})

test('the shared table refills a row to the present, takes the count off, and forgets it once full', async () => {
  const shared = createSharedBuckets(db.sql, 'tickets')
  const count = { key: 'sweep-test', rate: 1, burst: 5 }
  assert.equal((await shared.exchange([{ ...count, spent: 3 }], 10_000)).get('sweep-test'), 2)
  assert.equal((await shared.exchange([{ ...count, spent: 1 }], 11_500)).get('sweep-test'), 2.5)
  const rows = () => db.sql`select key from rate_limits where key = 'sweep-test'`
  await shared.sweep(13_000)
  assert.equal((await rows()).length, 1, 'not full yet at 4 of 5')
  await shared.sweep(14_000)
  assert.equal((await rows()).length, 0)
})
