/**
 * Text is checked at the edge (docs/core.md, "Text"): U+0000 and lone surrogates in the query
 * or the identity provider's answer are refused with the field's 400 or the login failure
 * answer, never a 500.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { notesService } from './support.ts'

const app = await notesService()
const cookie = await app.signIn('alice')

test("U+0000 in GET /api/notes?id= answers 400 naming 'id'", async () => {
  for (const url of ['/api/notes?id=a%00b', '/api/notes?id=%00']) {
    const got = await app.call('GET', url, { cookie })
    assert.equal(got.status, 400, got.text)
    assert.deepEqual(got.json, { error: "'id' must not contain the character U+0000", field: 'id' })
  }
})

test('a percent-encoded surrogate or other bytes that are not UTF-8 in ?id= answer 400, not a lookup of U+FFFD', async () => {
  for (const url of ['/api/notes?id=%ED%A0%80', '/api/notes?id=%FF', '/api/notes?id=%C0%AF']) {
    const got = await app.call('GET', url, { cookie })
    assert.equal(got.status, 400, got.text)
    assert.deepEqual(got.json, { error: "'id' must be percent-encoded UTF-8", field: 'id' })
  }
  assert.equal(
    (await app.call('GET', '/api/notes?id=%ZZ', { cookie })).status,
    404,
    'a % without hex digits is the text itself',
  )
})

test('the sign-in check still comes first for a bad ?id=', async () => {
  assert.equal((await app.call('GET', '/api/notes?id=%00')).status, 401)
})

test('a note whose id is not ASCII is found by its percent-encoded UTF-8 id', async () => {
  const saved = await app.post(cookie, {
    op: 'save',
    id: 'café 🚀',
    local: 'l',
    text: 't',
    base: 0,
    at: 1,
  })
  assert.equal(saved.status, 200, saved.text)
  const got = await app.call('GET', `/api/notes?id=${encodeURIComponent('café 🚀')}`, { cookie })
  assert.equal(got.status, 200)
  assert.equal(got.json.id, 'café 🚀')
})

test("U+0000 or a lone surrogate in the identity provider's answer is the login failure answer, not a 500", async () => {
  const identities = [
    { id: 'a\u0000', name: 'a' },
    { id: 'b', name: 'b\ud800' },
    { id: '\udfff', name: 'c' },
    { id: 'd', name: 'd', email: 'd\u0000@x' },
  ]
  for (const identity of identities) {
    const got = await app.call('GET', `/login/callback?idp_code=${app.idp.code(identity)}`)
    assert.equal(got.status, 302, got.text)
    assert.equal(got.text, 'login failed: idp sent no usable identity')
    assert.equal(got.headers.location, '/login/failed')
  }
  app.idp.fail('no \ud800 such code')
  const got = await app.call('GET', '/login/callback?idp_code=x')
  assert.equal(got.text, 'login failed: idp answered 400')
  const page = await app.call('GET', '/login/failed', {
    cookie: got.headers['set-cookie']!.split(';')[0],
  })
  assert.ok(page.text.includes('idp answered 400'), page.text)
})
