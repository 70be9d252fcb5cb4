import { createHash } from 'node:crypto'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import nacl from 'tweetnacl'
import { makeRequest } from '../src/http/request.ts'
import { createSessions, loadSessionSecret, seal, unseal } from '../src/auth/session.ts'
import { hashSecret } from '../src/base/random.ts'
import { parseCookies } from '../src/http/cookie.ts'
import { testDatabase } from './support/db.ts'

const db = await testDatabase()
const key = nacl.randomBytes(32)

function requestWith(setCookie: string) {
  const pair = setCookie.split(';')[0]!
  return makeRequest({ headers: { cookie: pair } })
}

test('unseal() opens what seal() made with the same key', () => {
  assert.equal(unseal(seal('session-id-1', key), key), 'session-id-1')
})

test('unseal() returns null for a tampered cookie, another key, garbage and oversized input', () => {
  const sealed = seal('abc', key)
  // Flip one bit of the decoded bytes, in the nonce, the tag and the ciphertext in turn. (Changing
  // the last base64url character is no test: its low bits can be padding that decoding ignores.)
  const bytes = Buffer.from(sealed, 'base64url')
  for (const at of [0, 30, bytes.length - 1]) {
    const tampered = Buffer.from(bytes)
    tampered[at] = tampered[at]! ^ 1
    assert.equal(unseal(tampered.toString('base64url'), key), null, `bit flipped at byte ${at}`)
  }
  assert.equal(unseal(sealed, nacl.randomBytes(32)), null)
  assert.equal(unseal('', key), null)
  assert.equal(unseal('not base64 !!', key), null)
  assert.equal(unseal('AAAA', key), null)
  assert.equal(unseal('A'.repeat(5000), key), null)
})

test('two seals of one id differ (fresh nonce each time)', () => {
  assert.notEqual(seal('same', key), seal('same', key))
})

test('a saved session loads back from its cookie with user and data', async () => {
  const sessions = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const s = sessions.create()
  assert.equal(s.isNew, true)
  s.userId = 'u1'
  s.data = { tag: 'xyz', loginError: null }
  await sessions.save(s)
  const loaded = await sessions.load(requestWith(sessions.cookie(s)))
  assert.deepEqual(loaded, {
    id: s.id,
    userId: 'u1',
    data: { tag: 'xyz', loginError: null },
    isNew: false,
  })
})

test('the cookie is HttpOnly, SameSite=Lax, Path=/, and Secure only for an https public URL', () => {
  const plain = createSessions({
    sql: db.sql,
    secret: key,
    service: 'tickets',
    secure: false,
    clock: Date.now,
  })
  const secure = createSessions({
    sql: db.sql,
    secret: key,
    service: 'tickets',
    secure: true,
    clock: Date.now,
  })
  const c = plain.cookie(plain.create())
  assert.match(
    c,
    /^tickets_session=[A-Za-z0-9_-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
  )
  assert.match(secure.cookie(secure.create()), /; HttpOnly; Secure; SameSite=Lax$/)
})

test('an expired session, a forged cookie or an unknown id is no session, never an error', async () => {
  let now = 1_000_000
  const sessions = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: () => now,
  })
  const s = sessions.create()
  await sessions.save(s)
  const cookie = sessions.cookie(s)
  assert.notEqual(await sessions.load(requestWith(cookie)), null)
  now += 30 * 24 * 60 * 60 * 1000 + 1
  assert.equal(await sessions.load(requestWith(cookie)), null)
  assert.equal(
    await sessions.load(makeRequest({ headers: { cookie: 'notes_session=forged' } })),
    null,
  )
  assert.equal(
    await sessions.load(
      makeRequest({ headers: { cookie: `notes_session=${seal('no-such-row', key)}` } }),
    ),
    null,
  )
  assert.equal(await sessions.load(makeRequest({})), null)
})

test('a session of one service is not a session of the other', async () => {
  const notes = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const tickets = createSessions({
    sql: db.sql,
    secret: key,
    service: 'tickets',
    secure: false,
    clock: Date.now,
  })
  const s = notes.create()
  await notes.save(s)
  const sealed = notes.cookie(s).split(';')[0]!.split('=')[1]!
  assert.equal(
    await tickets.load(makeRequest({ headers: { cookie: `tickets_session=${sealed}` } })),
    null,
  )
})

test('the session secret is generated once and kept in the database', async () => {
  const first = await loadSessionSecret(db.sql, null)
  const second = await loadSessionSecret(db.sql, null)
  assert.equal(first.length, 32)
  assert.deepEqual(second, first)
  const configured = nacl.randomBytes(32)
  assert.deepEqual(await loadSessionSecret(db.sql, configured), configured)
})

