// Live events: 10,000 polls waiting on one server process, its memory, and the time one event
// takes to reach all of them; then the cost of a write with its event against the same write
// without one.
// Run: tsx bench/live.bench.ts   (against DATABASE_URL when set, else an embedded database)
//
// Processes: the server serving GET /api/live (test/support/live-server.ts, run with the node
// options of `npm start`), this one (the pages' polls, and the writes) and, without
// DATABASE_URL, a process holding the embedded database (PGlite) on a TCP port. With two cores
// or more, the server runs on core 0 and this process on core 1, so the figures measure the
// server rather than the scheduler.
//
// The polls are plain connections speaking just enough HTTP/1.1
// (bench/clients/http-connection.ts), as 10,000 browsers on other machines would cost the server
// the same and this machine nothing: node's HTTP client spent more CPU receiving the 10,000
// answers than the server spent sending them, on the same cores.
// 10,000 open sockets on each side need more open files than the usual soft limit of 1024: the
// bench restarts itself under `ulimit -n <hard limit>` (Node has no setrlimit), and the server
// process inherits the limit.
import { spawn, type ChildProcess } from 'node:child_process'
import { Agent, request } from 'node:http'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { connect, type Sql } from '../src/db/client.ts'
import { migrate } from '../src/db/migrate.ts'
import { emit } from '../src/tickets/store/outbox.ts'
import { startCommand, startOptions } from '../test/support/start-command.ts'
import { HttpConnection } from './clients/http-connection.ts'
import { PINNED } from './support.ts'

const POLLS = Number(process.env.LIVE_BENCH_POLLS ?? 10_000)
// The first round runs code the server has not run yet; it is shown, not counted.
const WARM_UP_ROUNDS = 1
const ROUNDS = 5
const GOAL_RSS_MB = 200
const GOAL_REACH_MS = 500
const WRITE_ROUNDS = 10
const WRITES_PER_ROUND = 200
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SELF = fileURLToPath(import.meta.url)
const role = process.argv[2] ?? 'main'

/** Runs this file again with the open-file limit raised to the hard limit (and on core 1). */
async function restartRaised(): Promise<void> {
  const pin = PINNED ? 'taskset -c 1 ' : ''
  const child = spawn(
    'bash',
    [
      '-c',
      `ulimit -n "$(ulimit -Hn)" && exec ${pin}"$0" --import tsx "$1"`,
      process.execPath,
      SELF,
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, LIVE_BENCH_RAISED: '1' },
    },
  )
  process.exitCode = await new Promise<number>((resolve) =>
    child.on('exit', (code) => resolve(code ?? 1)),
  )
}

/** The embedded database in a process of its own, as the test runner serves it. */
async function serveEmbedded(): Promise<void> {
  const { startEmbedded } = await import('../src/db/embedded.ts')
  const server = await startEmbedded('memory://', { tcp: true })
  process.stdout.write(JSON.stringify({ port: server.port }) + '\n')
  process.once('SIGTERM', async () => {
    await server.stop()
    process.exit(0)
  })
}

async function main(): Promise<void> {
  const children: ChildProcess[] = []
  const stopAll = async () => {
    for (const child of [...children].reverse()) await stop(child)
  }
  try {
    const openFiles = await shell('ulimit -n')
    let url = process.env.DATABASE_URL
    const kind = url ? 'postgres' : 'embedded'
    if (!url) {
      const db = await startChild(process.execPath, ['--import', 'tsx', SELF, 'db'], {}, children)
      url = `postgres://postgres@127.0.0.1:${(db.first as { port: number }).port}/postgres`
    }
    // A schema of our own on a real server; the embedded database is fresh, so `public` serves.
    const schema = kind === 'postgres' ? `bench_live_${randomBytes(4).toString('hex')}` : 'public'
    const admin = connect(url, { max: 1 })
    if (kind === 'postgres') await admin.unsafe(`create schema ${schema}`)
    const sql = connect(url, { schema, max: 8 })
    try {
      await migrate(sql)
      const options = startOptions()
      console.log(
        `live events bench: ${kind} database, ${POLLS} polls, open-file limit ${openFiles}${PINNED ? ', server on core 0, polls on core 1' : ''}`,
      )
      console.log(
        `server process: node ${options.join(' ')} scripts/run.mjs (as npm start runs a service)`,
      )

      const server = await startChild(
        PINNED ? 'taskset' : process.execPath,
        [
          ...(PINNED ? ['-c', '0', process.execPath] : []),
          ...startCommand(
            'test/support/live-server.ts',
            [],
            [
              ...options,
              ...(process.env.LIVE_BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []),
            ],
          ),
        ],
        {
          DATABASE_URL: url,
          LIVE_SCHEMA: schema,
          LIVE_LISTEN: kind === 'postgres' ? '1' : '0',
          LIVE_HOLD_MS: '300000',
          LIVE_MAX_WAITING: String(POLLS * 2),
        },
        children,
      )
      await polls(sql, (server.first as { url: string }).url, kind)
      await stop(server.child)
      await writeCost(sql)
    } finally {
      await sql.end({ timeout: 5 })
      if (kind === 'postgres') await admin.unsafe(`drop schema ${schema} cascade`)
      await admin.end({ timeout: 5 })
    }
  } finally {
    await stopAll()
  }
}

