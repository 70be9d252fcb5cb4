import { test } from 'node:test'
import assert from 'node:assert/strict'
import nacl from 'tweetnacl'
import { makeRequest } from '../src/request.ts'
import { createSessions, loadSessionSecret, seal, unseal } from '../src/session.ts'
import { parseCookies } from '../src/cookie.ts'
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
  const sessions = createSessions({ sql: db.sql, secret: key, service: 'notes', secure: false, clock: Date.now })
  const s = sessions.create()
  assert.equal(s.isNew, true)
  s.userId = 'u1'
  s.data = { tag: 'xyz', loginError: null }
  await sessions.save(s)
  const loaded = await sessions.load(requestWith(sessions.cookie(s)))
  assert.deepEqual(loaded, { id: s.id, userId: 'u1', data: { tag: 'xyz', loginError: null }, isNew: false })
})

test('the cookie is HttpOnly, SameSite=Lax, Path=/, and Secure only for an https public URL', () => {
  const plain = createSessions({ sql: db.sql, secret: key, service: 'tickets', secure: false, clock: Date.now })
  const secure = createSessions({ sql: db.sql, secret: key, service: 'tickets', secure: true, clock: Date.now })
  const c = plain.cookie(plain.create())
  assert.match(c, /^tickets_session=[A-Za-z0-9_-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/)
  assert.match(secure.cookie(secure.create()), /; HttpOnly; Secure; SameSite=Lax$/)
})

test('an expired session, a forged cookie or an unknown id is no session, never an error', async () => {
  let now = 1_000_000
  const sessions = createSessions({ sql: db.sql, secret: key, service: 'notes', secure: false, clock: () => now })
  const s = sessions.create()
  await sessions.save(s)
  const cookie = sessions.cookie(s)
  assert.notEqual(await sessions.load(requestWith(cookie)), null)
  now += 30 * 24 * 60 * 60 * 1000 + 1
  assert.equal(await sessions.load(requestWith(cookie)), null)
  assert.equal(await sessions.load(makeRequest({ headers: { cookie: 'notes_session=forged' } })), null)
  assert.equal(await sessions.load(makeRequest({ headers: { cookie: `notes_session=${seal('no-such-row', key)}` } })), null)
  assert.equal(await sessions.load(makeRequest({})), null)
})

test("a session of one service is not a session of the other", async () => {
  const notes = createSessions({ sql: db.sql, secret: key, service: 'notes', secure: false, clock: Date.now })
  const tickets = createSessions({ sql: db.sql, secret: key, service: 'tickets', secure: false, clock: Date.now })
  const s = notes.create()
  await notes.save(s)
  const sealed = notes.cookie(s).split(';')[0]!.split('=')[1]!
  assert.equal(await tickets.load(makeRequest({ headers: { cookie: `tickets_session=${sealed}` } })), null)
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

test('a signed-in session is reused from memory for a few seconds, then read again', async () => {
  let now = 5_000_000
  const sessions = createSessions({ sql: db.sql, secret: key, service: 'notes', secure: false, clock: () => now, cacheMs: 5_000 })
  const s = sessions.create()
  s.userId = 'cached-user'
  await sessions.save(s)
  const req = requestWith(sessions.cookie(s))
  // Another process signs the same session in as someone else.
  await db.sql`update sessions set user_id = 'other-user' where id = ${s.id}`
  assert.equal((await sessions.load(req))?.userId, 'cached-user')
  now += 5_001
  assert.equal((await sessions.load(req))?.userId, 'other-user')
})

test('a session without a user is never served from memory, so a sign-in elsewhere is seen at once', async () => {
  const sessions = createSessions({ sql: db.sql, secret: key, service: 'notes', secure: false, clock: Date.now })
  const s = sessions.create()
  await sessions.save(s)
  const req = requestWith(sessions.cookie(s))
  assert.equal((await sessions.load(req))?.userId, null)
  await db.sql`update sessions set user_id = 'signed-in-elsewhere' where id = ${s.id}`
  assert.equal((await sessions.load(req))?.userId, 'signed-in-elsewhere')
})

test('changing a loaded session object does not change what the next load answers until it is saved', async () => {
  const sessions = createSessions({ sql: db.sql, secret: key, service: 'notes', secure: false, clock: Date.now })
  const s = sessions.create()
  s.userId = 'u'
  s.data = { tag: 'a' }
  await sessions.save(s)
  const req = requestWith(sessions.cookie(s))
  const loaded = await sessions.load(req)
  loaded!.data.tag = 'changed but not saved'
  assert.equal((await sessions.load(req))?.data.tag, 'a')
})
