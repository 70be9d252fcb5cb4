/**
 * sql/0015_hashed_ids.sql on a database made before it: the sessions and invites it finds are
 * stored under the SHA-256 of their ids afterwards, and the cookies and invite links given out
 * before still work.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '../src/db/client.ts'
import { makeRequest } from '../src/http/request.ts'
import { MIGRATIONS_DIR, migrate } from '../src/db/migrate.ts'
import { createSessions, seal } from '../src/auth/session.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'

const url = process.env.DATABASE_URL!
const schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`
const admin = connect(url, { max: 1 })
await admin.unsafe(`create schema ${schema}`)
const sql = connect(url, { max: 2, schema })
await sql.unsafe(`set search_path to ${schema}`)
after(async () => {
  await sql.end({ timeout: 5 })
  await admin.unsafe(`drop schema ${schema} cascade`)
  await admin.end({ timeout: 5 })
})

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

test('the migration stores existing session and invite ids as their hashes, and what was given out still opens', async () => {
  // The migrations before this one.
  const before = await mkdtemp(join(tmpdir(), 'migrations-'))
  after(() => rm(before, { recursive: true, force: true }))
  for (const file of await readdir(MIGRATIONS_DIR))
    if (file < '0015') await cp(join(MIGRATIONS_DIR, file), join(before, file))
  await migrate(sql, before)

  const now = Date.now()
  // A session id as the services have always made them (24 random bytes in base64url): the
  // cookie is read strictly now (issue #35, point 4), so an id of another shape opens nothing.
  const sessionId = randomBytes(24).toString('base64url')
  await sql`insert into sessions (id, service, user_id, data, created, expires) values (${sessionId}, 'notes', 'u-old', '{}', ${now}, ${now + 86_400_000})`
  await sql`insert into users (id, idp_id, name, created) values ('u-admin', 'idp-admin', 'Admin', ${now}), ('u-new', 'idp-new', 'New', ${now})`
  await sql`insert into projects (id, slug, title, created) values ('p-old-000001', 'old', 'Old', ${now})`
  const inviteId = 'raw-invite-id-in-a-mailed-link'
  await sql`insert into invites (id, project_id, role, uses_left, expires, created_by, created) values (${inviteId}, 'p-old-000001', 'edit', 1, ${now + 86_400_000}, 'u-admin', ${now})`

  await migrate(sql)

  assert.deepEqual(
    (await sql`select id from sessions`).map((r) => r.id),
    [sha256(sessionId)],
  )
  assert.deepEqual(
    (await sql`select id from invites`).map((r) => r.id),
    [sha256(inviteId)],
  )
  // A cookie sealed before the migration still opens its session.
  const secret = new Uint8Array(randomBytes(32))
  const sessions = createSessions({ sql, secret, service: 'notes', secure: false, clock: Date.now })
  const loaded = await sessions.load(
    makeRequest({ headers: { cookie: `notes_session=${seal(sessionId, secret)}` } }),
  )
  assert.equal(loaded?.userId, 'u-old')
  // An invite link sent before the migration still takes its use.
  const store = createTicketStore({ sql, clock: Date.now })
  const used = await store.transact((tx) => tx.invites.takeUse(inviteId))
  assert.deepEqual(used, { projectId: 'p-old-000001', role: 'edit' })
})
