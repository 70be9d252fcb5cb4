/**
 * Hostile requests on every route of both services (docs/core.md, "Text"): the routes come from
 * each service's own route table, so a new route is fuzzed without a change here. Each request
 * carries a mix of U+0000, lone surrogates, bytes that are not UTF-8, bad percent-encodings,
 * wrong types, huge strings, deep nesting, `__proto__` keys and forged cookies in its path, query,
 * body and headers; signed out, with a session and with a token, on ids that exist so the store
 * code runs. Nothing may answer 5xx and nothing may be logged as an error. Seeded, so a failure
 * names the seed and the request that reproduces it: `FUZZ_SEED=<n>` runs another seed,
 * `FUZZ_PER_ROUTE=<n>` sends more requests a route, `FUZZ_DEBUG=1` prints every answer.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { createHandler, type HttpRoute } from '../src/http/handler.ts'
import type { Logger } from '../src/base/log.ts'
import { createNotesService } from '../src/notes/service.ts'
import { makeRequest } from '../src/http/request.ts'
import type { Response } from '../src/http/response.ts'
import { createTicketsService } from '../src/tickets/service.ts'
import { notesService } from './notes/support.ts'
import { prng } from './support/prng.ts'
import { serviceDeps } from './support/service.ts'
import { ticketsApp } from './tickets/support.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 20261124)
/** Requests per route of each service. */
const PER_ROUTE = Number(process.env.FUZZ_PER_ROUTE ?? 24)

type Random = () => number

/** Strings no field should store as sent, or that push on limits and parsers. */
const HOSTILE_TEXT = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'x\ud800y',
  '\udc00',
  'ok\ud83d',
  '\ude00\ud83d',
  '\ufffd',
  '\u202e\u2066',
  '__proto__',
  'constructor',
  'toString',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "'; drop table users; --",
  '%00',
  '%ED%A0%80',
  'web#1',
  'web#999999999999',
  '-1',
  '0',
  '1e9',
  '2147483648',
  'NaN',
  'null',
  'true',
  'x'.repeat(501),
  'y'.repeat(100_001),
  '🚀'.repeat(300),
  'a\r\nset-cookie: x=y',
]

/** Texts the database cannot hold as sent: every field must refuse them. */
const DEFECT_TEXT = [
  'a\u0000b',
  '\u0000',
  'x\ud800y',
  '\udc00',
  'ok\ud83d',
  '\ude00\ud83d',
  '\ud800\u0000',
]

/** Raw segments for a path parameter: percent-encodings good and bad. */
const HOSTILE_SEGMENT = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  '%ZZ',
  '%',
  '__proto__',
  'constructor',
  '..',
  '%2F',
  'x'.repeat(3000),
  encodeURIComponent('é🚀'),
  '-1',
  '0',
  '99999999999',
  '1.5',
  '00000000-0000-0000-0000-000000000000',
]

/** Raw query values. */
const HOSTILE_QUERY = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  'x%E2%82',
  '%ZZ',
  '%',
  '',
  '__proto__',
  'all',
  'open,doing,nope',
  '-1',
  '99999999999999999999',
  '1e3',
  encodeURIComponent('é🚀'),
  'x'.repeat(5000),
  '%2Flogin%2Fx',
  '//evil.example',
]
const QUERY_NAMES = [
  'id',
  'since',
  'project',
  'state',
  'after',
  'next',
  'idp_code',
  'invite',
  'app',
  'label',
  'return',
  'q',
  '__proto__',
  'constructor',
]

/** Whole bodies, as bytes, that no route should choke on. */
const HOSTILE_BODIES: (string | Uint8Array)[] = [
  '',
  ' ',
  'null',
  '[]',
  '"x"',
  '0',
  '{',
  '{"a":1,}',
  '[1 2]',
  '\ufeff{}',
  '{"__proto__":{"x":"y"}}',
  '{"constructor":"x"}',
  '['.repeat(600) + ']'.repeat(600),
  '{"a":'.repeat(513) + '1' + '}'.repeat(513),
  '[' + '0,'.repeat(50_000) + '0]',
  new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), // {"a":"<FF>"}
  new Uint8Array([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]), // a UTF-8-encoded surrogate as a key
  new Uint8Array([0xc0, 0xaf]),
]

