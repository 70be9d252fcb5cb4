/**
 * Gives a test file a database of its own: a fresh schema on the server of `DATABASE_URL`
 * (the embedded one that test/run.ts starts, or a real PostgreSQL server), migrated, and
 * dropped when the file's tests end.
 */
import { after } from 'node:test'
import { randomBytes } from 'node:crypto'
import { connect, type Sql } from '../../src/db/client.ts'
import { migrate } from '../../src/db/migrate.ts'

export interface TestDatabase {
  sql: Sql
  url: string
  schema: string
  /** Another client on the same schema (for a second server process, say). */
  connect(max?: number): Sql
  /**
   * Has `stop` run when the file's tests end, before the clients end and the schema is dropped:
   * what uses the database (an application, its workers) stops while it is still there. The
   * file's own `after` hooks run only after this one (registered earlier), too late for that: a
   * worker still running then reconnects the ended pool and holds the process for the pool's
   * idle timeout. Stops run last given first.
   */
  stopFirst(stop: () => Promise<void> | void): void
}

/** A migrated schema for this test file; dropped in an `after` hook. */
export async function testDatabase(options: { max?: number } = {}): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL
  if (!url)
    throw new Error('DATABASE_URL is unset: run the tests with `npm test`, which provides one')
  const schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = connect(url, { max: 1 })
  await admin.unsafe(`create schema ${schema}`)
  const clients: Sql[] = []
  // On the embedded database, as the application itself connects to it (src/db/client.ts): no
  // answer deadline, and a connection attempt may wait. Its one session runs one statement at a
  // time for every connection (a new connection's start-up included), so on a busy machine a
  // long one (a vacuum) may keep the others waiting past the deadlines; the socket cannot go
  // silent.
  const embedded = process.env.TEST_DATABASE_KIND === 'embedded'
  const open = (max = options.max ?? 5) => {
    const sql = connect(url, {
      max,
      schema,
      ...(embedded ? { answerTimeout: null, connectTimeout: 60 } : {}),
    })
    clients.push(sql)
    return sql
  }
  const sql = open()
  // The embedded database is one session shared by every connection, and it ignores the
  // search_path a connection asks for at start-up; a session-wide SET reaches all of them.
  // test/run.ts gives each test file running at a time an embedded database of its own, so no
  // two files share one. On a real server this is harmless.
  await sql.unsafe(`set search_path to ${schema}`)
  await migrate(sql)
  const stops: (() => Promise<void> | void)[] = []
  after(async () => {
    for (const stop of stops.reverse()) await stop()
    await Promise.all(clients.map((c) => c.end({ timeout: 5 })))
    await admin.unsafe(`drop schema ${schema} cascade`)
    await admin.end({ timeout: 5 })
  })
  return { sql, url, schema, connect: open, stopFirst: (stop) => void stops.push(stop) }
}
