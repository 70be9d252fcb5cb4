/**
 * Text is checked at the edge (docs/core.md, "Text"): U+0000 and lone surrogates in a body, a
 * query or the identity provider's answer are refused with the field's 400 or the login failure
 * page, never a 500 and never stored as U+FFFD.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const demo = await app.project(alice, 'Demo')
const t = await app.ticket(alice, demo.slug)
const surrogate = (field: string) => ({
  error: `'${field}' must be valid Unicode (it has a lone surrogate)`,
  field,
})

test('a lone surrogate in a comment, a state change or an edit answers 400 naming the field, on both paths, and nothing is stored', async () => {
  const events = (await app.events()).length
  const paths = [`/api/tickets/${t.id}`, `/api/projects/${demo.slug}/tickets/${t.number}`]
  for (const base of paths) {
    expectJson(
      await app.call('POST', `${base}/comments`, {
        token: alice.token,
        body: { text: 'x\ud800y' },
      }),
      400,
      surrogate('text'),
    )
    expectJson(
      await app.call('POST', `${base}/state`, {
        token: alice.token,
        body: { state: 'done', text: 'x\ud800y' },
      }),
      400,
      surrogate('text'),
    )
    expectJson(
      await app.call('POST', `${base}/edit`, { token: alice.token, body: { subject: '\udc00' } }),
      400,
      surrogate('subject'),
    )
    expectJson(
      await app.call('POST', `${base}/edit`, { token: alice.token, body: { summary: 'ok\ud83d' } }),
      400,
      surrogate('summary'),
    )
  }
  const shown = await app.call('GET', `/api/tickets/${t.id}`)
  assert.equal(shown.body.ticket.state, 'open')
  assert.equal(shown.body.events.length, 0)
  assert.equal((await app.events()).length, events)
})

test('a lone surrogate in a subject, a project title or a token label is refused, not stored as U+FFFD', async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: alice.token,
      body: { subject: 'a\ud800' },
    }),
    400,
    surrogate('subject'),
  )
  expectJson(
    await app.call('POST', '/api/projects', { token: alice.token, body: { title: '\udfff' } }),
    400,
    surrogate('title'),
  )
  const before = (await app.call('GET', '/api/tokens', { token: alice.token })).body.tokens.length
  expectJson(
    await app.call('POST', '/api/tokens', { token: alice.token, body: { label: 'cli\ud800' } }),
    400,
    surrogate('label'),
  )
  assert.equal(
    (await app.call('GET', '/api/tokens', { token: alice.token })).body.tokens.length,
    before,
  )
  const listed = await app.call('GET', `/api/projects/${demo.slug}/tickets?state=all`)
  assert.ok(!listed.text.includes('\ufffd') && !listed.text.includes('\\ufffd'))
})

test('a surrogate pair (an emoji) is stored and answered as sent', async () => {
  const made = await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: alice.token,
    body: { text: 'ship it \ud83d\ude80' },
  })
  expectJson(made, 201)
  assert.equal(made.body.event.text, 'ship it 🚀')
  const label = await app.call('POST', '/api/tokens', {
    token: alice.token,
    body: { label: '🔑 key' },
  })
  expectJson(label, 201)
  assert.equal(label.body.label, '🔑 key')
})

test('a field name with U+0000 or a lone surrogate is an unknown field, answered escaped', async () => {
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/comments`, {
      token: alice.token,
      body: { text: 'x', 'a\ud800': 'y' },
    }),
    400,
    { error: "unknown field 'a\ud800'", field: 'a\ud800' },
  )
})

test('U+0000 in ?project answers 400 naming the field on the list and on live events; a bad percent-encoding is refused too', async () => {
  const nul = { error: "'project' cannot contain the character U+0000", field: 'project' }
  expectJson(await app.call('GET', '/api/tickets?project=%00'), 400, nul)
  expectJson(await app.call('GET', '/api/live?project=a%00b'), 400, nul)
  expectJson(await app.call('GET', '/api/tickets?project=%ED%A0%80'), 400, {
    error: "'project' must be percent-encoded UTF-8",
    field: 'project',
  })
  expectJson(await app.call('GET', `/api/tickets?project=${demo.slug}&x=%C0%AF`), 400, {
    error: "'x' must be percent-encoded UTF-8",
    field: 'x',
  })
})

test("U+0000 or a lone surrogate in the identity provider's answer is the login failure page, not a 500, and stores no user", async () => {
  const identities = [
    { id: 'nul\u0000', name: 'x' },
    { id: 'ok-1', name: 'a\ud800' },
    { id: '\udc00', name: 'x' },
    { id: 'ok-2', name: 'x', email: 'x\u0000@y' },
  ]
  for (const identity of identities) {
    const got = await app.call('GET', `/login/callback?idp_code=${app.idp.code(identity)}`)
    assert.equal(got.status, 400, got.text)
    assert.ok(
      got.text.includes('<h1>Login failed</h1>') &&
        got.text.includes('<p>idp sent no usable identity</p>'),
      got.text,
    )
  }
  app.idp.fail('bad \u0000 reason')
  const failed = await app.call('GET', '/login/callback?idp_code=x')
  assert.equal(failed.status, 400)
  assert.ok(failed.text.includes('<p>idp answered 400</p>'), failed.text)
  const [row] = await app.sql`select count(*)::int as n from users where idp_id like 'ok-%'`
  assert.equal(row!.n, 0)
})
