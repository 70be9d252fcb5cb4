/**
 * Cheap routes of the real services, started as `npm start` starts them (its node options,
 * logging on to stdout, read by this process as a log collector would), against a bare
 * node:http server answering the same bytes (bench/servers/replay.ts: the status, headers and
 * body captured from the service), in the same run. Load comes from autocannon in a second
 * process (50 connections); with two cores or more the servers run on core 0 and autocannon on
 * core 1.
 *
 * Routes: the notes service's `GET /api/me` without a cookie, `GET /healthz` (which asks the
 * database), and a ticket read `GET /api/projects/project-1/tickets/1` (by user token; a
 * database with 1,000 tickets filled by bench/scale/fill.ts). Contenders: the service with
 * `npm start`'s node options, the same service with node's default options (to show what the
 * options cost), the same service with rate limits off (`RATE_LIMIT=off`, to show what counting
 * every request costs), and the bare server (node's default options). The first two count every
 * request in their rate limits, set so high that nothing is refused (one address sends all the
 * load; the default limits would answer it 429): the cost of the common, allowed request, with
 * the once-a-second exchange with the shared table when the database is PostgreSQL.
 *
 * Two figures per route and contender, as medians of ROUNDS rounds whose order rotates, and
 * each as a ratio to the bare server measured in the same round:
 * - requests per second as autocannon counts them (the budget's figure: `/api/me` of the service
 *   as `npm start` runs it at least FLOOR of bare). One autocannon process can be the bottleneck
 *   before a bare server is, which flatters the slower server;
 * - the server's CPU time per request (from /proc), what each could serve on a core of its own:
 *   the capacity ratio is bare's CPU per request over the service's.
 *
 * The ticket read runs SQL; the bare server only sends its bytes, so its ratio shows what the
 * reads cost rather than the HTTP core (no budget); `/healthz` asks the database (no budget).
 *
 * A third figure hardly moves with the machine's other load, which on a shared machine moves
 * the rounds' ratios by more than the distance to the budget: the instructions the service and
 * the bare server run per request of `GET /api/me` in their steady state, counted by valgrind's
 * callgrind when it is installed (user space only: the kernel's share, the same two system calls
 * a request for both, is not counted, so this ratio shows the gap larger than it is in time).
 * Under callgrind node runs some 50 times slower; each server gets a fresh process, 30,000
 * requests to reach its steady state, then the count of 20,000 (docs/performance.md, "Node's
 * tick records", for what this figure found). Two counts: the whole process, and the request's
 * own path, which leaves out what callgrind's slowness inflates (timers, background threads).
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate } from '../src/db/migrate.ts'
import { conditional } from '../src/http/conditional.ts'
import { createRateLimiter, DEFAULT_LIMITS } from '../src/limits/rate-limit.ts'
import { makeRequest } from '../src/http/request.ts'
import { json } from '../src/http/response.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'
import { issueToken } from '../src/tickets/api/tokens.ts'
import { fillBase, fillTickets, userId } from './scale/fill.ts'
import { startService } from './scale/service.ts'
import {
  budgetVerdict,
  capture,
  cpuMs,
  fmt,
  median,
  PINNED,
  requestsPerSecond,
  sendRequests,
  serviceDatabase,
  startChild,
} from './support.ts'

const ROUNDS = Number(process.env.HTTP_BENCH_ROUNDS ?? 5)
const SECONDS = 3
/** The budget of issue 25: `/api/me` answers at least this share of bare node:http's requests per second. */
const FLOOR = 0.8

/**
 * What the rate limit's count and the ETag of a small answer cost alone, in this process (no
 * HTTP, no other process): nanoseconds a call, the median of 5 runs of 200,000 calls. Less noisy
 * than the ratios above, which this machine's other load moves by ±15%.
 */
