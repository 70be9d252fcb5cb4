/**
 * Shared pieces of the benchmarks: a load generator in a second process (autocannon), child
 * servers that announce their port, and medians. Every figure is a ratio against a baseline
 * measured in the same run, alternately, because these machines are shared and noisy.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Agent, request, type IncomingMessage } from 'node:http'
import { cpus } from 'node:os'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createSessions } from '../src/auth/session.ts'
import { connect, type ConnectOptions, type Sql } from '../src/db/client.ts'
import { startEmbedded } from '../src/db/embedded.ts'
import { migrate } from '../src/db/migrate.ts'

const AUTOCANNON = fileURLToPath(
  new URL('../node_modules/autocannon/autocannon.js', import.meta.url),
)

// On a machine of few cores, a server and its load generator fight for the same cores and the
// figures measure the scheduler (a bare server measured 30% idle, waiting for its client). With
// `taskset` and two or more cores, servers run on core 0 and the load generator on core 1.
const PIN = cpus().length >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0

/** The command line for `args`, pinned to `core` when pinning is available. */
export function pinned(core: number, args: string[]): [string, string[]] {
  return PIN ? ['taskset', ['-c', String(core), ...args]] : [args[0]!, args.slice(1)]
}

/** Whether servers and load generators run on cores of their own (printed with the figures). */
export const PINNED = PIN

export interface Load {
  connections?: number
  seconds?: number
  method?: string
  headers?: Record<string, string>
  body?: string
  /** Seconds autocannon waits for an answer before counting an error (its default: 10). */
  timeout?: number
}

/** Requests per second that autocannon, in its own process, gets from `url`; throws on any non-2xx answer. */
export async function requestsPerSecond(url: string, load: Load = {}): Promise<number> {
  return (await autocannon(url, load, ['-d', String(load.seconds ?? 3)])) / (load.seconds ?? 3)
}

/** Sends `count` requests to `url` from autocannon in its own process; throws on any non-2xx answer. */
export async function sendRequests(url: string, count: number, load: Load = {}): Promise<void> {
  await autocannon(url, load, ['-a', String(count)])
}

/** Runs autocannon against `url` for a duration or an amount (`length`); answers the 2xx count. */
async function autocannon(url: string, load: Load, length: string[]): Promise<number> {
  const args = [AUTOCANNON, '--json', '-c', String(load.connections ?? 50), ...length]
  if (load.method) args.push('-m', load.method)
  for (const [k, v] of Object.entries(load.headers ?? {})) args.push('-H', `${k}=${v}`)
  if (load.body !== undefined) args.push('-b', load.body)
  if (load.timeout !== undefined) args.push('-t', String(load.timeout))
  args.push(url)
  const [command, commandArgs] = pinned(1, [process.execPath, ...args])
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (c) => (out += c))
  await new Promise((resolve) => child.on('exit', resolve))
  const result = JSON.parse(out) as { non2xx: number; errors: number; '2xx': number }
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors`)
  return result['2xx']
}

/**
 * Starts `node --import tsx <script> ...args`, behind `wrapper` when given (a command that runs
 * node in its own process, as `valgrind` does); resolves with its URL once it prints
 * `listening <url>`.
 */
export async function startChild(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  wrapper: string[] = [],
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const [command, commandArgs] = pinned(0, [
    ...wrapper,
    process.execPath,
    '--import',
    'tsx',
    fileURLToPath(new URL(script, import.meta.url)),
    ...args,
  ])
  const child = spawn(command, commandArgs, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  })
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening (\S+)/.exec(line)
      if (m) resolve(m[1]!)
    })
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.on('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
}

/** CPU time process `pid` has used, in milliseconds (from /proc, 100 ticks a second). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** The smallest value that `p` (0 to 1) of `values` do not exceed. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!
}

/**
 * A budget's verdict: `figure` against `limit` (`at most`: the figure must stay under it; `at
 * least`: over or at it), as `met` or `NOT met by <the gap>`.
 */
export function budgetVerdict(
  figure: number,
  limit: number,
  kind: 'at most' | 'at least',
  unit = '',
  digits = 2,
): { met: boolean; text: string } {
  const met = kind === 'at most' ? figure < limit : figure >= limit
  const gap = Math.abs(figure - limit)
  return {
    met,
    text: met ? 'met' : `NOT met by ${fmt(gap, digits)}${unit} (${fmt((gap / limit) * 100)}%)`,
  }
}

/** One GET, answering the status, the headers node did not add itself, and the body. */
export function capture(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => {
        const kept: Record<string, string> = {}
        for (const [name, value] of Object.entries(res.headers)) {
          if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name))
            kept[name] = String(value)
        }
        resolve({ status: res.statusCode ?? 0, headers: kept, body })
      })
    })
      .on('error', reject)
      .end()
  })
}

/**
 * A migrated schema of the bench's own on the server of `DATABASE_URL`, or on an embedded
 * database it starts (PGlite in memory, served on a local port); `close()` drops it all.
 * With `onQuery`, `counting` is a second connection to it that calls `onQuery` with every
 * statement it sends. Only that one: the driver then records where each query was made
 * (`new Error()` for every query and fragment), which cost a page built of twenty fragments
 * a tenth of its time, and timed rounds must not pay it.
 */
export async function benchDatabase(
  pool: number,
  onQuery?: (statement: string) => void,
): Promise<{
  sql: Sql
  counting: Sql | null
  kind: 'embedded' | 'postgres'
  close(): Promise<void>
}> {
  const embedded = process.env.DATABASE_URL ? null : await startEmbedded('memory://', { tcp: true })
  const url = process.env.DATABASE_URL ?? `postgres://postgres@127.0.0.1:${embedded!.port}/postgres`
  const schema = `bench_${randomBytes(4).toString('hex')}`
  const admin = connect(url, { max: 1 })
  await admin.unsafe(`create schema ${schema}`)
  const sql = connect(url, { max: pool, schema })
  const counting = onQuery ? connect(url, { max: 2, schema, onQuery }) : null
  // The embedded database is one session shared by all connections (see test/support/db.ts).
  await sql.unsafe(`set search_path to ${schema}`)
  await migrate(sql)
  return {
    sql,
    counting,
    kind: embedded ? 'embedded' : 'postgres',
    async close() {
      await counting?.end({ timeout: 5 })
      await sql.end({ timeout: 5 })
      await admin.unsafe(`drop schema ${schema} cascade`)
      await admin.end({ timeout: 5 })
      await embedded?.stop()
    },
  }
}