/** Field names a body may carry: every route's, and a few no route takes. */
const FIELD_NAMES = [
  'text',
  'state',
  'subject',
  'summary',
  'source',
  'assignee',
  'project',
  'title',
  'slug',
  'description',
  'user',
  'role',
  'uses',
  'days',
  'label',
  'id',
  'code',
  'parent',
  'add',
  'remove',
  'op',
  'local',
  'base',
  'at',
  'author',
  '__proto__',
  'constructor',
]

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!
}

/** A JSON value of any type, sometimes nested deep. */
function anyValue(random: Random, depth = 0): unknown {
  const r = random()
  if (r < 0.45) return pick(random, HOSTILE_TEXT)
  if (r < 0.55) return pick(random, [0, -1, 1.5, 1e308, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, -0])
  if (r < 0.62) return pick(random, [null, true, false])
  if (depth > 3) return 'leaf'
  if (r < 0.75) return [anyValue(random, depth + 1), anyValue(random, depth + 1)]
  if (r < 0.85) return { [pick(random, FIELD_NAMES)]: anyValue(random, depth + 1) }
  let deep: unknown = 'bottom'
  for (let i = 0; i < 100; i++) deep = [deep]
  return deep
}

/** A JSON text with `__proto__` as an own key (JSON.stringify cannot write one). */
function withProtoKey(body: Record<string, unknown>): string {
  const text = JSON.stringify(body)
  return text === '{}' ? '{"__proto__":"x"}' : `{"__proto__":{"admin":true},${text.slice(1)}`
}

/** One hostile body for a route, built around a body the route would accept. */
function hostileBody(random: Random, good: Record<string, unknown>): string | Uint8Array {
  const r = random()
  if (r < 0.1) return pick(random, HOSTILE_BODIES)
  const body: Record<string, unknown> = { ...good }
  const names = Object.keys(body)
  if (r < 0.75 && names.length > 0) {
    // One field of a good body made hostile: the checks after the body's shape run.
    const s = random()
    body[pick(random, names)] =
      s < 0.5 ? pick(random, DEFECT_TEXT) : s < 0.85 ? pick(random, HOSTILE_TEXT) : anyValue(random)
  } else if (r < 0.85) {
    body[pick(random, FIELD_NAMES)] = anyValue(random)
  } else if (r < 0.9) {
    return withProtoKey(body)
  }
  return JSON.stringify(body)
}

/** A request path for `route`: its parameters real ids, or hostile segments. */
function pathFor(random: Random, route: HttpRoute, real: Record<string, string[]>): string {
  return route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const known = real[name]
    return known && random() < 0.85
      ? encodeURIComponent(pick(random, known))
      : pick(random, HOSTILE_SEGMENT)
  })
}

function queryFor(random: Random, good: Record<string, string>): string {
  const parts: string[] = []
  for (const [name, value] of Object.entries(good))
    if (random() < 0.5) parts.push(`${name}=${encodeURIComponent(value)}`)
  // Seldom: a query that is not UTF-8 is refused before the route runs.
  if (random() < 0.25) parts.push(`${pick(random, QUERY_NAMES)}=${pick(random, HOSTILE_QUERY)}`)
  if (random() < 0.05) parts.push(`${pick(random, HOSTILE_QUERY)}=1`)
  return parts.length === 0 ? '' : `?${parts.join('&')}`
}

/** A logger that keeps every line: the handlers log only unexpected errors. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return { lines, line: (text) => void lines.push(text), flush() {} }
}

interface Credential {
  name: string
  headers: Record<string, string>
}

interface Fuzzed {
  routes: readonly HttpRoute[]
  handler: (req: ReturnType<typeof makeRequest>) => Promise<Response>
  logger: { lines: string[] }
  credentials: Credential[]
  real: Record<string, string[]>
  /** A body a route would accept, by path (a guess for routes not named). */
  goodBody(route: HttpRoute, random: Random): Record<string, unknown>
  goodQuery(route: HttpRoute): Record<string, string>
}