test('parseCookies keeps a cookie named __proto__ as data, in a null-prototype record', () => {
  const c = parseCookies('__proto__=x; constructor=y; a="quoted"; a=second; junk')
  assert.equal(Object.getPrototypeOf(c), null)
  assert.equal(c['__proto__'], 'x')
  assert.equal(c.constructor, 'y')
  assert.equal(c.a, 'quoted')
  assert.equal(Object.keys(c).length, 3)
})

test('a change or a removal made through another Sessions on the same database is seen on the next load', async () => {
  // Two processes on one database: each has its own Sessions.
  const here = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const there = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const s = here.create()
  s.userId = 'first-user'
  await here.save(s)
  const req = requestWith(here.cookie(s))
  assert.equal((await here.load(req))?.userId, 'first-user')
  const theirs = (await there.load(req))!
  theirs.userId = 'second-user'
  await there.save(theirs)
  assert.equal((await here.load(req))?.userId, 'second-user')
  await there.remove(theirs)
  assert.equal(await here.load(req), null)
})

test('deleting the rows of a person ends their sessions on the next load, whoever deletes them', async () => {
  const sessions = createSessions({
    sql: db.sql,
    secret: key,
    service: 'tickets',
    secure: false,
    clock: Date.now,
  })
  const s = sessions.create()
  s.userId = 'disabled-person'
  await sessions.save(s)
  const req = makeRequest({ headers: { cookie: sessions.cookie(s).split(';')[0]! } })
  assert.equal((await sessions.load(req))?.userId, 'disabled-person')
  await db.sql`delete from sessions where user_id = 'disabled-person'`
  assert.equal(await sessions.load(req), null)
})

test('renew() gives a fresh id with the user and data carried over; once saved, the old cookie names nothing', async () => {
  const sessions = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const planted = sessions.create()
  planted.data = { loginError: 'earlier' }
  await sessions.save(planted)
  const oldReq = requestWith(sessions.cookie(planted))
  const loaded = (await sessions.load(oldReq))!
  const renewed = sessions.renew(loaded)
  assert.notEqual(renewed.id, loaded.id)
  assert.equal(renewed.isNew, true)
  assert.deepEqual(renewed.data, { loginError: 'earlier' })
  renewed.userId = 'signed-in'
  await sessions.save(renewed)
  assert.equal(await sessions.load(oldReq), null)
  assert.equal((await sessions.load(requestWith(sessions.cookie(renewed))))?.userId, 'signed-in')
  assert.equal((await db.sql`select 1 from sessions where id = ${hashSecret(loaded.id)}`).length, 0)
})

test('the sessions table holds the hash of a session id, never the id the cookie carries', async () => {
  const sessions = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const s = sessions.create()
  s.userId = 'u-hash'
  await sessions.save(s)
  const rows = await db.sql`select id from sessions where user_id = 'u-hash'`
  assert.deepEqual(
    rows.map((r) => r.id),
    [createHash('sha256').update(s.id).digest('hex')],
  )
  // A cookie sealed around what a database copy holds opens no session.
  assert.equal(
    await sessions.load(
      makeRequest({ headers: { cookie: `notes_session=${seal(rows[0]!.id as string, key)}` } }),
    ),
    null,
  )
})

test('remove() ends a session and clearCookie() tells the browser to forget it', async () => {
  const sessions = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const s = sessions.create()
  s.userId = 'leaving'
  await sessions.save(s)
  const req = requestWith(sessions.cookie(s))
  await sessions.remove((await sessions.load(req))!)
  assert.equal(await sessions.load(req), null)
  assert.equal(sessions.clearCookie(), 'notes_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax')
})

test('changing a loaded session object does not change what the next load answers until it is saved', async () => {
  const sessions = createSessions({
    sql: db.sql,
    secret: key,
    service: 'notes',
    secure: false,
    clock: Date.now,
  })
  const s = sessions.create()
  s.userId = 'u'
  s.data = { tag: 'a' }
  await sessions.save(s)
  const req = requestWith(sessions.cookie(s))
  const loaded = await sessions.load(req)
  loaded!.data.tag = 'changed but not saved'
  assert.equal((await sessions.load(req))?.data.tag, 'a')
})

test('unseal() opens only the canonical spelling: a character added or unused bits set open nothing', () => {
  const sealed = seal('x'.repeat(32), key)
  assert.equal(unseal(sealed, key), 'x'.repeat(32))
  for (const c of ['A', 'AA', 'AAA', 'w']) assert.equal(unseal(sealed + c, key), null, `+${c}`)
  // A value whose length leaves unused bits in its last character: those bits set is another spelling.
  const short = seal('abc', key)
  const last = short.at(-1)!
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const others = [...alphabet].filter(
    (c) =>
      c !== last &&
      Buffer.from(short.slice(0, -1) + c, 'base64url').equals(Buffer.from(short, 'base64url')),
  )
  assert.ok(others.length > 0)
  for (const c of others)
    assert.equal(unseal(short.slice(0, -1) + c, key), null, `last character ${c}`)
})