/**
 * A keep-alive HTTP client for `baseUrl` with `sockets` connections: node:http rather than
 * fetch, whose client in the same process measured more CPU than the server it measured.
 */
export function keepAliveClient(baseUrl: string, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets, timeout: 2_000 })
  const { hostname, port } = new URL(baseUrl)
  /** One request; `read` takes the answer and settles with what the caller keeps of it. */
  const exchange = <T>(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    read: (res: IncomingMessage, done: (value: T) => void) => void,
  ) =>
    new Promise<T>((resolve, reject) => {
      const req = request({ host: hostname, port, path, method, headers, agent }, (res) =>
        read(res, resolve),
      )
      req.on('error', reject)
      req.end(body)
    })
  return {
    /** One request; answers the status and the body's text. */
    call(
      method: string,
      path: string,
      headers: Record<string, string>,
      body?: string,
    ): Promise<{ status: number; text: string }> {
      return exchange(method, path, headers, body, (res, done) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => done({ status: res.statusCode ?? 0, text }))
      })
    },
    /**
     * One request whose body is read but not decoded; answers the status and the body's size.
     * For timed rounds: decoding a page's text cost this process more for the larger answer.
     */
    fetchBytes(
      method: string,
      path: string,
      headers: Record<string, string>,
    ): Promise<{ status: number; bytes: number }> {
      return exchange(method, path, headers, undefined, (res, done) => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('end', () => done({ status: res.statusCode ?? 0, bytes }))
      })
    },
    close: () => agent.destroy(),
  }
}

/**
 * The database of a bench whose services run in processes of their own: a schema of the bench's
 * own on the server of DATABASE_URL (named `bench_<name>_<random>`, dropped by `close`), else an
 * embedded database in a process of its own on a TCP port (in memory, or in the folder `dataDir`
 * as `npm start` keeps it). `url` is what a service's DATABASE_URL is set to; `sql` is the
 * bench's own client (2 connections unless `options` say); `pid` the embedded database's process.
 */
export async function serviceDatabase(
  name: string,
  options: ConnectOptions = {},
  dataDir?: string,
): Promise<{
  kind: 'embedded' | 'postgres'
  sql: Sql
  url: string
  pid: number | null
  close(): Promise<void>
}> {
  const kind = process.env.DATABASE_URL ? 'postgres' : 'embedded'
  const embedded =
    kind === 'embedded' ? await startChild('./scale/embedded.ts', dataDir ? [dataDir] : []) : null
  const baseUrl = process.env.DATABASE_URL ?? embedded!.url
  const schema = kind === 'postgres' ? `bench_${name}_${randomBytes(4).toString('hex')}` : null
  const admin = connect(baseUrl, { max: 1 })
  if (schema) await admin.unsafe(`create schema ${schema}`)
  const sql = connect(baseUrl, { max: 2, ...options, ...(schema ? { schema } : {}) })
  const url = new URL(baseUrl)
  if (schema) url.searchParams.set('search_path', schema)
  return {
    kind,
    sql,
    url: url.toString(),
    pid: embedded?.child.pid ?? null,
    async close() {
      await sql.end({ timeout: 5 })
      if (schema) await admin.unsafe(`drop schema ${schema} cascade`)
      await admin.end({ timeout: 5 })
      await embedded?.stop()
    },
  }
}

/**
 * The cookie (`name=value`) of a new session of `user` on `service`, sealed with `secret` as the
 * service under test seals its own, so that the bench's requests are signed in.
 */
export async function signedInCookie(
  sql: Sql,
  secret: Uint8Array,
  service: 'notes' | 'tickets',
  user: string,
): Promise<string> {
  const sessions = createSessions({ sql, secret, service, secure: false, clock: Date.now })
  const session = sessions.create()
  session.userId = user
  // The tickets pages take a session as signed in only with the tag its forms send (as sign-in stores).
  if (service === 'tickets') session.data = { tag: randomBytes(16).toString('hex') }
  await sessions.save(session)
  return sessions.cookie(session).split(';')[0]!
}