async function inProcess(): Promise<void> {
  const time = (f: (i: number) => unknown) => {
    const runs: number[] = []
    for (let r = 0; r < 6; r++) {
      const start = process.hrtime.bigint()
      for (let i = 0; i < 200_000; i++) f(i)
      if (r > 0) runs.push(Number(process.hrtime.bigint() - start) / 200_000)
    }
    return median(runs)
  }
  const limiter = createRateLimiter({
    limits: { api: { rate: 1e9, burst: 1e9 }, signin: DEFAULT_LIMITS.signin },
    clock: Date.now,
    cookieName: 'notes_session',
    verify: async () => 'user:bench',
  })
  // A fresh request record a call, as the server makes one a request (its cookie is parsed on
  // first use); the cost of making the record alone is taken off.
  const token = { authorization: 'Bearer tt_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG' }
  const cookie = {
    cookie: 'notes_session=0123456789abcdefghijklmnopqrstuvwxyzABCDEFG0123456789abcdefghij',
  }
  const make = (headers: Record<string, string>) =>
    makeRequest({ url: '/api/me', address: '127.0.0.1', headers })
  // Verified once, as a service verifies a credential's first request: later checks count on its bucket.
  for (const headers of [token, cookie]) await limiter.check(make(headers), 'api')
  const cost = (headers: Record<string, string>) =>
    time(() => limiter.check(make(headers), 'api')) - time(() => make(headers))
  console.log('\nin this process, a call (median of 5 runs of 200,000):')
  console.log(
    `  rate limit check, by address ${fmt(cost({}))} ns, by token ${fmt(cost(token))} ns, by session cookie ${fmt(cost(cookie))} ns`,
  )
  const small = json(200, { user: null })
  const get = makeRequest({ url: '/api/me' })
  console.log(
    `  ETag of a ${String(small.body).length}-byte answer ${fmt(time(() => conditional(get, small)))} ns`,
  )
}

const CALLGRIND =
  spawnSync('valgrind', ['--version']).status === 0 &&
  spawnSync('callgrind_control', ['--version']).status === 0
const WARM_REQUESTS = 30_000
const COUNTED_REQUESTS = 20_000

/** node's function that parses what a connection sent and runs everything a request starts. */
const REQUEST_PATH = 'Parser::OnStreamRead'

/**
 * Instructions a request of `path` costs the server that `start` runs under `wrapper`
 * (callgrind), in its steady state; user space. `process`: all of the process's threads;
 * `request`: what node's parser runs for the request's bytes (the handler, the answer, the
 * ticks queued meanwhile), without the timers, background threads and database traffic, whose
 * share a request callgrind inflates: under it a request takes some 50 times longer, and a timer
 * firing every 50 ms comes once in 16 requests instead of once in 1,500. Null when the dump does
 * not name the parser (another node version).
 */
async function instructionsPerRequest(
  path: string,
  start: (
    wrapper: string[],
  ) => Promise<{ base: string; pid: number; host: string | undefined; stop(): Promise<void> }>,
): Promise<{ process: number; request: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'))
  const server = await start([
    'valgrind',
    '-q',
    '--tool=callgrind',
    `--callgrind-out-file=${join(dir, 'out.%p')}`,
  ])
  // valgrind names its control pipe after the HOST of the process's environment, which for the
  // service is its bind address: callgrind_control must see the same.
  const env = { ...process.env }
  if (server.host === undefined) delete env.HOST
  else env.HOST = server.host
  const control = (...args: string[]) =>
    spawnSync('callgrind_control', [...args, String(server.pid)], { encoding: 'utf8', env }).stdout
  try {
    // The first answers under callgrind, while everything is compiled, take seconds, and a
    // connection can wait past the server's 10 s for its headers: an error while warming up
    // does not count (one in the counted requests still stops the bench).
    await sendRequests(`${server.base}${path}`, WARM_REQUESTS, { timeout: 60 }).catch(() => {})
    control('--zero')
    await sendRequests(`${server.base}${path}`, COUNTED_REQUESTS, { timeout: 60 })
    // One line per thread: "   Th 1  310,710,853".
    const counted = [...control('-e', 'Ir').matchAll(/^\s*Th\s*\d+\s+([\d,]+)\s*$/gm)]
    if (counted.length === 0) throw new Error('callgrind_control printed no counts')
    const whole = counted.reduce((sum, m) => sum + Number(m[1]!.replaceAll(',', '')), 0)
    // The counts since the zeroing, written to out.<pid>.1; the parser's inclusive figure from it.
    control('--dump')
    const dump = join(dir, `out.${server.pid}.1`)
    const annotated =
      spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      }).stdout ?? ''
    const parsed = annotated
      .split('\n')
      .filter((line) => line.includes(REQUEST_PATH))
      .map((line) => Number(/^\s*([\d,]+)/.exec(line)?.[1]?.replaceAll(',', '') ?? NaN))
      .filter((n) => Number.isFinite(n))
    return {
      process: whole / COUNTED_REQUESTS,
      request: parsed.length === 0 ? null : Math.max(...parsed) / COUNTED_REQUESTS,
    }
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const database = await serviceDatabase('http')
const { kind, sql } = database
const stops: (() => Promise<void>)[] = []

