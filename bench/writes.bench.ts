/**
 * Writes at the speed of their SQL: a ticket create, a comment, a state change and a note save
 * through the real services (started as `npm start` starts them, logging on), each against a
 * bare node:http server that parses the body with JSON.parse and runs the same SQL statements
 * (bench/servers/writes.ts), both on the same database (DATABASE_URL in a schema of the bench's
 * own, else the embedded database in a process of its own on a TCP port), measured alternately
 * in the same run. Goal: at least 0.8 of the baseline's requests per second for every route.
 *
 * First, the statements and round trips each write makes are counted on the wire: the service
 * is started once more behind a proxy that reads the PostgreSQL protocol (bench/scale/wire-log.ts)
 * and one write of each kind is made after a warm-up.
 *
 * The baseline runs with the same node options as the service (those of `npm start`), so the
 * ratio compares code, not V8 settings. Both servers run on core 0 when cores can be pinned;
 * the clients (node:http, keep-alive, CONCURRENCY at a time) run in this process.
 *
 * A round is at least PER_ROUND writes, and more for a fast route: as many as the faster of the
 * two made in ROUND_SECONDS during the warm-up (200 note saves took about 50 ms, so one
 * collection or a second's rate-limit exchange moved a round's figure by a fifth).
 *
 * `WRITES_BENCH_ROUNDS=<n>` changes the rounds (5); `WRITES_BENCH_ONLY=<name>,...` times only
 * the writes named (`ticket create`, `comment`, `state change`, `note save`);
 * `WRITES_BENCH_PROF=<dir>` has the timed service write a CPU profile (`node --cpu-prof`) into
 * `dir` when it stops.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { connect } from '../src/db/client.ts'
import { migrate } from '../src/db/migrate.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'
import { issueToken } from '../src/tickets/api/tokens.ts'
import { startCommand, startOptions } from '../test/support/start-command.ts'
import { fillBase, fillNotes, fillTickets, noteUser, PROJECTS, userId } from './scale/fill.ts'
import { startService } from './scale/service.ts'
import { startWireLog } from './scale/wire-log.ts'
import {
  cpuMs,
  fmt,
  keepAliveClient,
  median,
  PINNED,
  signedInCookie,
  startChild,
} from './support.ts'

const CONCURRENCY = 8
const ROUNDS = Number(process.env.WRITES_BENCH_ROUNDS ?? 5)
const PER_ROUND = 200
const ROUND_SECONDS = 0.5
const ONLY = process.env.WRITES_BENCH_ONLY?.split(',').map((name) => name.trim())
const GOAL = 0.8
/**
 * Writes of each kind before the one counted: each of the service's pooled connections (10)
 * prepares a statement the first time it runs it (one round trip more), and the pool hands its
 * connections out in turn, so that by then each has run each statement.
 */
const WARM_UPS = 30
const COUNT_ATTEMPTS = 4
const ROOT = fileURLToPath(new URL('..', import.meta.url))

const kind = process.env.DATABASE_URL ? 'postgres' : 'embedded'
const embedded = kind === 'embedded' ? await startChild('./scale/embedded.ts') : null
const baseUrl = process.env.DATABASE_URL ?? embedded!.url
const schema = kind === 'postgres' ? `bench_writes_${randomBytes(4).toString('hex')}` : null
const admin = connect(baseUrl, { max: 1 })
if (schema) await admin.unsafe(`create schema ${schema}`)
const sql = connect(baseUrl, { max: 2, ...(schema ? { schema } : {}) })
const withSchema = (url: string) => {
  const u = new URL(url)
  if (schema) u.searchParams.set('search_path', schema)
  return u.toString()
}
const secret = randomBytes(32)
const children: { stop(): Promise<void> }[] = []

/** `node <npm start's options> <script>` on core 0, resolving once it prints `listening <url>`. */
async function startBaseline(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const args = startCommand('bench/servers/writes.ts')
  const child = spawn(
    PINNED ? 'taskset' : process.execPath,
    PINNED ? ['-c', '0', process.execPath, ...args] : args,
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } },
  )
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening (\S+)/.exec(line)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`the baseline exited with ${code}`)))
  })
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) =>
        child.exitCode !== null
          ? resolve()
          : (child.once('exit', () => resolve()), child.kill('SIGTERM')),
      ),
  }
}

