/**
 * The database connection: the `postgres` client, talking either to the server named by
 * `DATABASE_URL` or to the embedded database in `DATA_DIR` (docs/core.md, "Database").
 */
import { join } from 'node:path'
import postgres from 'postgres'
import { lockDataDir } from './data-dir-lock.ts'

type Types = { bigint: postgres.PostgresType<number> }
export type Sql = postgres.Sql<{ bigint: number }>
export type TransactionSql = postgres.TransactionSql<{ bigint: number }>
/** A query handle: the pool or an open transaction. */
export type Query = Sql | TransactionSql

export interface Database {
  sql: Sql
  kind: 'embedded' | 'postgres'
  /** Closes the client, and the embedded database when there is one. */
  close(): Promise<void>
}

export interface ConnectOptions {
  /** Connections in the pool. */
  max?: number
  /** A schema to put first on the search path (the tests give each file its own). */
  schema?: string
  /** Called with each statement sent (the benches count a page's statements with it). */
  onQuery?: (statement: string) => void
  /**
   * Seconds a connection's queries may wait without a byte from the server before the
   * connection is taken for dead and replaced; {@link ANSWER_TIMEOUT_S} unless told, and no
   * deadline with `null` (for statements that may rightly run long, such as a migration).
   */
  answerTimeout?: number | null
  /** Seconds a connection attempt may take; 3 unless told (see below). */
  connectTimeout?: number
}

/** How long queries wait for a first byte of answer before their connection is taken for dead. */
export const ANSWER_TIMEOUT_S = 30
/** Seconds a pooled connection may sit unused before it is closed. */
export const IDLE_TIMEOUT_S = 30

/** Client options shared by every connection we make. */
function clientOptions(options: ConnectOptions): postgres.Options<Types> {
  return {
    max: options.max ?? 10,
    onnotice: () => {},
    // During an outage requests should fail fast with a 503 rather than queue: a connection
    // attempt gives up after 3 s, and reconnection waits at most 1 s between tries (the driver's
    // default back-off grows to about 20 s, and requests queued behind it).
    connect_timeout: options.connectTimeout ?? 3,
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    // Connections a failover, a NAT or a proxy dropped without a word must not reach a request:
    // an unused one is closed after IDLE_TIMEOUT_S; TCP keep-alive probes an idle socket every
    // 30 s, which keeps a NAT's or a load balancer's entry for it alive and finds a dead peer;
    // each connection is replaced after 15 to 30 minutes (each its own span, so they do not all
    // reconnect at once), so none outlives a failover's DNS change for long; and one whose
    // queries have heard nothing for `answerTimeout` seconds is closed, which fails them with
    // CONNECTION_CLOSED (a 503, or a transaction run again) instead of a wait of many minutes.
    // answer_timeout is ours, added by patches/postgres+3.4.9.patch: the driver has no such
    // option (a query on a half-open connection waits for good: porsager/postgres#1089,
    // https://github.com/porsager/postgres/issues/1089), and its documented hooks cannot make
    // one: statement_timeout is the server's, so it cannot end a wait for a server that is
    // gone, TCP keep-alive takes minutes and misses a proxy that stopped forwarding, and the
    // `socket` option sees bytes (under TLS, ciphertext), not which queries await an answer.
    idle_timeout: IDLE_TIMEOUT_S,
    keep_alive: 30,
    max_lifetime: () => 60 * (15 + Math.random() * 15),
    answer_timeout: options.answerTimeout === undefined ? ANSWER_TIMEOUT_S : options.answerTimeout,
    // Times are milliseconds since the epoch in bigint columns: well inside a double's exact range.
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (n: number) => String(n),
        parse: (s: string) => Number(s),
      },
    },
    connection: options.schema ? { search_path: options.schema } : {},
    ...(options.onQuery
      ? { debug: (_connection: number, statement: string) => options.onQuery!(statement) }
      : {}),
  }
}

/** Connects to `url`. */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  return postgres(url, clientOptions(options))
}

