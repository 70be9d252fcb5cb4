/**
 * Rate limits on the whole application as `npm start` runs it, with tight limits set through
 * `RATE_LIMIT` and `RATE_LIMIT_SIGNIN`: the request past a token's burst is answered 429 with
 * the header fields, another token goes on, and sign-in runs out before reads do.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { startApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createLogger } from '../src/base/log.ts'
import { testDatabase } from './support/db.ts'

const db = await testDatabase()
const config = loadConfig({
  HOST: '127.0.0.1',
  NOTES_PORT: '0',
  TICKETS_PORT: '0',
  DEV_IDP_PORT: '0',
  DEV_SIGNIN: '1',
  // Refills are negligible within the test: 4 requests per token, 3 sign-in requests per address.
  RATE_LIMIT: '0.001,4',
  RATE_LIMIT_SIGNIN: '0.001,3',
})
const app = await startApp(config, {
  logger: createLogger(null),
  db: {
    sql: db.sql,
    kind: process.env.TEST_DATABASE_KIND === 'embedded' ? 'embedded' : 'postgres',
    close: async () => {},
  },
})
db.stopFirst(() => app.close())
const tickets = app.servers.tickets!.url
const notes = app.servers.notes!.url

// A second application behind a trusted proxy, so each test that uses it counts for an address
// of its own. Both start before any test is declared: a test file's `after` hooks may run once
// the tests declared so far have ended, while the file still awaits at its top level.
const proxied = await startApp(
  loadConfig({
    HOST: '127.0.0.1',
    NOTES_PORT: '0',
    TICKETS_PORT: '0',
    DEV_IDP_PORT: '0',
    DEV_SIGNIN: '1',
    RATE_LIMIT: '0.001,4',
    RATE_LIMIT_SIGNIN: '0.001,3',
    TRUST_PROXY: '1',
  }),
  {
    logger: createLogger(null),
    db: {
      sql: db.sql,
      kind: process.env.TEST_DATABASE_KIND === 'embedded' ? 'embedded' : 'postgres',
      close: async () => {},
    },
  },
)
db.stopFirst(() => proxied.close())

/** A user of the ticket service with a token, made in the database as the service stores them (docs/core.md). */
async function tokenOf(name: string): Promise<string> {
  const id = `u-${name}`
  await db.sql`insert into users (id, idp_id, name, created) values (${id}, ${`idp-${name}`}, ${name}, ${Date.now()})`
  const token = `tt_${randomBytes(32).toString('base64url')}`
  const hash = createHash('sha256').update(token).digest('hex')
  await db.sql`insert into tokens (id, user_id, hash, label, created) values (${`t-${name}`}, ${id}, ${hash}, 'test', ${Date.now()})`
  return token
}

test("the request past a token's burst answers 429 with the header fields; another token goes on", async () => {
  const alice = await tokenOf('alice')
  const bob = await tokenOf('bob')
  const read = (token: string) =>
    fetch(`${tickets}/api/tickets`, { headers: { authorization: `Bearer ${token}` } })
  for (let i = 0; i < 4; i++)
    assert.equal((await read(alice)).status, 200, `alice's request ${i + 1}`)
  const refused = await read(alice)
  assert.equal(refused.status, 429)
  assert.deepEqual(await refused.json(), { error: 'too many requests' })
  assert.match(refused.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/)
  assert.equal(refused.headers.get('ratelimit-policy'), '"api";q=4;w=4000')
  assert.equal(
    refused.headers.get('ratelimit'),
    `"api";r=0;t=${refused.headers.get('retry-after')}`,
  )
  const other = await read(bob)
  assert.equal(other.status, 200, "bob's token is not touched by alice's")
  assert.ok(Array.isArray(((await other.json()) as { tickets: unknown }).tickets))
})

