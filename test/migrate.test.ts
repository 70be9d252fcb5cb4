import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testDatabase } from './support/db.ts'
import { migrate, migrationFiles } from '../src/db/migrate.ts'

const db = await testDatabase()

test('migrations are recorded and a second run applies nothing', async () => {
  const rows = await db.sql`select version, name from schema_migrations order by version`
  assert.ok(rows.length >= 1)
  assert.equal(rows[0]!.name, '0001_core.sql')
  assert.deepEqual(await migrate(db.sql), [])
})

test('the schema of this test file holds the tables', async () => {
  const [row] =
    await db.sql`select current_schema() as s, to_regclass('sessions') is not null as has`
  assert.equal(row!.s, db.schema)
  assert.equal(row!.has, true)
})

test('a gap in the numbering stops with a message naming the file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mig-'))
  await writeFile(join(dir, '0001_a.sql'), 'select 1;')
  await writeFile(join(dir, '0003_c.sql'), 'select 1;')
  await assert.rejects(migrationFiles(dir), /expected number 0002 next, found 0003_c\.sql/)
})

test('a failing migration applies nothing of itself', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mig-'))
  for (const [name, text] of [
    ['0001_core.sql', 'select 1;'],
    ['0002_bad.sql', 'create table half_made (id int); select * from no_such_table;'],
  ] as const) {
    await writeFile(join(dir, name), text)
  }
  const sql = db.connect(1)
  await sql`delete from schema_migrations where version > 1`
  await assert.rejects(migrate(sql, dir), /no_such_table/)
  const [row] = await sql`select to_regclass('half_made') is null as gone`
  assert.equal(row!.gone, true)
})

test('events keep no writing-transaction column, which nothing reads since delivery follows seq', async () => {
  const columns = await db.sql`
    select column_name from information_schema.columns
    where table_schema = ${db.schema} and table_name = 'events' order by ordinal_position`
  assert.deepEqual(
    columns.map((c) => c.column_name),
    ['id', 'project_id', 'name', 'args', 'created', 'seq', 'user_id'],
  )
})
