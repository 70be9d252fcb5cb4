// The ticket API through the http core, against a trivial JSON route on the same server.
// Run: tsx bench/tickets.bench.ts   (DATABASE_URL set: that server; unset: an embedded database)
//
// Contenders, each measured in requests per second with the same concurrency:
//   trivial       GET /bench/trivial, answering { ok: true } (no database): the core's ceiling
//   list json     GET /api/projects/<slug>/tickets?state=all, 1,000 tickets
//   list markdown the same with Accept: text/markdown
//   create        POST /api/projects/<slug>/tickets with a user token (a second project, so the
//                 list stays at 1,000)
// Rounds interleave the contenders (their order rotates); each figure is the median of rounds.
// The client is node:http with keep-alive: fetch in the same process costs more CPU than the
// server it measures.

import { loginFailed } from '../src/auth/idp.ts'
import { loadConfig } from '../src/config.ts'
import { serve } from '../src/http/server.ts'
import { json } from '../src/http/response.ts'
import { createLogger } from '../src/base/log.ts'
import { benchDatabase, keepAliveClient } from './support.ts'
import { createSessions, loadSessionSecret } from '../src/auth/session.ts'
import { createTicketsService } from '../src/tickets/service.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'
import { issueToken } from '../src/tickets/api/tokens.ts'
import { storeUser } from '../src/tickets/store/users.ts'

const CONCURRENCY = 8
const POOL = 10
const TICKETS = 1_000
const ROUNDS = 5
const PER_ROUND: Record<string, number> = {
  trivial: 4_000,
  'list json': 60,
  'list markdown': 60,
  create: 400,
}

const database = await benchDatabase(POOL)
const { sql } = database
const embedded = database.kind === 'embedded'

const config = loadConfig({})
const logger = createLogger(null)
const secret = await loadSessionSecret(sql, null)
const sessions = createSessions({ sql, secret, service: 'tickets', secure: false, clock: Date.now })
const idp = {
  loginUrl: (r: string) => `http://idp.invalid/login?return=${encodeURIComponent(r)}`,
  exchange: async () => loginFailed('not in the bench'),
  signOut: async () => false,
}
const service = createTicketsService({
  sql,
  config,
  clock: Date.now,
  idp,
  sessions,
  logger,
  publicUrl: 'http://localhost:3002',
})
const routes = [
  ...service.routes,
  { method: 'GET' as const, path: '/bench/trivial', handler: () => json(200, { ok: true }) },
]
const server = await serve({ name: 'tickets', routes, host: '127.0.0.1', port: 0, logger })

const client = keepAliveClient(server.url, CONCURRENCY)
/** One request; answers the status and the body's length. */
const call = async (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) => {
  const res = await client.call(method, path, headers, body)
  return { status: res.status, length: Buffer.byteLength(res.text), text: res.text }
}

// The data: a user with a token, a project with 1,000 tickets in every state, another to create in.
const user = await storeUser(sql, { id: 'bench-user', name: 'bench' }, Date.now())
const { token } = await issueToken(createTicketStore({ sql, clock: Date.now }), user.id, 'bench')
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
for (const title of ['Listed', 'Created']) {
  const made = await call('POST', '/api/projects', auth, JSON.stringify({ title }))
  if (made.status !== 201) throw new Error(`could not create project ${title}: ${made.status}`)
}
await sql`
  insert into tickets (project_id, number, subject, summary, state, assignee_id, author_id, created, updated)
  select p.id, n, 'Ticket number ' || n || ' about something that needs doing',
    'A summary that the list does not show.', (array['open', 'doing', 'review', 'done', 'dropped'])[1 + n % 5],
    case when n % 3 = 0 then ${user.id} end, ${user.id}, 1700000000000 + n * 1000, 1700000000000 + n * 1000
  from projects p, generate_series(1, ${TICKETS}) as n where p.slug = 'listed'`
await sql`update projects set next_number = ${TICKETS + 1} where slug = 'listed'`

let created = 0
const contenders: Record<string, () => Promise<{ status: number; length: number }>> = {
  trivial: () => call('GET', '/bench/trivial', {}),
  'list json': () => call('GET', '/api/projects/listed/tickets?state=all', {}),
  'list markdown': () =>
    call('GET', '/api/projects/listed/tickets?state=all', { accept: 'text/markdown' }),
  create: () =>
    call(
      'POST',
      '/api/projects/created/tickets',
      auth,
      JSON.stringify({ subject: `Bench ticket ${++created}`, summary: 'made by the bench' }),
    ),
}
const expected: Record<string, number> = {
  trivial: 200,
  'list json': 200,
  'list markdown': 200,
  create: 201,
}

/** Sends `count` requests with CONCURRENCY workers; answers requests per second. */
async function measure(name: string, count: number): Promise<number> {
  let left = count
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) {
        const got = await contenders[name]!()
        if (got.status !== expected[name]) throw new Error(`${name}: status ${got.status}`)
      }
    }),
  )
  return count / ((performance.now() - started) / 1000)
}

const check = await contenders['list json']!()
const checkMd = await contenders['list markdown']!()
console.log(
  `# tickets bench on the ${embedded ? 'embedded' : 'PostgreSQL'} database: ${TICKETS} listed tickets (JSON ${check.length} bytes, Markdown ${checkMd.length} bytes), concurrency ${CONCURRENCY}`,
)

const names = Object.keys(contenders)
for (const name of names) await measure(name, Math.ceil(PER_ROUND[name]! / 4)) // warm-up
const results: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length]!
    results[name]!.push(await measure(name, PER_ROUND[name]!))
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const trivial = median(results.trivial!)
for (const name of names) {
  const rps = median(results[name]!)
  console.log(
    `${name.padEnd(14)} ${rps.toFixed(0).padStart(7)} req/s   ratio to trivial ${(rps / trivial).toFixed(4)}`,
  )
}

client.close()
await server.close()
await service.close?.()
await database.close()