test('sign-in runs out before reads, by address, with its own policy', async () => {
  const login = () => fetch(`${notes}/login?next=/`, { redirect: 'manual' })
  for (let i = 0; i < 3; i++) assert.equal((await login()).status, 302)
  const refused = await login()
  assert.equal(refused.status, 429)
  assert.equal(refused.headers.get('ratelimit-policy'), '"sign-in";q=3;w=3000')
  // The address's bucket for reads is another one.
  assert.equal((await fetch(`${notes}/api/me`)).status, 200)
  // The code exchange of connected apps is a sign-in route too, on the ticket service.
  const exchange = () =>
    fetch(`${tickets}/api/connect/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  for (let i = 0; i < 3; i++) assert.notEqual((await exchange()).status, 429)
  assert.equal((await exchange()).status, 429)
})

test('/healthz is never limited', async () => {
  for (let i = 0; i < 10; i++) assert.equal((await fetch(`${notes}/healthz`)).status, 200)
})

/** The statuses of `n` requests from `address`, the i-th with `headers(i)`. */
async function statuses(
  url: string,
  address: string,
  n: number,
  headers: (i: number) => Record<string, string>,
): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++)
    out.push((await fetch(url, { headers: { 'x-forwarded-for': address, ...headers(i) } })).status)
  return out
}

test('a made-up token changed every few requests buys no fresh bucket: its address meets 429 after its burst', async () => {
  // The issue's probe, scaled down: a junk token changed every 4 requests (the burst).
  const got = await statuses(
    `${proxied.servers.tickets!.url}/api/tickets`,
    '198.51.100.1',
    20,
    (i) => ({ authorization: `Bearer tt_junk${Math.floor(i / 4)}` }),
  )
  assert.deepEqual(got, [200, 200, 200, 200, ...Array<number>(16).fill(429)])
})

test('a made-up session cookie changed every few requests buys no fresh bucket either', async () => {
  const got = await statuses(`${proxied.servers.notes!.url}/api/me`, '198.51.100.2', 12, (i) => ({
    cookie: `notes_session=junk${Math.floor(i / 4)}`,
  }))
  assert.deepEqual(got, [200, 200, 200, 200, ...Array<number>(8).fill(429)])
})

test('a real token counts on its own bucket once verified, the address paying only for its first request', async () => {
  const token = await tokenOf('carol')
  const url = `${proxied.servers.tickets!.url}/api/tickets`
  const real = await statuses(url, '198.51.100.3', 5, () => ({ authorization: `Bearer ${token}` }))
  assert.deepEqual(real, [200, 200, 200, 200, 429])
  // The address gave the token's first request: 3 of its 4 are left.
  assert.deepEqual(await statuses(url, '198.51.100.3', 4, () => ({})), [200, 200, 200, 429])
})

test('a signed-in session cookie counts on its own bucket once verified', async () => {
  const notesUrl = proxied.servers.notes!.url
  const address = '198.51.100.4'
  const start = await fetch(`${notesUrl}/login?next=/`, {
    redirect: 'manual',
    headers: { 'x-forwarded-for': address },
  })
  const atProvider = new URL(start.headers.get('location')!)
  atProvider.searchParams.set('name', 'dora')
  const back = new URL((await fetch(atProvider, { redirect: 'manual' })).headers.get('location')!)
  const signedIn = await fetch(new URL(`${back.pathname}${back.search}`, notesUrl), {
    redirect: 'manual',
    headers: { 'x-forwarded-for': address },
  })
  const cookie = signedIn.headers
    .getSetCookie()
    .find((c) => c.startsWith('notes_session='))!
    .split(';')[0]!
  assert.deepEqual(
    await statuses(`${notesUrl}/api/me`, address, 5, () => ({ cookie })),
    [200, 200, 200, 200, 429],
  )
  assert.deepEqual(
    await statuses(`${notesUrl}/api/me`, address, 4, () => ({})),
    [200, 200, 200, 429],
  )
})

/** Signs `name` in at the notes service behind the proxy, from `address`: the session cookie's `name=value`. */
async function notesSession(name: string, address: string): Promise<string> {
  const notesUrl = proxied.servers.notes!.url
  const start = await fetch(`${notesUrl}/login?next=/`, {
    redirect: 'manual',
    headers: { 'x-forwarded-for': address },
  })
  const atProvider = new URL(start.headers.get('location')!)
  atProvider.searchParams.set('name', name)
  const back = new URL(
    (
      await fetch(atProvider, { redirect: 'manual', headers: { 'x-forwarded-for': address } })
    ).headers.get('location')!,
  )
  const signedIn = await fetch(new URL(`${back.pathname}${back.search}`, notesUrl), {
    redirect: 'manual',
    headers: { 'x-forwarded-for': address },
  })
  return signedIn.headers
    .getSetCookie()
    .find((c) => c.startsWith('notes_session='))!
    .split(';')[0]!
}

test('a session cookie spelled any other way opens no session: one cookie is one credential to the limiter', async () => {
  // The review's finding: `cookie + "A"` opened the same session, each spelling a bucket of its own.
  const cookie = await notesSession('erin', '198.51.100.5')
  let n = 0
  const me = async (c: string) => {
    // Each request from an address of its own, so that no limit answers instead.
    const res = await fetch(`${proxied.servers.notes!.url}/api/me`, {
      headers: { cookie: c, 'x-forwarded-for': `203.0.113.${++n}` },
    })
    assert.equal(res.status, 200)
    return (await res.json()) as { user: string | null }
  }
  assert.notEqual((await me(cookie)).user, null)
  for (const suffix of ['A', 'AA', 'w', '_', '-'])
    assert.equal((await me(cookie + suffix)).user, null, `cookie + ${suffix}`)
  assert.equal((await me(cookie.slice(0, -1))).user, null, 'cut short')
})

test('a token spelled any other way is no token', async () => {
  const token = await tokenOf('frank')
  const read = (authorization: string) =>
    fetch(`${proxied.servers.tickets!.url}/api/inbox`, {
      headers: { authorization, 'x-forwarded-for': '198.51.100.6' },
    })
  assert.equal((await read(`Bearer ${token}`)).status, 200)
  for (const spelling of [
    `Bearer ${token}A`,
    `Bearer ${token.slice(0, -1)}`,
    `Bearer ${token.slice(0, -1)}${token.at(-1) === 'A' ? 'B' : 'A'}`,
  ]) {
    assert.equal((await read(spelling)).status, 401, spelling)
  }
})

test("every token of one person counts on the person's one bucket", async () => {
  // The review's finding: each credential of a person had a bucket of its own.
  const first = await tokenOf('gina')
  const second = `tt_${randomBytes(32).toString('base64url')}`
  await db.sql`insert into tokens (id, user_id, hash, label, created) values ('t-gina-2', 'u-gina', ${createHash('sha256').update(second).digest('hex')}, 'second', ${Date.now()})`
  const url = `${proxied.servers.tickets!.url}/api/inbox`
  const got = [
    ...(await statuses(url, '192.0.2.17', 3, () => ({ authorization: `Bearer ${first}` }))),
    ...(await statuses(url, '192.0.2.18', 3, () => ({ authorization: `Bearer ${second}` }))),
  ]
  assert.deepEqual(got, [200, 200, 200, 200, 429, 429], 'one burst of 4 between the two tokens')
})