try {
  await migrate(sql)
  await fillBase(sql)
  await fillTickets(sql, 0, 1_000)
  const token = (await issueToken(createTicketStore({ sql, clock: Date.now }), userId(1), 'bench'))
    .token
  const env = {
    DATABASE_URL: database.url,
    SESSION_SECRET: randomBytes(32).toString('base64'),
    SERVICES: 'notes,tickets',
    RATE_LIMIT: '1000000000,1000000000',
  }
  const service = await startService(env)
  stops.push(service.stop)
  const defaults = await startService(env, { nodeOptions: [] })
  stops.push(defaults.stop)
  const unlimited = await startService({ ...env, RATE_LIMIT: 'off' })
  stops.push(unlimited.stop)

  const routes = [
    {
      name: 'notes GET /api/me, no cookie',
      service: 'notes',
      path: '/api/me',
      headers: {} as Record<string, string>,
      budget: true,
    },
    { name: 'notes GET /healthz', service: 'notes', path: '/healthz', headers: {}, budget: false },
    {
      name: 'tickets: a ticket read (token)',
      service: 'tickets',
      path: '/api/projects/project-1/tickets/1',
      headers: { authorization: `Bearer ${token}` },
      budget: false,
    },
  ]
  const replay: Record<string, unknown> = {}
  for (const r of routes) {
    const got = await capture(`${service.urls[r.service]}${r.path}`, r.headers)
    if (got.status !== 200) throw new Error(`${r.path} answered ${got.status}: ${got.body}`)
    replay[r.path] = got
  }
  const bare = await startChild('./servers/replay.ts', [], { REPLAY: JSON.stringify(replay) })
  stops.push(bare.stop)

  const contenders = {
    service: {
      label: "the service, npm start's options",
      base: (s: string) => service.urls[s]!,
      pid: service.child.pid!,
    },
    defaults: {
      label: "the service, node's default options",
      base: (s: string) => defaults.urls[s]!,
      pid: defaults.child.pid!,
    },
    unlimited: {
      label: 'the service, rate limits off',
      base: (s: string) => unlimited.urls[s]!,
      pid: unlimited.child.pid!,
    },
    bare: { label: 'bare node:http, same bytes', base: () => bare.url, pid: bare.child.pid! },
  }
  type Name = keyof typeof contenders
  const names = Object.keys(contenders) as Name[]
  console.log(
    `# http bench: the real services as npm start runs them (logging on), ${kind} database${PINNED ? '; servers on core 0, autocannon on core 1' : ''}; ${ROUNDS} rounds of ${SECONDS} s a contender and route, 50 connections`,
  )
  for (const r of routes) {
    const measure = async (n: Name) => {
      const url = `${contenders[n].base(r.service)}${r.path}`
      const before = cpuMs(contenders[n].pid)
      const perSecond = await requestsPerSecond(url, { seconds: SECONDS, headers: r.headers })
      return {
        perSecond,
        cpuUs: ((cpuMs(contenders[n].pid) - before) * 1000) / (perSecond * SECONDS),
      }
    }
    for (const n of names)
      await requestsPerSecond(`${contenders[n].base(r.service)}${r.path}`, {
        seconds: 1,
        headers: r.headers,
      })
    const got: Record<Name, { perSecond: number; cpuUs: number }[]> = {
      service: [],
      defaults: [],
      unlimited: [],
      bare: [],
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < names.length; i++) {
        const n = names[(i + round) % names.length]!
        got[n].push(await measure(n))
      }
    }
    const ratio = (
      n: Name,
      f: (
        a: { perSecond: number; cpuUs: number },
        b: { perSecond: number; cpuUs: number },
      ) => number,
    ) => got[n].map((g, i) => f(g, got.bare[i]!))
    console.log(`\n${r.name}:`)
    for (const n of names) {
      const speed = ratio(n, (a, b) => a.perSecond / b.perSecond)
      const capacity = ratio(n, (a, b) => b.cpuUs / a.cpuUs)
      const sorted = [...speed].sort((a, b) => a - b)
      const verdict = n === 'bare' ? '' : r.budget && n === 'service' ? ` (budget >= ${FLOOR})` : ''
      console.log(
        `  ${contenders[n].label.padEnd(38)} ${fmt(median(got[n].map((g) => g.perSecond))).padStart(7)}/s, CPU ${fmt(median(got[n].map((g) => g.cpuUs)), 1).padStart(6)} µs a request${n === 'bare' ? '' : `; ratio to bare ${fmt(median(speed), 2)} (${fmt(sorted[0]!, 2)}–${fmt(sorted.at(-1)!, 2)}), capacity ${fmt(median(capacity), 2)}${verdict}`}`,
      )
    }
    if (r.budget) {
      const figure = median(ratio('service', (a, b) => a.perSecond / b.perSecond))
      console.log(
        `  budget: ${r.path} at least ${FLOOR} of bare node:http: ${fmt(figure, 2)}, ${budgetVerdict(figure, FLOOR, 'at least').text}`,
      )
    }
    // Rate limits on vs off, the same service and options, measured in the same rounds.
    const limited = got.service.map((g, i) => g.perSecond / got.unlimited[i]!.perSecond)
    const limitedCpu = got.service.map((g, i) => got.unlimited[i]!.cpuUs / g.cpuUs)
    console.log(
      `  rate limits on / off: requests/s ${fmt(median(limited), 2)} (${fmt(Math.min(...limited), 2)}–${fmt(Math.max(...limited), 2)}), capacity ${fmt(median(limitedCpu), 2)}; CPU ${fmt(median(got.service.map((g) => g.cpuUs)) - median(got.unlimited.map((g) => g.cpuUs)), 1)} µs a request more`,
    )
  }
  console.log(
    `\nlog written by the npm start service: ${fmt(service.logged() / 1024 / 1024, 1)} MB`,
  )

  if (CALLGRIND) {
    const ours = await instructionsPerRequest('/api/me', async (wrapper) => {
      const s = await startService(env, { wrapper })
      return { base: s.urls.notes!, pid: s.child.pid!, host: '127.0.0.1', stop: s.stop }
    })
    const theirs = await instructionsPerRequest('/api/me', async (wrapper) => {
      const s = await startChild(
        './servers/replay.ts',
        [],
        { REPLAY: JSON.stringify(replay) },
        wrapper,
      )
      return { base: s.url, pid: s.child.pid!, host: process.env.HOST, stop: s.stop }
    })
    console.log(
      `\nnotes GET /api/me, instructions a request (callgrind, user space, after ${fmt(WARM_REQUESTS)} requests, counted over ${fmt(COUNTED_REQUESTS)}):`,
    )
    console.log(
      `  whole process: the service with npm start's options ${fmt(ours.process)}, bare ${fmt(theirs.process)}; ratio ${fmt(theirs.process / ours.process, 2)}`,
    )
    if (ours.request !== null && theirs.request !== null) {
      console.log(
        `  the request's own path (node's parser, inclusive): the service ${fmt(ours.request)}, bare ${fmt(theirs.request)}; ratio ${fmt(theirs.request / ours.request, 2)}`,
      )
    } else console.log(`  the request's own path: not found in the dump (no ${REQUEST_PATH})`)
  } else console.log('\ninstructions a request: not counted (valgrind is not installed)')
  await inProcess()
} finally {
  for (const stop of stops.reverse()) await stop()
  await database.close()
}
