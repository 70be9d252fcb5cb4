/**
 * The database connection: the `postgres` client, talking either to the server named by
 * `DATABASE_URL` or to the embedded database in `DATA_DIR` (decisions.md section 2).
 */
import { join } from 'node:path'
import postgres from 'postgres'

type Types = { bigint: postgres.PostgresType<number> }
export type Sql = postgres.Sql<{ bigint: number }>
export type TransactionSql = postgres.TransactionSql<{ bigint: number }>

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
}

/** Client options shared by every connection we make. */
function clientOptions(options: ConnectOptions): postgres.Options<Types> {
  return {
    max: options.max ?? 10,
    onnotice: () => {},
    connect_timeout: 10,
    // Times are milliseconds since the epoch in bigint columns: well inside a double's exact range.
    types: { bigint: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (s: string) => Number(s) } },
    connection: options.schema ? { search_path: options.schema } : {},
  }
}

/** Connects to `url`. */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  return postgres(url, clientOptions(options))
}

/** Opens the configured database: the server at `databaseUrl`, else the embedded one in `dataDir`. */
export async function openDatabase(config: { databaseUrl: string | null; dataDir: string }, options: ConnectOptions = {}): Promise<Database> {
  if (config.databaseUrl) {
    const sql = connect(config.databaseUrl, options)
    return { sql, kind: 'postgres', close: () => sql.end({ timeout: 5 }) }
  }
  // Loaded only here: PGlite's code alone adds about 40 MB to a process, which a process on a
  // real PostgreSQL server has no use for.
  const { startEmbedded } = await import('./embedded-db.ts')
  const embedded = await startEmbedded(join(config.dataDir, 'pglite'))
  const sql = postgres({
    ...clientOptions({ ...options, max: options.max ?? 4 }),
    path: embedded.socketPath as string,
    username: 'postgres',
    database: 'postgres',
  })
  return {
    sql,
    kind: 'embedded',
    async close() {
      await sql.end({ timeout: 5 })
      await embedded.stop()
    },
  }
}
