/**
 * The budgets on what people feel (issue 25), each printed with its figure and `met` or `NOT met
 * by <the gap>`. Through the real services started as `npm start` starts them
 * (bench/scale/service.ts), on DATABASE_URL when set (in a schema of the bench's own, dropped at
 * the end), else on the embedded database in a process of its own on a TCP port.
 *
 * (a) `GET /api/me` of the notes service (no cookie, the cheapest route) answers at least 0.8 of
 *     the requests per second of a bare node:http server sending the same bytes
 *     (bench/servers/replay.ts), alternately in HTTP_ROUNDS rounds, autocannon in its own process.
 * (b) PostgreSQL only: the project page (`GET /project-1`), the ticket page (`GET
 *     /project-1/<a random number>`), a search's first page (`GET /project-1?q=...`) and the
 *     inbox (`GET /inbox`) of a project of BUDGET_TICKETS tickets (100,000 unless set;
 *     bench/scale/fill.ts, ten history events a ticket, 200 members), signed in: one client
 *     alone, median under 10 ms; 8 clients, median under 20 ms and 99th percentile under 100 ms,
 *     as served, with a write (a comment) by the same client before each read (so that what the
 *     pages keep between requests is read again), and while 8 writers comment and change states
 *     (issue 41). `BUDGET_TICKETS=1000000 npm run bench -- budgets` runs them at a million.
 *     With them, the board of a search of 2,000 tickets (`GET /project-1/board?q=assignee:board`,
 *     issue 38), under the same budgets; and then a bulk change of 1,000 of those tickets'
 *     states (`POST /api/projects/project-1/tickets/bulk`), each under 5 s (BULK_RUNS of them).
 *     With them, issue 38's: the first pages of `label:bug is:open`, `milestone:"v1.0"` and
 *     `is:overdue`, and the milestone list (`/project-1/milestones`), with 50 labels and 20
 *     milestones in the project (bench/scale/fill.ts, fillOrganise).
 * (c) A note save, as the notes app's sync sends it (`POST /api/notes`, `op: 'save'`), 8 clients
 *     each saving its own note among 100,000: median under 10 ms. Beside it, the same saves on a
 *     bare node:http server running the same statements (bench/servers/writes.ts).
 *
 * Times are each request's, from the bench's keep-alive client (node:http, this process);
 * contenders alternate in ROUNDS rounds of ROUND_SECONDS, after a warm-up. Each page and the
 * save are also timed with one client alone (no budget): with 8 in flight on a service that
 * runs on one core, a request also waits for the others, and the two figures tell that apart.
 */
import { randomBytes } from 'node:crypto'
import { cpus, loadavg } from 'node:os'
import { migrate } from '../src/db/migrate.ts'
import { issueToken } from '../src/tickets/api/tokens.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'
import {
  FILL_LABELS,
  FILL_MILESTONES,
  fillBase,
  fillNotes,
  fillOrganise,
  fillTickets,
  noteUser,
  projectId,
  userId,
} from './scale/fill.ts'
import { startService } from './scale/service.ts'
import {
  budgetVerdict,
  capture,
  cpuMs,
  fmt,
  keepAliveClient,
  median,
  percentile,
  PINNED,
  requestsPerSecond,
  serviceDatabase,
  signedInCookie,
  startChild,
} from './support.ts'

const FLOOR = 0.8
const PAGE_MEDIAN_MS = 20
const PAGE_P99_MS = 100
const SAVE_MEDIAN_MS = 10
const ALONE_MEDIAN_MS = 10
const TICKETS = Number(process.env.BUDGET_TICKETS ?? 100_000)
/** Tickets a fill statement writes: a statement's rows (its transition tables, its sort) stay in memory's reach. */
const FILL_STEP = 100_000
const NOTES = 100_000
const CONCURRENCY = 8
const ROUNDS = Number(process.env.BUDGETS_BENCH_ROUNDS ?? 3)
const ROUND_SECONDS = 3
const HTTP_ROUNDS = 5
const HTTP_SECONDS = 3
const ALONE_SECONDS = 2
/** The board's search finds this many tickets; a bulk change changes half of them, this many times. */
const BOARD_TICKETS = 2000
const BULK_TICKETS = 1000
const BULK_RUNS = 5
const BULK_MS = 5000

