/**
 * Growth: the same requests at three sizes of data, through the real services started as
 * `npm start` starts them (bench/scale/service.ts), against DATABASE_URL when set (in a schema of
 * the bench's own, dropped at the end), else the embedded database (PGlite in memory, in a
 * process of its own, served on a TCP port: the service reaches it as it reaches a server).
 *
 * Sizes: 1,000, 10,000 and 100,000 tickets (20 projects, 200 users, ten history events a
 * ticket, relations, live events) with 10,000, 100,000 and 1,000,000 notes (1,000 users), filled
 * with bulk SQL (bench/scale/fill.ts). `SCALE_BENCH_SIZES=1,2` runs only the first sizes.
 *
 * At each size, every route is measured in ROUNDS rounds of a few requests (their order rotates
 * between rounds; a round stops starting requests after ROUND_SECONDS), CONCURRENCY at a time from one keep-alive client in this process: requests
 * per second (median of the rounds) and the 99th percentile of every request's time. Few
 * requests a round keep the whole run to minutes; the p99 of a few hundred requests is their
 * few slowest, so read it as a rough figure. `/api/live` wake-ups are timed apart: polls wait,
 * a comment is written, and each poll's answer is timed from the moment the write was sent.
 *
 * The growth factor is the smallest size's requests per second over the largest's (2.0: half
 * as fast at 100 times the data). Goal: at most 1.5 for every route but the whole-list reads
 * (the project's list, which answers every open ticket of the project, and the inbox, which
 * answers every open ticket assigned to the caller; both grow with the data until lists page).
 *
 * Routes: create, comment, state change, a single ticket, a project's first page (`?limit=25`), the
 * search (`?q=`, its first page of `?limit=10`), a project's whole list, the inbox, a note save, a note list
 * `?since=`, and `/api/live` wake-ups. Then two rows of bulk writes (bench/scale/bulk.ts): one
 * statement each inserting, changing and deleting as many tickets as the size holds, and an import
 * of a file of as many; their figure is tickets a second and their "p99" the run's time in ms.
 *
 * At the largest size, `EXPLAIN (ANALYZE, BUFFERS)` of each hot query (bench/scale/queries.ts)
 * is printed and stored, with the figures, in docs/images/scale-<database>.json; the chart
 * docs/images/scale.svg is drawn from the files of both databases (bench/scale/chart.ts).
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { migrate } from '../src/db/migrate.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'
import { issueToken } from '../src/tickets/api/tokens.ts'
import { HttpConnection } from './clients/http-connection.ts'
import type { ScaleResults } from './scale/chart.ts'
import { redraw } from './scale/draw.ts'
import { fillBase, fillNotes, fillTickets, noteUser, PROJECTS, userId } from './scale/fill.ts'
import { bulkStatements, importRun } from './scale/bulk.ts'
import { explainAll } from './scale/queries.ts'
import { startService } from './scale/service.ts'
import {
  fmt,
  keepAliveClient,
  median,
  percentile,
  serviceDatabase,
  signedInCookie,
} from './support.ts'

const SIZES = [
  { tickets: 1_000, notes: 10_000 },
  { tickets: 10_000, notes: 100_000 },
  { tickets: 100_000, notes: 1_000_000 },
].slice(0, process.env.SCALE_BENCH_SIZES ? Number(process.env.SCALE_BENCH_SIZES) : 3)
const CONCURRENCY = 8
const ROUNDS = 3
const PER_ROUND = { write: 100, read: 150, list: 6 }
// A round of a route stops starting requests after this long: at the largest size some routes
// take seconds a request, and the bench must end in minutes.
const ROUND_SECONDS = 8
const LIVE_POLLS = 20
const LIVE_ROUNDS = 10
const GOAL = 1.5
/** What the search route is asked: a word of every subject, in one state (bench/scale/fill.ts). */
const SEARCH = 'needs state:review'
const IMAGES = fileURLToPath(new URL('../docs/images/', import.meta.url))

