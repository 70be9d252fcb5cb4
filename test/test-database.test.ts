/**
 * The test files' databases (test/support/db.ts): a slot schema the last file wrote in comes
 * back to the next one as its migrations left it.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { connect } from '../src/db/client.ts'
import { testDatabase, type TestDatabase } from './support/db.ts'

/** The slot this file's databases are named from, restored for the files after it. */
const slot = process.env.TEST_SCHEMA_SLOT
const own = `test_reset_${process.pid}`

/** What a fresh schema holds where this test writes: counts, the settings, the next event id. */
async function state(db: TestDatabase) {
  const [counts] = await db.sql`
    select (select count(*)::int from users) as users, (select count(*)::int from projects) as projects,
      (select count(*)::int from members) as members, (select count(*)::int from tokens) as tokens`
  const settings = await db.sql`select key, value from settings order by key`
  return { counts, settings: settings.map((r) => `${r.key}=${r.value}`) }
}

test('a slot schema the last file wrote in is handed to the next as its migrations left it: rows gone, default rows back, sequences where they stood', async (t) => {
  // A slot of this test's own, so that the first database here is made and migrated, not one
  // the file before this one in the process left.
  process.env.TEST_SCHEMA_SLOT = own
  t.after(async () => {
    if (slot === undefined) delete process.env.TEST_SCHEMA_SLOT
    else process.env.TEST_SCHEMA_SLOT = slot
    const admin = connect(process.env.DATABASE_URL!, { max: 1 })
    await admin.unsafe(`drop schema if exists ${own}_0 cascade`)
    await admin.end()
  })

  let fresh: Awaited<ReturnType<typeof state>> | undefined
  let firstEvent = 0
  let schema = ''
  await t.test('the first file writes', async () => {
    const db = await testDatabase()
    schema = db.schema
    fresh = await state(db)
    const [event] = await db.sql`
      insert into events (name, args, created) values ('a', '{}', 1) returning id`
    firstEvent = Number(event!.id)
    await db.sql`insert into users (id, idp_id, name, created) values ('u1', 'i1', 'Ada', 1)`
    await db.sql`insert into projects (id, slug, title, created) values ('p1', 'web', 'Web', 1)`
    await db.sql`insert into members (project_id, user_id, role) values ('p1', 'u1', 'admin')`
    await db.sql`update settings set value = 'changed'`
    await db.sql`insert into settings (key, value) values ('test-only', 'x')`
  })
  await t.test('the next file finds none of it', async () => {
    const db = await testDatabase()
    assert.equal(db.schema, schema, 'the same schema, emptied rather than made again')
    assert.deepEqual(await state(db), fresh)
    const [event] = await db.sql`
      insert into events (name, args, created) values ('b', '{}', 1) returning id`
    assert.equal(Number(event!.id), firstEvent)
  })
})
