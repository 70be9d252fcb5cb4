// The notes list against the database alone.
// Run: tsx bench/notes.bench.ts   (DATABASE_URL set: that server; unset: an embedded database)
//
// Listing 10,000 notes through the API against a bare select of the same rows serialised with
// JSON.stringify, same concurrency. Goal: at least 0.5 of its requests per second. Rounds
// interleave the contenders; each figure is the median.
//
// The note save is measured by the writes bench (bench/writes.bench.ts) against a bare node:http
// server running the same statement; its old comparison here, with a one-row upsert, measured
// the schema rather than the code and is retired (issue 14).
// The client is node:http with keep-alive: fetch (undici) in the same process cost more CPU
// than the server it measured (GET /healthz: about 1,100/s with fetch, 9,000/s with node:http).

import { loginFailed } from '../src/auth/idp.ts'
import { serve } from '../src/http/server.ts'
import { loadConfig } from '../src/config.ts'
import { createLogger } from '../src/base/log.ts'
import { benchDatabase, keepAliveClient, median } from './support.ts'
import { createNotesService } from '../src/notes/service.ts'
import { createSessions, loadSessionSecret } from '../src/auth/session.ts'

const CONCURRENCY = 8
const POOL = 10
const LIST_ROWS = 10_000
const LISTS_PER_ROUND = 40
const ROUNDS = 5
const GOAL = 0.5

const database = await benchDatabase(POOL)
const { sql } = database
const embedded = database.kind === 'embedded'

const config = loadConfig({})
const secret = await loadSessionSecret(sql, null)
const sessions = createSessions({ sql, secret, service: 'notes', secure: false, clock: Date.now })
const logger = createLogger(null)
const idp = {
  loginUrl: () => '',
  exchange: async () => loginFailed('not in the bench'),
  signOut: async () => false,
}
const service = createNotesService({
  sql,
  config,
  clock: Date.now,
  idp,
  sessions,
  logger,
  publicUrl: 'http://localhost',
})
const server = await serve({
  name: 'notes',
  routes: service.routes,
  host: '127.0.0.1',
  port: 0,
  logger,
})

async function cookieFor(user: string): Promise<string> {
  const session = sessions.create()
  session.userId = user
  await sessions.save(session)
  return sessions.cookie(session).split(';')[0]!
}

const lister = await cookieFor('lister')
await sql`
  insert into notes (user_id, id, text, created, edited, gone)
  select 'lister', 'note-' || n, 'text of note ' || n, 1700000000000 + n, 1700000000000 + n, n % 10 = 0
  from generate_series(1, ${LIST_ROWS}) as n`

const client = keepAliveClient(server.url, CONCURRENCY)
const call = client.call

/** Runs `total` calls of `one` over CONCURRENCY workers; answers calls per second. */
async function perSecond(
  total: number,
  one: (worker: number, n: number) => Promise<void>,
): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      while (next < total) await one(w, next++)
    }),
  )
  return total / ((performance.now() - started) / 1000)
}

async function apiLists(): Promise<number> {
  return perSecond(LISTS_PER_ROUND, async () => {
    const res = await call('GET', '/api/notes', { cookie: lister })
    if (res.status !== 200 || res.text.length < LIST_ROWS * 30)
      throw new Error(`list answered ${res.status}`)
  })
}

async function bareSelects(): Promise<number> {
  return perSecond(LISTS_PER_ROUND, async () => {
    const rows =
      await sql`select id, edited, gone from notes where user_id = 'lister' order by edited`
    JSON.stringify({ notes: rows })
  })
}

async function compare(
  name: string,
  ours: () => Promise<number>,
  theirs: () => Promise<number>,
): Promise<boolean> {
  await ours()
  await theirs()
  const a: number[] = []
  const b: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      a.push(await ours())
      b.push(await theirs())
    } else {
      b.push(await theirs())
      a.push(await ours())
    }
  }
  const ratio = median(a) / median(b)
  const verdict = `(goal ${GOAL}) ${ratio >= GOAL ? 'ok' : 'BELOW GOAL'}`
  console.log(
    `${name}: ours ${median(a).toFixed(0)}/s, direct ${median(b).toFixed(0)}/s, ratio ${ratio.toFixed(2)} ${verdict}`,
  )
  return ratio >= GOAL
}

console.log(
  `# notes bench on ${embedded ? 'the embedded database (PGlite)' : 'the PostgreSQL server of DATABASE_URL'}, concurrency ${CONCURRENCY}, pool ${POOL}`,
)
let ok: boolean
try {
  ok = await compare(`list of ${LIST_ROWS} through the API`, apiLists, bareSelects)
} finally {
  client.close()
  await server.close()
  await database.close()
}
process.exitCode = ok ? 0 : 1