const started = performance.now()
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`

// The database: a schema of our own on the server, or a fresh embedded one.
// The bulk rows' statements run for as long as their size needs: no deadline for an answer.
const database = await serviceDatabase('scale', { answerTimeout: null })
const { kind, sql } = database

const secret = randomBytes(32)
let service: Awaited<ReturnType<typeof startService>> | null = null
let tc: ReturnType<typeof keepAliveClient> | null = null
let nc: ReturnType<typeof keepAliveClient> | null = null

try {
  await migrate(sql)
  await fillBase(sql)
  // The callers: a token of the first user (an admin everywhere) for the writes and reads, one
  // of the second for the inbox, and a session for each note-saving worker and for the lister.
  const token = (await issueToken(createTicketStore({ sql, clock: Date.now }), userId(1), 'bench'))
    .token
  const inboxToken = (
    await issueToken(createTicketStore({ sql, clock: Date.now }), userId(2), 'bench')
  ).token
  const cookieOf = (user: string) => signedInCookie(sql, new Uint8Array(secret), 'notes', user)
  const saverCookies = await Promise.all(
    Array.from({ length: CONCURRENCY }, (_, w) => cookieOf(noteUser(w + 1))),
  )
  const listerUser = noteUser(500)
  const listerCookie = await cookieOf(listerUser)

  service = await startService({
    DATABASE_URL: database.url,
    SESSION_SECRET: secret.toString('base64'),
    SERVICES: 'notes,tickets',
    RATE_LIMIT: '1000000000,1000000000',
  })
  const tickets = service.urls.tickets!
  const notes = service.urls.notes!
  tc = keepAliveClient(tickets, CONCURRENCY)
  nc = keepAliveClient(notes, CONCURRENCY)
  const tcall = tc.call
  const ncall = nc.call
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  console.log(
    `# growth bench: ${kind} database, services started as npm start starts them (${tickets}, ${notes}); ${ROUNDS} rounds a size of ${PER_ROUND.write} writes, ${PER_ROUND.read} reads or ${PER_ROUND.list} list reads a route, ${CONCURRENCY} at a time`,
  )

  const results: ScaleResults = {
    kind,
    date: new Date().toISOString(),
    sizes: [],
    routes: {},
    live: [],
    explain: [],
  }
  let filled = { tickets: 0, notes: 0 }
  let since = 0
  // Each saving worker replaces its own note, from the `edited` its last save answered.
  const noteBases = Array.from({ length: CONCURRENCY }, () => 0)
  // Each save's text differs from the last (two saves in one millisecond had the same text, which
  // the service answers unchanged and the baseline's one statement does not).
  let saves = 0
  for (const size of SIZES) {
    const t0 = performance.now()
    await fillTickets(sql, filled.tickets, size.tickets)
    await fillNotes(sql, filled.notes, size.notes)
    filled = size
    // The tables as a server's autovacuum or the embedded service's own upkeep
    // (src/db/vacuum.ts) would have them after such a load: vacuumed, and the planner's
    // statistics taken. (Analysed only, the embedded comment's rate fell by a third from the
    // first size to the second, 161 to 104 a second, and vacuumed it did not: 164 to 160.) Then a
    // checkpoint, so that the writing out of what the load and the vacuum changed is done before
    // the rounds rather than during them (on PostgreSQL the largest size's note saves fell to
    // 852 and 913 a second in the rounds it overlapped, 1,356 in the one after).
    const a0 = performance.now()
    await sql`vacuum (analyze)`
    await sql`checkpoint`
    const analysed = (performance.now() - a0) / 1000
    const perProject = size.tickets / PROJECTS
    console.log(
      `\n## ${fmt(size.tickets)} tickets, ${fmt(size.notes)} notes (filled in ${((performance.now() - t0) / 1000).toFixed(1)} s, of which vacuum (analyze) and checkpoint ${analysed.toFixed(1)} s; ${elapsed()} so far)`,
    )

    // The state changes each worker makes go round one ticket of its own in the last project.
    await sql`update tickets set state = 'open', assignee_id = null where project_id = ${`p${String(PROJECTS).padStart(11, '0')}`} and number <= ${CONCURRENCY}`
    const cycle = ['doing', 'review', 'done', 'open']
    const stateStep = Array.from({ length: CONCURRENCY }, () => 0)
    const [lister] = await sql`select last_edited from note_clocks where user_id = ${listerUser}`
    since = (lister!.last_edited as number) - 10
    const random = (n: number) => 1 + Math.floor(Math.random() * n)
    const someTicket = () =>
      `/api/projects/project-${random(PROJECTS - 1)}/tickets/${random(perProject)}`
    let made = 0

    type Call = (worker: number) => Promise<void>
    const expect = async (want: number, got: Promise<{ status: number; text: string }>) => {
      const res = await got
      if (res.status !== want)
        throw new Error(`status ${res.status}, not ${want}: ${res.text.slice(0, 200)}`)
      return res
    }
    const routes: Record<string, { count: number; list?: boolean; call: Call }> = {
      'ticket create': {
        count: PER_ROUND.write,
        call: async () =>
          void (await expect(
            201,
            tcall(
              'POST',
              '/api/projects/project-1/tickets',
              auth,
              JSON.stringify({
                subject: `Bench ticket ${++made}`,
                summary: 'made by the growth bench',
              }),
            ),
          )),
      },
      comment: {
        count: PER_ROUND.write,
        call: async () =>
          void (await expect(
            201,
            tcall(
              'POST',
              `${someTicket()}/comments`,
              auth,
              JSON.stringify({ text: 'A comment from the growth bench.' }),
            ),
          )),
      },
      'state change': {
        count: PER_ROUND.write,
        call: async (w) => {
          const state = cycle[stateStep[w]!++ % cycle.length]!
          await expect(
            201,
            tcall(
              'POST',
              `/api/projects/project-${PROJECTS}/tickets/${w + 1}/state`,
              auth,
              JSON.stringify({ state }),
            ),
          )
        },
      },
      'ticket read': {
        count: PER_ROUND.read,
        call: async () =>
          void (await expect(
            200,
            tcall('GET', someTicket(), { authorization: auth.authorization }),
          )),
      },
      'project list (whole)': {
        count: PER_ROUND.list,
        list: true,
        call: async () =>
          void (await expect(
            200,
            tcall('GET', '/api/projects/project-2/tickets', { authorization: auth.authorization }),
          )),
      },
      // The pages are as long at every size, so each size does the same work: at 1,000 tickets
      // the project holds 30 open, doing or review tickets, 10 of them in review (a page of 50
      // was a page of 30 there, and of 50 with a next page at the larger sizes).
      'project first page': {
        count: PER_ROUND.read,
        call: async () =>
          void (await expect(
            200,
            tcall('GET', '/api/projects/project-2/tickets?limit=25', {
              authorization: auth.authorization,
            }),
          )),
      },
      // The web app's search language through the list route (the first page of what it finds).
      search: {
        count: PER_ROUND.read,
        call: async () =>
          void (await expect(
            200,
            tcall(
              'GET',
              `/api/projects/project-2/tickets?limit=10&q=${encodeURIComponent(SEARCH)}`,
              { authorization: auth.authorization },
            ),
          )),
      },
      'inbox (whole)': {
        count: PER_ROUND.list * 5,
        list: true,
        call: async () =>
          void (await expect(
            200,
            tcall('GET', '/api/inbox', { authorization: `Bearer ${inboxToken}` }),
          )),
      },
      'note save': {
        count: PER_ROUND.write,
        call: async (w) => {
          const body = JSON.stringify({
            op: 'save',
            id: 'bench-save',
            local: 'bench',
            text: `Save ${++saves} at ${Date.now()} by the growth bench.`,
            base: noteBases[w],
            at: Date.now(),
          })
          const res = await expect(
            200,
            ncall(
              'POST',
              '/api/notes',
              { cookie: saverCookies[w]!, 'content-type': 'application/json' },
              body,
            ),
          )
          const answer = JSON.parse(res.text) as { edited: number; copy?: unknown }
          if (answer.copy) throw new Error('a note save made a copy')
          noteBases[w] = answer.edited
        },
      },
      'note list ?since=': {
        count: PER_ROUND.read,
        call: async () => {
          const res = await expect(
            200,
            ncall('GET', `/api/notes?since=${since}`, { cookie: listerCookie }),
          )
          if ((JSON.parse(res.text) as { notes: unknown[] }).notes.length !== 10)
            throw new Error(`the list since ${since} is not 10 notes: ${res.text.slice(0, 200)}`)
        },
      },
    }
    const names = Object.keys(routes)
    const perRound: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
    const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
    for (let round = -1; round < ROUNDS; round++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + Math.max(round, 0)) % names.length]!
        const route = routes[name]!
        // The first round warms up, with a few requests.
        const count = round < 0 ? Math.ceil(route.count / 5) : route.count
        let left = count
        let done = 0
        const t = performance.now()
        const until = t + ROUND_SECONDS * 1000
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async (_, w) => {
            while (left-- > 0 && performance.now() < until) {
              const one = performance.now()
              await route.call(w)
              done++
              if (round >= 0) times[name]!.push(performance.now() - one)
            }
          }),
        )
        if (round >= 0) perRound[name]!.push(done / ((performance.now() - t) / 1000))
      }
    }
    const row: Record<string, { perSecond: number; p99: number }> = {}
    for (const name of names) {
      row[name] = { perSecond: median(perRound[name]!), p99: percentile(times[name]!, 0.99) }
      ;(results.routes[name] ??= { list: routes[name]!.list === true, figures: [] }).figures.push(
        row[name],
      )
      console.log(
        `${name.padEnd(22)} ${fmt(row[name].perSecond).padStart(7)}/s  p99 ${fmt(row[name].p99, 1).padStart(7)} ms  (rounds ${perRound[name]!.map((x) => fmt(x)).join(', ')})`,
      )
    }
    const live = await liveWakeUps(tickets, tcall, auth)
    results.live.push(live)
    console.log(
      `/api/live wake-up      median ${fmt(live.median, 1)} ms, p99 ${fmt(live.p99, 1)} ms (${LIVE_POLLS} polls, ${LIVE_ROUNDS} writes)`,
    )
    // Bulk writes of as many tickets as the size holds (bench/scale/bulk.ts): tickets a second.
    const bulk = await bulkStatements(sql, size.tickets)
    console.log(
      `${'bulk statement'.padEnd(22)} ${fmt(bulk.perSecond).padStart(7)} tickets/s  (${fmt(size.tickets)} tickets a statement: insert ${fmt(bulk.insertMs)} ms, state change ${fmt(bulk.updateMs)} ms, delete ${fmt(bulk.deleteMs)} ms)`,
    )
    const imported = await importRun(sql, size.tickets, 500_000_000 + size.tickets)
    console.log(
      `${'import'.padEnd(22)} ${fmt(imported.perSecond).padStart(7)} tickets/s  (${fmt(size.tickets)} tickets with a comment each in ${fmt(imported.ms / 1000, 1)} s)`,
    )
    for (const [name, f] of [
      ['bulk statement (tickets/s)', bulk],
      ['import (tickets/s)', imported],
    ] as const) {
      ;(results.routes[name] ??= { list: false, figures: [] }).figures.push({
        perSecond: f.perSecond,
        p99: f.ms,
      })
    }
    const rss = peakRss(service.child.pid!)
    console.log(`service process: peak resident memory ${fmt(rss / 1024 / 1024)} MB so far`)
    results.sizes.push({ ...size, peakRssMb: rss / 1024 / 1024 })
  }

  // The table: size by route, and the growth factor from the smallest size to the largest.
  console.log(
    `\n## ${kind}: requests/s and p99 (ms) by size; growth = smallest size's requests/s over the largest's (goal <= ${GOAL}, whole-list reads excepted)`,
  )
  const header = [
    'route',
    ...results.sizes.map((s) => `${fmt(s.tickets)} t / ${fmt(s.notes)} n`),
    'growth',
  ]
  console.log(`| ${header.join(' | ')} |`)
  console.log(`|${header.map(() => '---').join('|')}|`)
  for (const [name, r] of Object.entries(results.routes)) {
    const growth = r.figures[0]!.perSecond / r.figures.at(-1)!.perSecond
    const verdict = r.list ? '(no goal)' : growth <= GOAL ? 'met' : 'MISSED'
    console.log(
      `| ${name} | ${r.figures.map((f) => `${fmt(f.perSecond)}/s, ${fmt(f.p99, 1)}`).join(' | ')} | ${fmt(growth, 2)} ${verdict} |`,
    )
  }
  const lg = results.live.at(-1)!.median / results.live[0]!.median
  console.log(
    `| /api/live wake-up (ms) | ${results.live.map((l) => `median ${fmt(l.median, 1)}, p99 ${fmt(l.p99, 1)}`).join(' | ')} | ${fmt(lg, 2)} ${lg <= GOAL ? 'met' : 'MISSED'} |`,
  )

  if (SIZES.length === 3) {
    console.log(`\n## EXPLAIN (ANALYZE, BUFFERS) at the largest size (${kind})`)
    results.explain = await explainAll(sql, { token, inboxUser: userId(2), listerUser, since })
    for (const e of results.explain) console.log(`\n### ${e.name}\n${e.query}\n${e.plan}`)
    writeFileSync(`${IMAGES}scale-${kind}.json`, JSON.stringify(results, null, 1) + '\n')
    redraw()
    console.log(
      `\nwrote docs/images/scale-${kind}.json and docs/images/scale.svg; ${elapsed()} in all`,
    )
  }
} finally {
  tc?.close()
  nc?.close()
  await service?.stop()
  await database.close()
}