/** Opens the configured database: the server at `databaseUrl`, else the embedded one in `dataDir`. */
export async function openDatabase(
  config: { databaseUrl: string | null; dataDir: string },
  options: ConnectOptions = {},
): Promise<Database> {
  if (config.databaseUrl) {
    const sql = connect(config.databaseUrl, options)
    return { sql, kind: 'postgres', close: () => sql.end({ timeout: 5 }) }
  }
  // Loaded only here: PGlite's code alone adds about 40 MB to a process, which a process on a
  // real PostgreSQL server has no use for.
  const { startEmbedded } = await import('./embedded.ts')
  // One process per data directory (src/db/data-dir-lock.ts); released when the process ends, however.
  const lock = await lockDataDir(config.dataDir)
  const embedded = await startEmbedded(join(config.dataDir, 'pglite')).catch(
    async (err: unknown) => {
      await lock.release()
      throw err
    },
  )
  // `npm run backup` asks this process for a backup through the lock (src/db/data-dir-lock.ts).
  await lock.serveBackups(async (out) => void (await embedded.backup(out)))
  const sql = postgres({
    ...clientOptions({ ...options, max: options.max ?? 4 }),
    path: embedded.socketPath as string,
    // A socket to this process's own PGlite cannot go silent, and PGlite runs one statement at
    // a time for every connection, so a long one (the hourly vacuum) keeps the others waiting.
    answer_timeout: null,
    username: 'postgres',
    database: 'postgres',
  })
  return {
    sql,
    kind: 'embedded',
    async close() {
      await sql.end({ timeout: 5 })
      await embedded.stop()
      await lock.release()
    },
  }
}

/**
 * Errors that mean the database cannot be reached (down, restarting, a connection cut), as
 * opposed to an error in a statement: the request is answered 503, and may be tried again.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return false
  return (
    UNAVAILABLE_CODES.has(code) ||
    // SQLSTATE class 08 (connection exception) and 57P01-57P03 (shutdown, crash, cannot connect now).
    code.startsWith('08') ||
    /^57P0[123]$/.test(code)
  )
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT', // the embedded database's socket, gone
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
])

/**
 * `GET /healthz`'s check, shared by the requests that ask for it: one `select 1` at a time
 * answers every request that asked while it ran, and a success is taken as the answer for
 * `freshMs` more, so a monitor (or fifty) asking thousands of times a second costs the database
 * a statement every quarter second instead of one a request. A failure is not kept: the next
 * request asks again. What a request hears is the database as it was at most `freshMs` ago,
 * or as the check under way finds it.
 */
export function createReadiness(
  sql: Sql,
  options: { freshMs?: number; deadlineMs?: number; now?: () => number } = {},
): () => Promise<boolean> {
  const freshMs = options.freshMs ?? 250
  const now = options.now ?? (() => performance.now())
  let checking: Promise<boolean> | null = null
  let okUntil = -Infinity
  return async () => {
    if (now() < okUntil) return true
    if (checking === null) {
      // A refusal (the database gone) is a "no" like a late answer.
      checking = databaseReady(sql, options.deadlineMs)
        .catch(() => false)
        .then((ok) => {
          checking = null
          okUntil = ok ? now() + freshMs : -Infinity
          return ok
        })
    }
    return checking
  }
}

/** Whether the database answers `select 1` within `deadlineMs`. */
async function databaseReady(sql: Sql, deadlineMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>(
    (resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)),
  )
  try {
    return await Promise.race([sql`select 1`.then(() => true), late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Sends `statement` unprepared: PostgreSQL plans an unnamed statement for the values it is
 * given each time, where a prepared one may be given, after five runs, one plan kept for every
 * later value (its generic plan). Kept plans suit statements whose best plan does not depend on
 * the values; a text search's does. A generic plan knows nothing of the searched word and reads
 * every ticket holding it through the text index, where a plan made for a common word walks
 * the project's own index and stops at the page's rows. postgres.js reads this from the query's options when it
 * sends it; its types do not show them, and it offers no per-query switch of its own, only the
 * pool-wide `prepare: false` (porsager/postgres#997, https://github.com/porsager/postgres/issues/997).
 * test/tickets/search.test.ts ("a search for words is sent unprepared") fails if an upgrade
 * stops reading it.
 */
export function plannedEachTime<T>(statement: T): T {
  ;(statement as unknown as { options: { prepare?: boolean } }).options.prepare = false
  return statement
}