const FORGED: Credential[] = [
  { name: 'signed out', headers: {} },
  {
    name: 'forged cookie',
    headers: {
      cookie: 'tickets_session=AAAA; notes_session=bm90IHNlYWxlZA; __proto__=x; constructor=y',
    },
  },
  {
    name: 'cookie with bytes that are not text',
    headers: { cookie: 'tickets_session=\u00ff\u00fe%00; notes_session="\u00e9\u0001"' },
  },
  { name: 'bad bearer', headers: { authorization: 'Bearer tt_\u00ff\u00e9' } },
  { name: 'bearer project key that does not exist', headers: { authorization: 'Bearer tk_nope' } },
]

async function fuzz(service: string, f: Fuzzed): Promise<void> {
  const random = prng(SEED)
  let sent = 0
  for (const route of f.routes) {
    for (let i = 0; i < PER_ROUTE; i++) {
      const method =
        route.method === '*'
          ? pick(random, ['GET', 'POST', 'PUT', 'DELETE', 'HEAD'])
          : random() < 0.9
            ? route.method
            : pick(random, ['PATCH', 'OPTIONS'])
      const credential = random() < 0.85 ? pick(random, f.credentials) : pick(random, FORGED)
      const url = pathFor(random, route, f.real) + queryFor(random, f.goodQuery(route))
      const headers: Record<string, string> = { ...credential.headers }
      if (random() < 0.8) headers['content-type'] = 'application/json'
      if (random() < 0.2) headers.accept = 'text/markdown'
      if (random() < 0.1) headers.origin = 'https://evil.example'
      if (random() < 0.1) headers['x-tag'] = pick(random, ['', 'wrong', '\u00ff'])
      const body =
        method === 'GET' || method === 'HEAD'
          ? undefined
          : hostileBody(random, f.goodBody(route, random))
      const shown = `${service} seed ${SEED}: ${method} ${url.slice(0, 300)} as ${credential.name} with ${typeof body === 'string' ? body.slice(0, 300) : String(body)}`
      const response = await f.handler(
        makeRequest({ method, url, headers, body, signal: AbortSignal.timeout(20) }),
      )
      sent++
      if (process.env.FUZZ_DEBUG)
        console.log(
          `# ${response.status} ${method} ${route.path} ${credential.name} ${typeof body === 'string' ? body.slice(0, 80) : ''} -> ${String(response.body).slice(0, 100)}`,
        )
      assert.ok(
        response.status < 500,
        `${shown} answered ${response.status}: ${String(response.body).slice(0, 300)}`,
      )
      assert.deepEqual(f.logger.lines, [], `${shown} logged an error`)
    }
  }
  assert.ok(sent >= f.routes.length * PER_ROUTE)
}