/**
 * A page's poll on a connection of its own, kept open between polls as a browser keeps it:
 * sends `GET /api/live?after=<cursor>`. A refused or closed connection, or a 408 or 503, is
 * tried again on a new connection after 100 ms, as a page would.
 */
class Poller {
  connection: HttpConnection | null = null

  constructor(
    private readonly url: string,
    private readonly onAnswer: (body: { events?: unknown[] }) => void,
    private readonly onRetry: (why: string) => void,
  ) {}

  send(cursor: number): void {
    const connection = (this.connection ??= new HttpConnection(this.url))
    connection.request('GET', `/api/live?after=${cursor}`, []).then(
      (answer) => {
        if (answer.status === 408 || answer.status === 503)
          return this.retry(connection, `status ${answer.status}`, cursor)
        this.onAnswer(
          answer.status === 200 ? (JSON.parse(answer.body) as { events?: unknown[] }) : {},
        )
      },
      (err: NodeJS.ErrnoException) => this.retry(connection, err.code ?? err.message, cursor),
    )
  }

  private retry(connection: HttpConnection, why: string, cursor: number): void {
    connection.close()
    if (this.connection !== connection) return
    this.connection = null
    this.onRetry(why)
    setTimeout(() => this.send(cursor), 100)
  }

  close(): void {
    const connection = this.connection
    this.connection = null
    connection?.close()
  }
}

/** Keeps POLLS polls waiting, writes one event, and times its arrival at all of them. */
async function polls(sql: Sql, base: string, kind: string): Promise<void> {
  const control = new Agent({ keepAlive: true, maxSockets: 4 })
  let cursor = (await call(control, 'GET', `${base}/api/live`)).cursor as number
  let arrived = 0
  let bad = 0
  let onAll: (() => void) | null = null
  const retried = new Map<string, number>()
  const pollers = Array.from(
    { length: POLLS },
    () =>
      new Poller(
        base,
        (body) => {
          if (!Array.isArray(body.events) || body.events.length !== 1) bad++
          if (++arrived === POLLS) onAll?.()
        },
        (why) => retried.set(why, (retried.get(why) ?? 0) + 1),
      ),
  )
  const stats = () =>
    call(control, 'GET', `${base}/stats`) as Promise<{
      waiting: number
      rss: number
      heapUsed: number
    }>
  const allWaiting = async () => {
    const deadline = Date.now() + 120_000
    for (;;) {
      const now = await stats()
      if (now.waiting === POLLS) return now
      if (Date.now() > deadline)
        throw new Error(
          `only ${now.waiting} of ${POLLS} polls are waiting; ${arrived} answered; tried again ${JSON.stringify([...retried])}`,
        )
      await sleep(20)
    }
  }

  const idle = await stats()
  const t0 = performance.now()
  // Opened in slices, each once the last is waiting, so the connection burst stays within the
  // server's listen backlog.
  for (let i = 0; i < POLLS; i += 500) {
    for (let j = i; j < Math.min(POLLS, i + 500); j++) pollers[j]!.send(cursor)
    while ((await stats()).waiting < Math.min(POLLS, i + 500)) await sleep(20)
  }
  const waiting = await allWaiting()
  console.log(`setup ${(performance.now() - t0).toFixed(0)} ms`)

  const rounds: { reach: number; afterCommit: number; from: string; rss: number }[] = []
  const total = WARM_UP_ROUNDS + ROUNDS + (kind === 'postgres' ? 1 : 0)
  for (let round = 0; round < total; round++) {
    // The last round (real PostgreSQL only) writes from this process, so the server hears of the
    // event by NOTIFY, as a process behind a load balancer hears of another's writes.
    const fromOther = round >= WARM_UP_ROUNDS + ROUNDS
    arrived = 0
    const all = new Promise<void>((resolve) => (onAll = resolve))
    const started = performance.now()
    if (fromOther) await sql.begin((tx) => emit(tx, 'p1', 'ticketCreated', [{ round }], Date.now()))
    else
      await call(
        control,
        'POST',
        `${base}/emit`,
        JSON.stringify({ project: 'p1', args: [{ round }] }),
      )
    const committed = performance.now()
    await all
    const done = performance.now()
    cursor = (await call(control, 'GET', `${base}/api/live`)).cursor as number
    for (const poller of pollers) poller.send(cursor)
    const after = await allWaiting()
    rounds.push({
      reach: done - started,
      afterCommit: done - committed,
      from:
        round < WARM_UP_ROUNDS
          ? 'the server process, warm-up'
          : fromOther
            ? 'another process (NOTIFY)'
            : 'the server process',
      rss: after.rss,
    })
  }
  for (const poller of pollers) poller.close()
  control.destroy()

  const mb = (n: number) => (n / 1024 / 1024).toFixed(1)
  const counted = rounds.filter((r) => r.from === 'the server process').map((r) => r.reach)
  const peak = Math.max(waiting.rss, ...rounds.map((r) => r.rss))
  console.log(
    `server process: ${mb(idle.rss)} MB resident idle; ${mb(waiting.rss)} MB with ${POLLS} polls waiting (heap ${mb(waiting.heapUsed)} MB)`,
  )
  for (const [i, r] of rounds.entries()) {
    console.log(
      `  round ${i + 1}: written by ${r.from}: all ${POLLS} answered ${r.reach.toFixed(0)} ms after the write began (${r.afterCommit.toFixed(0)} ms after its commit); ${mb(r.rss)} MB once all wait again`,
    )
  }
  console.log(
    `answers without the event: ${bad}; polls tried again: ${JSON.stringify([...retried])}`,
  )
  const reach = median(counted)
  console.log(
    `memory: ${mb(waiting.rss)} MB with ${POLLS} polls waiting, at most ${mb(peak)} MB over the rounds; goal under ${GOAL_RSS_MB} MB: ${peak / 1024 / 1024 < GOAL_RSS_MB ? 'met' : 'MISSED'} (ratio ${(peak / 1024 / 1024 / GOAL_RSS_MB).toFixed(2)})`,
  )
  console.log(
    `reach all: median ${reach.toFixed(0)} ms of ${counted.length} rounds, worst ${Math.max(...counted).toFixed(0)} ms, goal under ${GOAL_REACH_MS} ms: ${reach < GOAL_REACH_MS && bad === 0 ? 'met' : 'MISSED'} (ratio ${(reach / GOAL_REACH_MS).toFixed(2)})`,
  )
}

