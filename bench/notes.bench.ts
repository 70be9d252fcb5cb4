// The notes API against the database alone.
// The API's save clients run in a second process (bench/clients/notes-saver.ts).
// Run: tsx bench/notes.bench.ts   (DATABASE_URL set: that server; unset: an embedded database)
//
// 1. Saves per second through the API (HTTP, session, checks, the store's save with its
//    revision) against single-row upserts sent straight through the postgres client, with the
//    same concurrency and pool size. Goal: at least 0.5.
// 2. Listing 10,000 notes through the API against a bare select of the same rows serialised
//    with JSON.stringify, same concurrency. Goal: at least 0.5 of its requests per second.
//
// Each worker saves as a user of its own (a person's phone and laptop rarely save at the same
// moment; many people do). Rounds interleave the contenders; each figure is the median.
// The client is node:http with keep-alive: fetch (undici) in the same process cost more CPU
// than the server it measured (GET /healthz: about 1,100/s with fetch, 9,000/s with node:http).

import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { serve } from '../src/http.ts'
import { loadConfig } from '../src/config.ts'
import { createLogger } from '../src/log.ts'
import { benchDatabase, keepAliveClient, median } from './support.ts'
import { createNotesService } from '../src/notes/service.ts'
import { createNoteStore } from '../src/notes/store.ts'
import { createSessions, loadSessionSecret } from '../src/session.ts'

const CONCURRENCY = 8
const POOL = 10
const SAVES_PER_ROUND = 1_600
const LIST_ROWS = 10_000
const LISTS_PER_ROUND = 40
const ROUNDS = 5
const GOAL = 0.5

const database = await benchDatabase(POOL)
const { sql } = database
const embedded = database.kind === 'embedded'
await sql`create table bench_upserts (user_id text, id text, text text not null, edited bigint not null, primary key (user_id, id))`

const config = loadConfig({})
const secret = await loadSessionSecret(sql, null)
const sessions = createSessions({ sql, secret, service: 'notes', secure: false, clock: Date.now })
const logger = createLogger(null)
const idp = { loginUrl: () => '', exchange: async () => ({ ok: false as const, error: 'not in the bench' }) }
const service = createNotesService({ sql, config, clock: Date.now, idp, sessions, logger, publicUrl: 'http://localhost' })
const server = await serve({ name: 'notes', routes: service.routes, host: '127.0.0.1', port: 0, logger })

async function cookieFor(user: string): Promise<string> {
  const session = sessions.create()
  session.userId = user
  await sessions.save(session)
  return sessions.cookie(session).split(';')[0]!
}

const workers = await Promise.all(Array.from({ length: CONCURRENCY }, async (_, i) => ({ user: `saver-${i}`, cookie: await cookieFor(`saver-${i}`) })))
const lister = await cookieFor('lister')
await sql`
  insert into notes (user_id, id, text, created, edited, gone)
  select 'lister', 'note-' || n, 'text of note ' || n, 1700000000000 + n, 1700000000000 + n, n % 10 = 0
  from generate_series(1, ${LIST_ROWS}) as n`

const client = keepAliveClient(server.url, CONCURRENCY)
const call = client.call

function noteText(n: number): string {
  return `Shopping list ${n}\n- milk\n- bread\n- eggs\n- coffee, the good one\nCall the plumber about the kitchen tap.\n`
}

/** Runs `total` calls of `one` over CONCURRENCY workers; answers calls per second. */
async function perSecond(total: number, one: (worker: number, n: number) => Promise<void>): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
    while (next < total) await one(w, next++)
  }))
  return total / ((performance.now() - started) / 1000)
}

// The API's clients run in a second process, as real clients do (bench/clients/notes-saver.ts):
// in this process their HTTP client work would be charged to the server. It stays up for all
// the rounds and is warmed up with the rest by compare()'s first, uncounted call.
const saver = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./clients/notes-saver.ts', import.meta.url)), server.url], {
  stdio: ['pipe', 'pipe', 'inherit'],
  env: { ...process.env, NOTES_BENCH_COOKIES: JSON.stringify(workers.map((w) => w.cookie)) },
})
const saverLines = createInterface({ input: saver.stdout! })[Symbol.asyncIterator]()
saver.on('exit', (code) => {
  if (code !== 0) console.error(`the save client exited with ${code}`)
})

async function apiSaves(): Promise<number> {
  saver.stdin!.write(`${SAVES_PER_ROUND}\n`)
  const line = await saverLines.next()
  if (line.done) throw new Error('the save client stopped')
  return (JSON.parse(line.value) as { perSecond: number }).perSecond
}

async function directUpserts(): Promise<number> {
  return perSecond(SAVES_PER_ROUND, async (w, n) => {
    await sql`
      insert into bench_upserts (user_id, id, text, edited) values (${workers[w]!.user}, 'bench', ${noteText(n)}, ${Date.now()})
      on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited`
  })
}

// Not a goal: the store's save alone, to tell its cost from that of HTTP and the session.
const store = createNoteStore({ sql, clock: Date.now })
const storeBases = workers.map(() => 0)
async function storeSaves(): Promise<number> {
  return perSecond(SAVES_PER_ROUND, async (w, n) => {
    const result = await store.save(`store-${w}`, { id: 'bench', local: 'bench', text: noteText(n), base: storeBases[w]!, at: Date.now() })
    if ('error' in result || result.copy) throw new Error(`store save answered ${JSON.stringify(result).slice(0, 200)}`)
    storeBases[w] = result.edited
  })
}

async function apiLists(): Promise<number> {
  return perSecond(LISTS_PER_ROUND, async () => {
    const res = await call('GET', '/api/notes', { cookie: lister })
    if (res.status !== 200 || res.text.length < LIST_ROWS * 30) throw new Error(`list answered ${res.status}`)
  })
}

async function bareSelects(): Promise<number> {
  return perSecond(LISTS_PER_ROUND, async () => {
    const rows = await sql`select id, edited, gone from notes where user_id = 'lister' order by edited`
    JSON.stringify({ notes: rows })
  })
}


async function compare(name: string, ours: () => Promise<number>, theirs: () => Promise<number>, goal = GOAL): Promise<boolean> {
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
  const verdict = goal === 0 ? '(no goal)' : `(goal ${goal}) ${ratio >= goal ? 'ok' : 'BELOW GOAL'}`
  console.log(`${name}: ours ${median(a).toFixed(0)}/s, direct ${median(b).toFixed(0)}/s, ratio ${ratio.toFixed(2)} ${verdict}`)
  return ratio >= goal
}

console.log(`# notes bench on ${embedded ? 'the embedded database (PGlite)' : 'the PostgreSQL server of DATABASE_URL'}, concurrency ${CONCURRENCY}, pool ${POOL}`)
let ok = false
try {
  const saves = await compare('saves through the API', apiSaves, directUpserts)
  await compare('saves through the store, no HTTP', storeSaves, directUpserts, 0)
  const lists = await compare(`list of ${LIST_ROWS} through the API`, apiLists, bareSelects)
  ok = saves && lists
} finally {
  saver.stdin!.end()
  client.close()
  await server.close()
  await database.close()
}
process.exitCode = ok ? 0 : 1