/** Polls wait on `/api/live`; a comment is written; each poll's answer is timed from the write's start. */
async function liveWakeUps(
  base: string,
  tcall: ReturnType<typeof keepAliveClient>['call'],
  auth: Record<string, string>,
): Promise<{ median: number; p99: number }> {
  const polls = Array.from({ length: LIVE_POLLS }, () => new HttpConnection(base))
  const got: number[] = []
  try {
    for (let round = -1; round < LIVE_ROUNDS; round++) {
      const now = JSON.parse((await tcall('GET', '/api/live', {})).text) as { cursor: number }
      const answered = polls.map((p) =>
        p.request('GET', `/api/live?after=${now.cursor}`, []).then((a) => {
          if (a.status !== 200) throw new Error(`live answered ${a.status}`)
          return performance.now()
        }),
      )
      // Every poll has had its first read and waits (they are answered at once otherwise).
      await new Promise((resolve) => setTimeout(resolve, 150))
      const t = performance.now()
      const res = await tcall(
        'POST',
        '/api/projects/project-3/tickets/1/comments',
        auth,
        JSON.stringify({ text: 'Wake up.' }),
      )
      if (res.status !== 201) throw new Error(`comment answered ${res.status}`)
      for (const at of await Promise.all(answered)) if (round >= 0) got.push(at - t)
    }
  } finally {
    for (const p of polls) p.close()
  }
  return { median: median(got), p99: percentile(got, 0.99) }
}

/** The process's peak resident memory (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : 0
}