try {
  await migrate(sql)
  await fillBase(sql)
  await fillTickets(sql, 0, 1_000)
  await fillNotes(sql, 0, 10_000)
  const token = (await issueToken(createTicketStore({ sql, clock: Date.now }), userId(1), 'bench'))
    .token
  const cookies: string[] = []
  for (let w = 0; w < CONCURRENCY; w++)
    cookies.push(await signedInCookie(sql, new Uint8Array(secret), 'notes', noteUser(w + 1)))
  // Rate limits counted, as in production, but never reached: the bench's one token makes
  // hundreds of writes a second, past the default limit.
  const serviceEnv = {
    SESSION_SECRET: secret.toString('base64'),
    SERVICES: 'notes,tickets',
    RATE_LIMIT: '1000000000,1000000000',
  }
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const perProject = 1_000 / PROJECTS
  const cycle = ['doing', 'review', 'done', 'open']
  const stateStep = Array.from({ length: CONCURRENCY }, () => 0)
  const noteBases = Array.from({ length: CONCURRENCY }, () => 0)
  // Each save's text differs from the last (two saves in one millisecond had the same text, which
  // the service answers unchanged and the baseline's one statement does not).
  let saves = 0
  await sql`update tickets set state = 'open', assignee_id = null where project_id = ${`p${String(PROJECTS).padStart(11, '0')}`} and number <= ${CONCURRENCY + 1 + WARM_UPS + COUNT_ATTEMPTS}`

  type Call = (base: string, w: number) => Promise<void>
  const clients = new Map<string, ReturnType<typeof keepAliveClient>>()
  const client = (base: string) => {
    let c = clients.get(base)
    if (!c) clients.set(base, (c = keepAliveClient(base, CONCURRENCY)))
    return c
  }
  const expect = async (
    base: string,
    want: number,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string,
  ) => {
    const res = await client(base).call(method, path, headers, body)
    if (res.status !== want)
      throw new Error(
        `${base}${path}: status ${res.status}, not ${want}: ${res.text.slice(0, 200)}`,
      )
    return JSON.parse(res.text) as Record<string, unknown>
  }
  const writes: Record<string, { service: 'tickets' | 'notes'; call: Call }> = {
    'ticket create': {
      service: 'tickets',
      call: async (b) =>
        void (await expect(
          b,
          201,
          'POST',
          '/api/projects/project-1/tickets',
          auth,
          JSON.stringify({
            subject: 'A ticket from the writes bench',
            summary: 'made by the bench',
          }),
        )),
    },
    comment: {
      service: 'tickets',
      call: async (b) =>
        void (await expect(
          b,
          201,
          'POST',
          `/api/projects/project-${1 + Math.floor(Math.random() * (PROJECTS - 1))}/tickets/${1 + Math.floor(Math.random() * perProject)}/comments`,
          auth,
          JSON.stringify({ text: 'A comment from the writes bench.' }),
        )),
    },
    'state change': {
      service: 'tickets',
      call: async (b, w) =>
        void (await expect(
          b,
          201,
          'POST',
          `/api/projects/project-${PROJECTS}/tickets/${w + 1}/state`,
          auth,
          JSON.stringify({ state: cycle[stateStep[w]!++ % cycle.length] }),
        )),
    },
    'note save': {
      service: 'notes',
      call: async (b, w) => {
        const body = JSON.stringify({
          op: 'save',
          id: 'bench-save',
          local: 'bench',
          text: `Save ${++saves} at ${Date.now()} by the writes bench.`,
          base: noteBases[w],
          at: Date.now(),
        })
        const answer = await expect(
          b,
          200,
          'POST',
          '/api/notes',
          { cookie: cookies[w]!, 'content-type': 'application/json' },
          body,
        )
        if (answer.copy) throw new Error('a note save made a copy')
        noteBases[w] = answer.edited as number
      },
    },
  }

  // 1. Statements and round trips a write, counted on the wire.
  const db = new URL(baseUrl)
  const wire = await startWireLog(db.hostname, Number(db.port || 5432))
  const counted = await startService({
    ...serviceEnv,
    DATABASE_URL: withSchema(wire.url(db.pathname.slice(1))),
  })
  children.push(counted)
  console.log(
    `# writes bench: ${kind} database; service and baseline on ${PINNED ? 'core 0' : 'any core'}, node ${startOptions().join(' ')} (scripts/run.mjs)`,
  )
  console.log(
    `\nstatements and round trips a write makes (one write after ${WARM_UPS} of warm-up; begin and commit count as statements):`,
  )
  const counts: Record<string, { statements: number; roundTrips: number }> = {}
  // A state change to `doing` of an unassigned ticket also assigns it: counted on tickets of
  // project-<PROJECTS> past the workers' own, the first ones for warm-up.
  const assigning =
    (number: number): Call =>
    async (b) =>
      void (await expect(
        b,
        201,
        'POST',
        `/api/projects/project-${PROJECTS}/tickets/${number}/state`,
        auth,
        JSON.stringify({ state: 'doing' }),
      ))
  const warmUps = (call: (i: number) => Call) => Array.from({ length: WARM_UPS }, (_, i) => call(i))
  const toCount: [string, Call[], (attempt: number) => Call][] = Object.entries(writes).map(
    ([name, write]) => [name, warmUps(() => write.call), () => write.call],
  )
  toCount.splice(3, 0, [
    'state change (assigning)',
    warmUps((i) => assigning(CONCURRENCY + 1 + i)),
    (attempt) => assigning(CONCURRENCY + 1 + WARM_UPS + attempt),
  ])
  for (const [name, warmUps, write] of toCount) {
    const base = counted.urls[writes[name]?.service ?? 'tickets']!
    for (const warmUp of warmUps) await warmUp(base, 0)
    // The rate limiter sends its counts about once a second (src/limits/shared-buckets.ts), on
    // whichever connection: a write whose window holds that exchange is counted again.
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      wire.entries.length = 0
      await write(attempt)(base, 0)
      await new Promise((resolve) => setTimeout(resolve, 100))
      if (!wire.entries.some((e) => e.kind === 'statement' && /rate_limits/.test(e.text))) break
    }
    const statements = wire.entries.filter((e) => e.kind === 'statement')
    counts[name] = {
      statements: statements.length,
      roundTrips: wire.entries.filter((e) => e.kind === 'round trip').length,
    }
    console.log(
      `  ${name}: ${statements.length} statements, ${counts[name].roundTrips} round trips`,
    )
    // S a statement, s its sync, R a sync that starts a round trip (nothing was waiting for an answer).
    console.log(
      `    on the wire: ${wire.entries.map((e) => (e.kind === 'statement' ? 'S' : e.kind === 'sync' ? 's' : 'R')).join('')}`,
    )
    for (const s of statements)
      console.log(`    ${s.text.replace(/\s+/g, ' ').trim().slice(0, 110)}`)
  }
  await counted.stop()
  await wire.close()

  // 2. The service against the baseline, alternately.
  // WRITES_BENCH_PROF=<dir>: the timed service writes a CPU profile there when it stops.
  const prof = process.env.WRITES_BENCH_PROF
  const service = await startService(
    { ...serviceEnv, DATABASE_URL: withSchema(baseUrl) },
    prof ? { extraOptions: ['--cpu-prof', `--cpu-prof-dir=${prof}`] } : {},
  )
  children.push(service)
  const [cookieUser] = [Object.fromEntries(cookies.map((c, w) => [c, noteUser(w + 1)]))]
  const baseline = await startBaseline({
    DATABASE_URL: withSchema(baseUrl),
    BASELINE_COOKIES: JSON.stringify(cookieUser),
    TICKETS_URL: 'http://localhost:0',
  })
  children.push(baseline)
  // The service's public URL is http://localhost:<its port setting, 0>, as the baseline's.
  const measure = async (which: 'service' | 'baseline', name: string, count: number) => {
    const write = writes[name]!
    const base = which === 'service' ? service.urls[write.service]! : baseline.url
    const pid = which === 'service' ? service.child.pid! : baseline.child.pid!
    let left = count
    const cpu = cpuMs(pid)
    const t = performance.now()
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        while (left-- > 0) await write.call(base, w)
      }),
    )
    const seconds = (performance.now() - t) / 1000
    return { perSecond: count / seconds, cpuUs: ((cpuMs(pid) - cpu) * 1000) / count }
  }
  console.log(
    `\nrequests/s, ${ROUNDS} rounds of at least ${PER_ROUND} writes and ${ROUND_SECONDS} s, ${CONCURRENCY} at a time (medians; which goes first alternates); server CPU a write from /proc:`,
  )
  for (const name of Object.keys(writes)) {
    if (ONLY && !ONLY.includes(name)) continue
    await measure('service', name, 40)
    await measure('baseline', name, 40)
    const warm = [
      await measure('service', name, PER_ROUND),
      await measure('baseline', name, PER_ROUND),
    ]
    const perRound = Math.max(
      PER_ROUND,
      Math.round(Math.max(...warm.map((w) => w.perSecond)) * ROUND_SECONDS),
    )
    const got: Record<'service' | 'baseline', { perSecond: number; cpuUs: number }[]> = {
      service: [],
      baseline: [],
    }
    const ratios: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const order =
        round % 2 === 0 ? (['service', 'baseline'] as const) : (['baseline', 'service'] as const)
      const r: Partial<Record<'service' | 'baseline', { perSecond: number; cpuUs: number }>> = {}
      for (const which of order) r[which] = await measure(which, name, perRound)
      got.service.push(r.service!)
      got.baseline.push(r.baseline!)
      ratios.push(r.service!.perSecond / r.baseline!.perSecond)
    }
    const ratio = median(ratios)
    const sorted = [...ratios].sort((a, b) => a - b)
    console.log(
      `  ${name.padEnd(13)} service ${fmt(median(got.service.map((g) => g.perSecond))).padStart(6)}/s, baseline ${fmt(median(got.baseline.map((g) => g.perSecond))).padStart(6)}/s, ratio ${fmt(ratio, 2)} (rounds ${fmt(sorted[0]!, 2)}–${fmt(sorted.at(-1)!, 2)} of ${fmt(perRound)} writes) (goal >= ${GOAL}) ${ratio >= GOAL ? 'MET' : 'NOT MET'}; CPU a write: service ${fmt(median(got.service.map((g) => g.cpuUs)))} µs, baseline ${fmt(median(got.baseline.map((g) => g.cpuUs)))} µs; ${counts[name]!.statements} statements, ${counts[name]!.roundTrips} round trips`,
    )
  }
} finally {
  for (const c of children.reverse()) await c.stop()
  await sql.end({ timeout: 5 })
  if (schema) await admin.unsafe(`drop schema ${schema} cascade`)
  await admin.end({ timeout: 5 })
  await embedded?.stop()
}