test('no route of the ticket service answers 5xx or logs an error for hostile input', async () => {
  const app = await ticketsApp()
  const alice = await app.login('alice')
  const bob = await app.login('bob')
  await app.login('carol')
  const demo = await app.project(alice, 'Demo')
  await app.member(alice, demo.slug, bob, 'edit')
  const t1 = await app.ticket(alice, demo.slug, { subject: 'First' })
  const t2 = await app.ticket(alice, demo.slug, { subject: 'Second' })
  // A token of alice's for the revoke route, so the tokens the requests use stay.
  const spare = (
    await app.call('POST', '/api/tokens', { token: alice.token, body: { label: 'spare' } })
  ).body as { id: string }

  // The same schema and session secret, with a logger that keeps what the handlers log.
  const logger = recordingLogger()
  const { deps } = await serviceDeps(app.sql, 'tickets', { clock: app.clock.now })
  const service = createTicketsService({ ...deps, logger })
  after(() => service.close?.())
  const handler = createHandler(service.routes, { name: 'tickets', logger })

  const good: Record<string, string> = {
    text: 'a comment',
    state: 'doing',
    subject: 'A subject',
    summary: 'A summary',
    source: 'src-1',
    assignee: 'bob',
    project: demo.slug,
    title: 'A title',
    slug: 'fuzzed',
    description: 'd',
    user: 'carol',
    role: 'use',
    uses: '2',
    days: '3',
    label: 'a label',
    id: spare.id,
    code: 'nope',
    parent: t2.ref,
    add: t2.ref,
    remove: t2.ref,
  }
  // The fields a route takes, found by asking it: each `'x' is required` names one more.
  const shapes = new Map<HttpRoute, Record<string, unknown>>()
  for (const route of service.routes) {
    if (route.method !== 'POST') continue
    const body: Record<string, unknown> = {}
    const path = route.path
      .replace(':slug', demo.slug)
      .replace(':ref', t1.id)
      .replace(':number', String(t1.number))
      .replace(':nonce', 'n')
    for (let i = 0; i < 6; i++) {
      const answer = await handler(
        makeRequest({
          method: 'POST',
          url: path,
          headers: { authorization: `Bearer ${alice.token}` },
          body: JSON.stringify(body),
        }),
      )
      const refusal =
        answer.status === 400
          ? (JSON.parse(String(answer.body)) as { error: string; field?: string })
          : null
      if (refusal?.field === undefined || refusal.error !== `'${refusal.field}' is required`) break
      body[refusal.field] = good[refusal.field] ?? 'x'
    }
    shapes.set(route, body)
  }
  logger.lines.length = 0

  await fuzz('tickets', {
    routes: service.routes,
    handler,
    logger,
    credentials: [
      { name: 'alice by token', headers: { authorization: `Bearer ${alice.token}` } },
      { name: 'bob by token', headers: { authorization: `Bearer ${bob.token}` } },
      { name: 'alice by session', headers: { cookie: alice.cookie, 'x-tag': alice.tag } },
      { name: 'alice by session without her tag', headers: { cookie: alice.cookie } },
    ],
    real: {
      slug: [demo.slug, demo.id],
      ref: [t1.id, t2.id],
      number: [String(t1.number), String(t2.number)],
    },
    goodBody: (route, random) => {
      const shape = shapes.get(route) ?? {}
      // Optional fields too, now and then, so their checks run.
      const extra = pick(random, Object.keys(good))
      return Object.keys(shape).length > 0 || route.path.endsWith('/edit')
        ? { ...shape, ...(route.path.endsWith('/edit') ? { summary: good.summary } : {}) }
        : { [extra]: good[extra] }
    },
    goodQuery: () => ({ project: demo.slug, state: 'all', after: '0' }),
  })
})

test('no route of the notes service answers 5xx or logs an error for hostile input', async () => {
  const app = await notesService()
  const cookie = await app.signIn('alice')
  const saved = await app.post(cookie, {
    op: 'save',
    id: 'groceries',
    local: 'phone',
    text: 'milk\n',
    base: 0,
    at: 1,
  })
  assert.equal(saved.status, 200, saved.text)

  const logger = recordingLogger()
  const { deps } = await serviceDeps(app.sql, 'notes', { clock: app.clock.now })
  const service = createNotesService({ ...deps, logger })
  after(() => service.close?.())
  const handler = createHandler(service.routes, { name: 'notes', logger })

  await fuzz('notes', {
    routes: service.routes,
    handler,
    logger,
    credentials: [
      { name: 'alice by session', headers: { cookie } },
      {
        name: 'alice by session from another site',
        headers: { cookie, 'sec-fetch-site': 'cross-site' },
      },
    ],
    real: {},
    goodBody: (route, random) =>
      route.path === '/api/notes'
        ? pick(random, [
            {
              op: 'save',
              id: 'groceries',
              local: 'laptop',
              text: 'oat milk\n',
              base: saved.json.edited,
              at: 2,
            },
            { op: 'save', id: 'new', local: 'phone', text: 'x', base: 0, at: 3 },
            { op: 'delete', id: 'groceries', base: 0 },
          ])
        : {},
    goodQuery: (route): Record<string, string> =>
      route.path.startsWith('/api/')
        ? { id: 'groceries', since: '0' }
        : { idp_code: 'nope', next: '/x' },
  })
})
