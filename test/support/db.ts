/**
 * Gives a test file a database of its own: a schema on the server of `DATABASE_URL` (the
 * embedded one that test/run.ts starts, or a real PostgreSQL server), migrated and empty.
 *
 * Under test/run.ts the schemas are kept between files: the runner names each of its slots
 * (`TEST_SCHEMA_SLOT`, one per process running at a time), a file's first database is the slot's
 * schema `<slot>_0`, its second `<slot>_1`, and so on, and the next file in that slot finds it
 * migrated and empties it (see {@link reset}) instead of making and migrating another: applying
 * the 42 migrations took 0.6 s and about 0.75 s of CPU, emptying one takes about 0.1 s. A file
 * run alone, outside the runner, gets a fresh schema of its own, dropped when its tests end.
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
  const slot = process.env.TEST_SCHEMA_SLOT
  const number = slot ? take() : null
  const schema =
    number !== null ? `${slot}_${number}` : `test_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = connect(url, { max: 1 })
  const reused = slot !== undefined && (await reset(admin, schema))
  if (!reused) await admin.unsafe(`create schema ${schema}`)
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
  if (!reused) {
    await migrate(sql)
    if (slot) await keepPristine(sql, schema)
  }
  const stops: (() => Promise<void> | void)[] = []
  after(async () => {
    for (const stop of stops.reverse()) await stop()
    await Promise.all(clients.map((c) => c.end({ timeout: 5 })))
    // A slot's schema stays for the next file in the slot; the runner drops them at its end.
    if (!slot) await admin.unsafe(`drop schema ${schema} cascade`)
    await admin.end({ timeout: 5 })
    if (number !== null) taken.delete(number)
  })
  return { sql, url, schema, connect: open, stopFirst: (stop) => void stops.push(stop) }
}

/**
 * The numbers of the slot schemas this process's databases hold now. A database takes the
 * lowest free one and gives it back when its file's tests end, so a file's first database is
 * `<slot>_0` whether it runs in a process of its own or after other files in one process.
 */
const taken = new Set<number>()

function take(): number {
  let number = 0
  while (taken.has(number)) number++
  taken.add(number)
  return number
}

/**
 * What the schema's catalog holds, as counts: tables, indexes and sequences, their columns,
 * functions, triggers, constraints, and the migrations recorded. A file that left an object
 * behind (a table of its own, a constraint it did not drop) or took a migration back changes it.
 */
const fingerprint = (schema: string) => `
  select concat_ws(' ',
    (select count(*) from pg_class where relnamespace = '${schema}'::regnamespace),
    (select count(*) from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.relnamespace = '${schema}'::regnamespace and not a.attisdropped),
    (select count(*) from pg_proc where pronamespace = '${schema}'::regnamespace),
    (select count(*) from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where c.relnamespace = '${schema}'::regnamespace),
    (select count(*) from pg_constraint where connamespace = '${schema}'::regnamespace),
    (select count(*) || '/' || max(version) from ${schema}.schema_migrations)
  ) as print`

/**
 * The tables of `schema` a reset empties: all but the migrations' record and the pristine copy;
 * `written`: only those with a page on disk (a table never written since the last reset has
 * none; a partitioned table's rows are its partitions').
 */
const tablesOf = (schema: string, { written = false } = {}) => `
  select '${schema}.' || quote_ident(c.relname) as name
  from pg_class c
  where c.relnamespace = '${schema}'::regnamespace and c.relkind in ('r', 'p')
    and c.relname not in ('schema_migrations', 'test_pristine')
    ${written ? `and c.relkind = 'r' and pg_relation_size(c.oid) > 0` : ''}`

/**
 * Records, beside a slot schema just migrated, what a reset brings it back to: its catalog's
 * fingerprint, the rows the migrations wrote (a service's state rows, the default settings) and
 * where each sequence stood.
 */
async function keepPristine(sql: Sql, schema: string): Promise<void> {
  await sql.unsafe(`create table ${schema}.test_pristine (print text, rows jsonb, sequences jsonb)`)
  const rows: Record<string, unknown[]> = {}
  for (const { name } of await sql.unsafe(tablesOf(schema))) {
    const [row] = await sql.unsafe(`select coalesce(jsonb_agg(t), '[]') as rows from ${name} t`)
    if ((row!.rows as unknown[]).length > 0) rows[name as string] = row!.rows as unknown[]
  }
  const sequences: Record<string, [number, boolean]> = {}
  for (const { name } of await sql.unsafe(
    `select '${schema}.' || quote_ident(c.relname) as name
     from pg_class c where c.relnamespace = '${schema}'::regnamespace and c.relkind = 'S'`,
  )) {
    const [at] = await sql.unsafe(`select last_value, is_called from ${name}`)
    sequences[name as string] = [Number(at!.last_value), at!.is_called as boolean]
  }
  const [{ print }] = (await sql.unsafe(fingerprint(schema))) as unknown as [{ print: string }]
  await sql.unsafe(`insert into ${schema}.test_pristine values ($1, $2, $3)`, [
    print,
    rows as never,
    sequences as never,
  ])
}

/**
 * Brings a slot schema another file used back to what its migrations left, as a fresh one
 * would be: every table emptied (TRUNCATE, so their files and the planner's size for them start
 * again), the migrations' rows written again, each sequence where it stood, and the planner's
 * statistics of the schema forgotten (a fresh table has none, and a plan a test asserts may
 * depend on that). Answers false, having dropped the schema, when there is none to reuse: none
 * yet, or one whose catalog a file changed.
 */
async function reset(admin: Sql, schema: string): Promise<boolean> {
  const [found] = await admin.unsafe(
    `select to_regclass('${schema}.test_pristine') is not null as has`,
  )
  if (found!.has) {
    const [pristine] = await admin.unsafe(
      `select print, rows, sequences from ${schema}.test_pristine`,
    )
    const [now] = await admin.unsafe(fingerprint(schema))
    if (pristine && pristine.print === now!.print) {
      await admin.begin(async (tx) => {
        // Only the tables written since the last reset: truncating all 59 of them was most of a
        // reset's time. CASCADE takes the empty tables that refer to them as well, as TRUNCATE
        // requires.
        const tables = await tx.unsafe(tablesOf(schema, { written: true }))
        if (tables.length > 0)
          await tx.unsafe(`truncate ${tables.map((t) => t.name as string).join(', ')} cascade`)
        for (const [name, rows] of Object.entries(pristine.rows as Record<string, unknown[]>)) {
          const columns = (
            await tx.unsafe(
              `select quote_ident(attname) as name from pg_attribute where attrelid = '${name}'::regclass
               and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
            )
          ).map((c) => c.name as string)
          const list = columns.join(', ')
          await tx.unsafe(
            `insert into ${name} (${list}) overriding system value
             select ${list} from jsonb_populate_recordset(null::${name}, $1)`,
            [rows as never],
          )
        }
        for (const [name, [value, called]] of Object.entries(
          pristine.sequences as Record<string, [number, boolean]>,
        ))
          await tx.unsafe(`select setval('${name}', ${value}, ${called})`)
        await tx.unsafe(
          `delete from pg_statistic where starelid in
             (select oid from pg_class where relnamespace = '${schema}'::regnamespace)`,
        )
      })
      return true
    }
  }
  await admin.unsafe(`drop schema if exists ${schema} cascade`)
  return false
}
