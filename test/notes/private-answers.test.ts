/**
 * Every notes answer that depends on the signed-in person says so to caches: the API answers
 * `Cache-Control: private, no-store`, and the app's page, which keeps its `ETag`, is `private`
 * and varies with the cookie. A shared cache keyed by the address must never hand one person's
 * answer to another.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { notesService } from './support.ts'

const app = await notesService()
const cookie = await app.signIn('alice')
const saved = await app.post(cookie, {
  op: 'save',
  id: 'n1',
  local: 'l1',
  text: 'private text',
  base: 0,
  at: 1,
})
assert.equal(saved.status, 200, saved.text)

const apiReads: [string, string][] = [
  ['GET /api/me', '/api/me'],
  ['GET /api/notes', '/api/notes'],
  ['GET /api/notes?id=', '/api/notes?id=n1'],
  ['GET /api/notes/changes', '/api/notes/changes?since=0'],
  ['GET /api/notes/revisions', '/api/notes/revisions?id=n1'],
]

for (const [name, url] of apiReads) {
  test(`${name} signed in answers Cache-Control: private, no-store`, async () => {
    const got = await app.call('GET', url, { cookie })
    assert.equal(got.status, 200, got.text)
    assert.equal(got.headers['cache-control'], 'private, no-store')
  })
}

test('a save and its refusals answer Cache-Control: private, no-store', async () => {
  const ok = await app.post(cookie, {
    op: 'save',
    id: 'n2',
    local: 'l2',
    text: 'x',
    base: 0,
    at: 2,
  })
  assert.equal(ok.status, 200, ok.text)
  assert.equal(ok.headers['cache-control'], 'private, no-store')
  const refused = await app.post(cookie, { op: 'nothing' })
  assert.equal(refused.status, 400)
  assert.equal(refused.headers['cache-control'], 'private, no-store')
})

test("the app's page, which names the person, is private and varies with the cookie", async () => {
  const got = await app.call('GET', '/', { cookie })
  assert.equal(got.status, 200)
  assert.ok(got.text.includes('alice'))
  assert.equal(got.headers['cache-control'], 'private, no-cache')
  assert.match(got.headers.vary ?? '', /\bCookie\b/)
  const again = await app.call('GET', '/', {
    cookie,
    headers: { 'if-none-match': got.headers.etag },
  })
  assert.equal(again.status, 304)
  assert.match(again.headers.vary ?? '', /\bCookie\b/)
})