/** A write (one row updated in a transaction) with and without an event, one and 8 at a time. */
async function writeCost(sql: Sql): Promise<void> {
  await sql`create table bench_writes (id int primary key, n int not null)`
  await sql`insert into bench_writes select i, 0 from generate_series(1, 64) as i`
  let next = 0
  const plain = (id: number) =>
    sql.begin((tx) => tx`update bench_writes set n = n + 1 where id = ${id}`)
  const withEvent = (id: number) =>
    sql.begin(async (tx) => {
      await tx`update bench_writes set n = n + 1 where id = ${id}`
      await emit(
        tx,
        'p1',
        'ticketEvent',
        [id, { kind: 'state', to: 'doing' }, { id, subject: 'a ticket', state: 'doing' }],
        Date.now(),
      )
    })
  // Rounds alternate the two kinds, and which goes first, so drift falls on both alike.
  for (const concurrency of [1, 8]) {
    const times: Record<'plain' | 'event', number[]> = { plain: [], event: [] }
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      const order = round % 2 === 0 ? (['plain', 'event'] as const) : (['event', 'plain'] as const)
      for (const which of order) {
        const write = which === 'plain' ? plain : withEvent
        const started = performance.now()
        await Promise.all(
          Array.from({ length: concurrency }, async (_, worker) => {
            for (let i = worker; i < WRITES_PER_ROUND; i += concurrency)
              await write((next++ % 64) + 1)
          }),
        )
        times[which].push((performance.now() - started) / WRITES_PER_ROUND)
      }
    }
    const p = median(times.plain)
    const e = median(times.event)
    console.log(
      `write, ${concurrency} at a time: ${(1000 / p).toFixed(0)} writes/s plain, ${(1000 / e).toFixed(0)} with an event; ${(p * 1000).toFixed(0)} µs vs ${(e * 1000).toFixed(0)} µs a write: ratio ${(e / p).toFixed(2)}`,
    )
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

/** Starts a child process and waits for the JSON line it prints once ready. */
async function startChild(
  command: string,
  args: string[],
  env: Record<string, string>,
  children: ChildProcess[],
): Promise<{ child: ChildProcess; first: unknown }> {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)))
  })
  return { child, first: JSON.parse(line) }
}

function call(
  agent: Agent,
  method: string,
  url: string,
  body?: string,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent, headers: body ? { 'content-type': 'application/json' } : {} },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          try {
            if (res.statusCode !== 200)
              throw Object.assign(new Error(`status ${res.statusCode}`), {
                code: `status ${res.statusCode}`,
              })
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
          } catch (err) {
            reject(err)
          }
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

function shell(command: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.on('exit', () => resolve(out.trim()))
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

// Last, once every declaration above (the Poller class) is initialised.
if (role === 'db') await serveEmbedded()
else if (process.env.LIVE_BENCH_RAISED !== '1') await restartRaised()
else await main()
