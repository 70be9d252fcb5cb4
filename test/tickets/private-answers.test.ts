/**
 * Every tickets answer that depends on the signed-in person says so to caches: JSON answers
 * `Cache-Control: private, no-store`; answers that keep an `ETag` (the pages, a list that says
 * "me") are `private` and vary with the credential. A shared cache keyed by the address must
 * never hand one person's answer to another.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const demo = await app.project(alice, 'Demo')
const ticket = await app.ticket(alice, demo.slug, { subject: 'Mine', assignee: alice.id })
const session = { cookie: alice.cookie, 'x-tag': alice.tag }

for (const [name, url] of [
  ['GET /api/me', '/api/me'],
  ['GET /api/tokens', '/api/tokens'],
  ['GET /api/inbox', '/api/inbox'],
] as const) {
  test(`${name} answers Cache-Control: private, no-store, by session and by token`, async () => {
    const bySession = await app.call('GET', url, { headers: session })
    assert.equal(bySession.status, 200, bySession.text)
    assert.equal(bySession.headers['cache-control'], 'private, no-store')
    if (url === '/api/me') return
    const byToken = await app.call('GET', url, { token: alice.token })
    assert.equal(byToken.status, 200, byToken.text)
    assert.equal(byToken.headers['cache-control'], 'private, no-store')
  })
}

test('a new token, shown once, is answered with Cache-Control: private, no-store', async () => {
  const made = await app.call('POST', '/api/tokens', {
    headers: session,
    body: { label: 'laptop' },
  })
  assert.equal(made.status, 201, made.text)
  assert.equal(made.headers['cache-control'], 'private, no-store')
})

test('a list that says "me" is private and varies with the credential, in JSON and in Markdown, 304 included', async () => {
  for (const accept of ['application/json', 'text/markdown']) {
    const got = await app.call('GET', '/api/tickets?q=assignee:me', {
      token: alice.token,
      headers: { accept },
    })
    assert.equal(got.status, 200, got.text)
    assert.ok(got.text.includes('Mine'), accept)
    assert.equal(got.headers['cache-control'], 'private, no-cache', accept)
    assert.equal(got.headers.vary, 'Accept, Authorization, Cookie', accept)
    const again = await app.call('GET', '/api/tickets?q=assignee:me', {
      token: alice.token,
      headers: { accept, 'if-none-match': String(got.headers.etag) },
    })
    assert.equal(again.status, 304, accept)
    assert.equal(again.headers.vary, 'Accept, Authorization, Cookie', accept)
  }
  const anonymous = await app.call('GET', '/api/tickets?q=assignee:me')
  assert.equal(anonymous.status, 400)
  assert.equal(anonymous.headers.vary, 'Accept, Authorization, Cookie')
})

for (const path of [
  '/',
  '/inbox',
  '/settings',
  '/tickets?q=login',
  `/${demo.slug}`,
  `/${demo.slug}/${ticket.number}`,
  `/${demo.slug}/settings`,
  '/no-such-project',
]) {
  test(`the page ${path} names the person, is private and varies with the cookie`, async () => {
    const got = await app.call('GET', path, { headers: { cookie: alice.cookie } })
    assert.ok(got.status === 200 || got.status === 404, `${got.status}`)
    assert.ok(got.text.includes('alice'), 'the signed-in name is on the page')
    assert.equal(got.headers['cache-control'], 'private, no-cache')
    assert.equal(got.headers.vary, 'Cookie')
  })
}