const started = performance.now()
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`
// The fill's statements run for minutes: no deadline for an answer.
const database = await serviceDatabase('budgets', { answerTimeout: null })
const { kind, sql } = database
const secret = randomBytes(32)
const stops: (() => Promise<void>)[] = []
const verdicts: { name: string; met: boolean }[] = []

/** Prints a budget's line and keeps its verdict for the summary. */
function report(name: string, figure: string, verdict: { met: boolean; text: string }): void {
  verdicts.push({ name, met: verdict.met })
  console.log(`  ${name.padEnd(52)} ${figure.padStart(9)}  ${verdict.text}`)
}

/**
 * Each request's time in milliseconds, by contender: ROUNDS rounds of ROUND_SECONDS each, the
 * contenders' order rotating, CONCURRENCY clients at a time. `before` runs untimed before each
 * timed request of its client.
 */
async function timeRounds(
  contenders: Record<
    string,
    { one: (client: number) => Promise<void>; before?: (client: number) => Promise<void> }
  >,
): Promise<Record<string, number[]>> {
  const names = Object.keys(contenders)
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
  for (let round = -1; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + Math.max(round, 0)) % names.length]!
      const { one, before } = contenders[name]!
      // The first round warms up: every pooled connection prepares its statements.
      const until = performance.now() + (round < 0 ? 1 : ROUND_SECONDS) * 1000
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, c) => {
          while (performance.now() < until) {
            await before?.(c)
            const t = performance.now()
            await one(c)
            if (round >= 0) times[name]!.push(performance.now() - t)
          }
        }),
      )
    }
  }
  return times
}

// The machine's other load, printed with the figures: these budgets are times, not ratios.
const load = loadavg()[0]!

/** The median time of `one` with no other request in flight, over ALONE_SECONDS: what a request costs without a queue. */
async function alone(one: (client: number) => Promise<void>): Promise<number> {
  const times: number[] = []
  const until = performance.now() + ALONE_SECONDS * 1000
  while (performance.now() < until) {
    const t = performance.now()
    await one(0)
    times.push(performance.now() - t)
  }
  return median(times)
}

try {
  const t0 = performance.now()
  await migrate(sql)
  await fillBase(sql)
  if (kind === 'postgres') {
    for (let from = 0; from < TICKETS; from += FILL_STEP) {
      await fillTickets(sql, from, Math.min(from + FILL_STEP, TICKETS), 1)
      console.log(`# filled ${fmt(Math.min(from + FILL_STEP, TICKETS))} tickets (${elapsed()})`)
    }
    await fillOrganise(sql, projectId(1))
    console.log(
      `# filled ${FILL_LABELS} labels, ${FILL_MILESTONES} milestones and due days (${elapsed()})`,
    )
  }
  await fillNotes(sql, 0, NOTES)
  // As a server's autovacuum would leave the tables after such a load, and the load written out
  // before the timing starts.
  await sql`vacuum (analyze)`
  await sql`checkpoint`
  console.log(
    `# budgets bench: ${kind} database; services as npm start starts them${PINNED ? ', on core 0' : ''}; ${kind === 'postgres' ? `${fmt(TICKETS)} tickets in one project, ` : ''}${fmt(NOTES)} notes (filled in ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  )

  const service = await startService({
    DATABASE_URL: database.url,
    SESSION_SECRET: secret.toString('base64'),
    SERVICES: 'notes,tickets',
    RATE_LIMIT: '1000000000,1000000000',
  })
  stops.push(service.stop)
  const cookieOf = (name: 'notes' | 'tickets', user: string) =>
    signedInCookie(sql, new Uint8Array(secret), name, user)

  // (a) /api/me against bare node:http sending the same bytes.
  const me = await capture(`${service.urls.notes}/api/me`, {})
  if (me.status !== 200) throw new Error(`/api/me answered ${me.status}: ${me.body}`)
  const bare = await startChild('./servers/replay.ts', [], {
    REPLAY: JSON.stringify({ '/api/me': me }),
  })
  stops.push(bare.stop)
  const meUrls = { service: `${service.urls.notes}/api/me`, bare: `${bare.url}/api/me` }
  for (const url of Object.values(meUrls)) await requestsPerSecond(url, { seconds: 1 })
  const pids = { service: service.child.pid!, bare: bare.child.pid! }
  const ratios: number[] = []
  const capacities: number[] = []
  const rates = { service: [] as number[], bare: [] as number[] }
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    const order = round % 2 === 0 ? (['service', 'bare'] as const) : (['bare', 'service'] as const)
    const cpuUs = { service: 0, bare: 0 }
    for (const which of order) {
      const cpu = cpuMs(pids[which])
      rates[which].push(await requestsPerSecond(meUrls[which], { seconds: HTTP_SECONDS }))
      cpuUs[which] = ((cpuMs(pids[which]) - cpu) * 1000) / (rates[which].at(-1)! * HTTP_SECONDS)
    }
    ratios.push(rates.service.at(-1)! / rates.bare.at(-1)!)
    capacities.push(cpuUs.bare / cpuUs.service)
  }
  const ratio = median(ratios)
  console.log(
    `\n(a) notes GET /api/me, no cookie: ${HTTP_ROUNDS} rounds of ${HTTP_SECONDS} s each, autocannon, 50 connections`,
  )
  console.log(
    `  the service ${fmt(median(rates.service))}/s, bare node:http ${fmt(median(rates.bare))}/s; rounds' ratios ${ratios.map((r) => fmt(r, 2)).join(', ')}`,
  )
  // Less moved by the machine's other load than the rates: bare's CPU time a request over the service's.
  console.log(
    `  capacity (bare's CPU time a request over the service's, no budget): ${fmt(median(capacities), 2)} (rounds ${capacities.map((r) => fmt(r, 2)).join(', ')})`,
  )
  report(
    `/api/me at least ${FLOOR} of bare node:http`,
    fmt(ratio, 2),
    budgetVerdict(ratio, FLOOR, 'at least'),
  )
  await bare.stop()

  // (b) The web app's pages of a project of TICKETS tickets, signed in.
  if (kind === 'postgres') {
    const tickets = keepAliveClient(service.urls.tickets!, CONCURRENCY)
    const writer = keepAliveClient(service.urls.tickets!, CONCURRENCY)
    try {
      const signedIn = { cookie: await cookieOf('tickets', userId(1)) }
      const { token } = await issueToken(
        createTicketStore({ sql, clock: Date.now }),
        userId(1),
        'bench',
      )
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
      const someTicket = () => 1 + Math.floor(Math.random() * TICKETS)
      // The board's search: the first BOARD_TICKETS tickets, assigned to a member of their own.
      await sql`insert into users (id, idp_id, name, created) values ('uboard000000', 'idp-board', 'board', 0)`
      await sql`insert into members (project_id, user_id, role) values (${'p' + '1'.padStart(11, '0')}, 'uboard000000', 'edit')`
      await sql`update tickets set assignee_id = 'uboard000000' where project_id = ${'p' + '1'.padStart(11, '0')} and number <= ${BOARD_TICKETS}`
      await sql`analyze tickets`
      for (const path of [
        '/project-1',
        '/project-1/1',
        '/inbox',
        '/project-1/board?q=assignee:board',
      ]) {
        const page = await tickets.call('GET', path, signedIn)
        if (page.status !== 200 || !page.text.includes('Sign out'))
          throw new Error(
            `${path} answered ${page.status}, ${page.text.includes('Sign out') ? 'signed in' : 'not signed in'}`,
          )
      }
      const get = (path: () => string) => async () => {
        const got = await tickets.fetchBytes('GET', path(), signedIn)
        if (got.status !== 200) throw new Error(`${path()} answered ${got.status}`)
      }
      const comment = async () => {
        const got = await writer.call(
          'POST',
          `/api/projects/project-1/tickets/${someTicket()}/comments`,
          auth,
          JSON.stringify({ text: 'A comment from the budgets bench.' }),
        )
        if (got.status !== 201)
          throw new Error(`a comment answered ${got.status}: ${got.text.slice(0, 200)}`)
      }
      const projectPage = get(() => '/project-1')
      const ticketPage = get(() => `/project-1/${someTicket()}`)
      const searchPage = get(() => `/project-1?q=${encodeURIComponent('needs state:review')}`)
      const inboxPage = get(() => '/inbox')
      const boardPage = get(() => '/project-1/board?q=assignee:board')
      const searchOf = (q: string) => get(() => `/project-1?q=${encodeURIComponent(q)}`)
      const pages = {
        'project page': projectPage,
        'ticket page': ticketPage,
        'search first page': searchPage,
        inbox: inboxPage,
        [`board of ${fmt(BOARD_TICKETS)} tickets`]: boardPage,
        // Issue 38: labels, milestones and due days (fillOrganise).
        'label:bug is:open first page': searchOf('label:bug is:open'),
        'milestone:"v1.0" first page': searchOf('milestone:"v1.0"'),
        'is:overdue first page': searchOf('is:overdue'),
        'milestone list': get(() => '/project-1/milestones'),
      }
      // 8 writers commenting on and changing the states of tickets of the project, the whole time
      // the `with 8 writers` contenders are timed.
      let writing = false
      const states = ['doing', 'review', 'done', 'open']
      let step = 0
      const writers = async () => {
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async (_, w) => {
            while (writing) {
              if (w % 2 === 0) await comment()
              else {
                const got = await writer.call(
                  'POST',
                  `/api/projects/project-1/tickets/${someTicket()}/state`,
                  auth,
                  JSON.stringify({ state: states[step++ % states.length] }),
                )
                // A ticket already in that state is refused (400); either way the write was tried.
                if (got.status !== 201 && got.status !== 400)
                  throw new Error(
                    `a state change answered ${got.status}: ${got.text.slice(0, 200)}`,
                  )
              }
            }
          }),
        )
      }
      const contenders: Parameters<typeof timeRounds>[0] = {}
      for (const [name, one] of Object.entries(pages)) {
        contenders[name] = { one }
        if (name === 'project page' || name === 'ticket page')
          contenders[`${name} after a write`] = { one, before: comment }
      }
      const times = await timeRounds(contenders)
      const busy: Record<string, number[]> = {}
      writing = true
      const writes = writers()
      try {
        Object.assign(
          busy,
          await timeRounds(
            Object.fromEntries(
              Object.entries(pages).map(([name, one]) => [`${name} with 8 writers`, { one }]),
            ),
          ),
        )
      } finally {
        writing = false
        await writes
      }
      console.log(
        `\n(b) the web app's pages, signed in, ${fmt(TICKETS)} tickets in the project, ${CONCURRENCY} clients, ${ROUNDS} rounds of ${ROUND_SECONDS} s each (after a write: a comment by the same client before each read, untimed; with 8 writers: while 8 more clients comment and change states)`,
      )
      for (const [name, one] of Object.entries(pages)) {
        const mid = await alone(one)
        console.log(`  ${name}, one client alone: median ${fmt(mid, 1)} ms`)
        report(
          `${name} alone, median under ${ALONE_MEDIAN_MS} ms`,
          `${fmt(mid, 1)} ms`,
          budgetVerdict(mid, ALONE_MEDIAN_MS, 'at most', ' ms', 1),
        )
      }
      for (const [name, t] of Object.entries({ ...times, ...busy })) {
        const mid = median(t)
        const p99 = percentile(t, 0.99)
        console.log(
          `  ${name}: ${fmt(t.length)} requests, median ${fmt(mid, 1)} ms, p99 ${fmt(p99, 1)} ms`,
        )
        report(
          `${name}, median under ${PAGE_MEDIAN_MS} ms`,
          `${fmt(mid, 1)} ms`,
          budgetVerdict(mid, PAGE_MEDIAN_MS, 'at most', ' ms', 1),
        )
        report(
          `${name}, p99 under ${PAGE_P99_MS} ms`,
          `${fmt(p99, 1)} ms`,
          budgetVerdict(p99, PAGE_P99_MS, 'at most', ' ms', 1),
        )
      }
      // A bulk change of BULK_TICKETS of the board's tickets, their states set back and forth.
      const numbers = Array.from({ length: BULK_TICKETS }, (_, i) => i + 1).join(',')
      const bulkTimes: number[] = []
      for (let run = 0; run < BULK_RUNS; run++) {
        const t = performance.now()
        const got = await writer.call(
          'POST',
          '/api/projects/project-1/tickets/bulk',
          auth,
          JSON.stringify({
            q: 'assignee:board state:all',
            numbers,
            state: run % 2 === 0 ? 'doing' : 'review',
          }),
        )
        bulkTimes.push(performance.now() - t)
        const changed =
          got.status === 200 ? (JSON.parse(got.text) as { changed: number }).changed : -1
        if (changed < BULK_TICKETS / 2)
          throw new Error(`a bulk change answered ${got.status}: ${got.text.slice(0, 200)}`)
      }
      console.log(
        `  bulk change of ${fmt(BULK_TICKETS)} tickets' states: ${bulkTimes.map((t) => `${fmt(t)} ms`).join(', ')}`,
      )
      report(
        `bulk change of ${fmt(BULK_TICKETS)} tickets, slowest under ${BULK_MS / 1000} s`,
        `${fmt(Math.max(...bulkTimes))} ms`,
        budgetVerdict(Math.max(...bulkTimes), BULK_MS, 'at most', ' ms', 0),
      )
    } finally {
      tickets.close()
      writer.close()
    }
  } else
    console.log(
      `\n(b) the pages of a project of ${fmt(TICKETS)} tickets: a budget on PostgreSQL, not measured here (set DATABASE_URL)`,
    )

  // (c) Note saves, each client saving its own note from the `edited` its last save answered.
  const cookies = await Promise.all(
    Array.from({ length: CONCURRENCY }, (_, c) => cookieOf('notes', noteUser(c + 1))),
  )
  const baseline = await startChild('./servers/writes.ts', [], {
    DATABASE_URL: database.url,
    BASELINE_COOKIES: JSON.stringify(
      Object.fromEntries(cookies.map((c, i) => [c, noteUser(i + 1)])),
    ),
  })
  stops.push(baseline.stop)
  const clients = {
    service: keepAliveClient(service.urls.notes!, CONCURRENCY),
    baseline: keepAliveClient(baseline.url, CONCURRENCY),
  }
  try {
    const bases = Array.from({ length: CONCURRENCY }, () => 0)
    // Each save's text differs from the last: a save of the same text is answered unchanged.
    let saves = 0
    const save = (which: keyof typeof clients) => async (c: number) => {
      const body = JSON.stringify({
        op: 'save',
        id: 'bench-save',
        local: 'bench',
        text: `Save ${++saves} at ${Date.now()} by the budgets bench.`,
        base: bases[c],
        at: Date.now(),
      })
      const got = await clients[which].call(
        'POST',
        '/api/notes',
        { cookie: cookies[c]!, 'content-type': 'application/json' },
        body,
      )
      if (got.status !== 200)
        throw new Error(
          `a note save on the ${which} answered ${got.status}: ${got.text.slice(0, 200)}`,
        )
      const answer = JSON.parse(got.text) as { edited: number; copy?: unknown }
      if (answer.copy) throw new Error('a note save made a copy')
      bases[c] = answer.edited
    }
    const times = await timeRounds({
      service: { one: save('service') },
      baseline: { one: save('baseline') },
    })
    const single = {
      service: await alone(save('service')),
      baseline: await alone(save('baseline')),
    }
    const mid = median(times.service!)
    console.log(
      `\n(c) note saves (POST /api/notes, op save), ${CONCURRENCY} clients, ${ROUNDS} rounds of ${ROUND_SECONDS} s each`,
    )
    console.log(
      `  the service: ${fmt(times.service!.length)} saves, median ${fmt(mid, 1)} ms, p99 ${fmt(percentile(times.service!, 0.99), 1)} ms; bare node:http running the same statements: median ${fmt(median(times.baseline!), 1)} ms, p99 ${fmt(percentile(times.baseline!, 0.99), 1)} ms`,
    )
    console.log(
      `  one client alone: the service median ${fmt(single.service, 1)} ms, bare ${fmt(single.baseline, 1)} ms`,
    )
    report(
      `a note save, median under ${SAVE_MEDIAN_MS} ms`,
      `${fmt(mid, 1)} ms`,
      budgetVerdict(mid, SAVE_MEDIAN_MS, 'at most', ' ms', 1),
    )
  } finally {
    clients.service.close()
    clients.baseline.close()
  }

  const missed = verdicts.filter((v) => !v.met)
  console.log(
    `\nload average over the last minute: ${fmt(loadavg()[0]!, 1)} on ${cpus().length} cores (at the start: ${fmt(load, 1)})`,
  )
  console.log(
    `${missed.length === 0 ? `all ${verdicts.length} budgets met` : `${missed.length} of ${verdicts.length} budgets NOT met: ${missed.map((v) => v.name).join('; ')}`} (${kind} database, ${elapsed()})`,
  )
} finally {
  for (const stop of stops.reverse()) await stop()
  await database.close()
}
