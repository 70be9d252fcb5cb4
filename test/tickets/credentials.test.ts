import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const demo = await app.project(alice, 'Demo')

test('a token is tt_ and 32 random bytes in base64url, shown once and stored only as its SHA-256', async () => {
  const made = await app.call('POST', '/api/tokens', {
    token: alice.token,
    body: { label: 'scheduler' },
  })
  expectJson(made, 201)
  assert.match(made.body.token, /^tt_[A-Za-z0-9_-]{43}$/)
  assert.deepEqual(Object.keys(made.body).sort(), ['created', 'id', 'label', 'token'])
  const [row] = await app.sql`select hash from tokens where id = ${made.body.id}`
  assert.equal(row!.hash, createHash('sha256').update(made.body.token).digest('hex'))
  const stored = JSON.stringify(await app.sql`select * from tokens`)
  assert.ok(!stored.includes(made.body.token), 'the secret is not stored')
  const listed = await app.call('GET', '/api/tokens', { token: alice.token })
  expectJson(listed, 200)
  assert.ok(!listed.text.includes(made.body.token), 'the list never shows a secret')
  assert.deepEqual(Object.keys(listed.body.tokens[0]).sort(), [
    'created',
    'id',
    'label',
    'lastUsed',
  ])
  assert.ok(listed.body.tokens.some((t: { label: string }) => t.label === 'scheduler'))
})

test('a revoked token is refused on the very next request', async () => {
  const made = await app.call('POST', '/api/tokens', {
    token: alice.token,
    body: { label: 'short-lived' },
  })
  expectJson(await app.call('GET', '/api/inbox', { token: made.body.token }), 200)
  expectJson(
    await app.call('POST', '/api/tokens/revoke', {
      token: alice.token,
      body: { id: made.body.id },
    }),
    200,
    { ok: true },
  )
  expectJson(await app.call('GET', '/api/inbox', { token: made.body.token }), 401, {
    error: 'bad or revoked token',
  })
})

test("revoking someone else's token or an unknown id answers 404 no such token", async () => {
  const bob = await app.login('bob')
  const [row] = await app.sql`select id from tokens where user_id = ${alice.id} limit 1`
  expectJson(
    await app.call('POST', '/api/tokens/revoke', { token: bob.token, body: { id: row!.id } }),
    404,
    { error: 'no such token', field: 'id' },
  )
  expectJson(await app.call('GET', '/api/inbox', { token: alice.token }), 200)
})

test('a write without a credential answers 401 a token is needed', async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, { body: { subject: 'x' } }),
    401,
    { error: 'a token is needed' },
  )
})

test('a write with an unknown token or a malformed Authorization header answers 401 bad or revoked token', async () => {
  for (const authorization of [
    'Bearer tt_unknown',
    'Bearer nonsense',
    'Basic YWxpY2U6eA==',
    'Bearer',
  ]) {
    expectJson(
      await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
        headers: { authorization },
        body: { subject: 'x' },
      }),
      401,
      { error: 'bad or revoked token' },
    )
  }
})

test('a project key on a Group B route answers 401 a user token is needed', async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/members`, {
      token: 'tk_' + 'a'.repeat(43),
      body: { user: 'x', role: 'use' },
    }),
    401,
    { error: 'a user token is needed' },
  )
  expectJson(await app.call('GET', '/api/inbox', { token: 'tk_x' }), 401, {
    error: 'a user token is needed',
  })
})

test('an unknown project key on a Group A route answers 401 bad or revoked token', async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: 'tk_' + 'a'.repeat(43),
      body: { subject: 'x' },
    }),
    401,
    { error: 'bad or revoked token' },
  )
})

test('the credential is checked before the body is read', async () => {
  expectJson(await app.call('POST', `/api/projects/${demo.slug}/tickets`, { raw: '{oops' }), 401, {
    error: 'a token is needed',
  })
})

test('the session cookie with the right x-tag writes as the same user', async () => {
  const made = await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
    headers: { cookie: alice.cookie, 'x-tag': alice.tag },
    body: { subject: 'from the page' },
  })
  expectJson(made, 201)
  assert.equal(made.body.ticket.author.id, alice.id)
})

test('the session cookie without x-tag or with a wrong one answers 403 x-tag header missing or wrong', async () => {
  for (const headers of [
    { cookie: alice.cookie },
    { cookie: alice.cookie, 'x-tag': 'wrong' },
  ] as Record<string, string>[]) {
    expectJson(
      await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
        headers,
        body: { subject: 'x' },
      }),
      403,
      { error: 'x-tag header missing or wrong' },
    )
  }
})

test('a cookie write from another site answers 403 cross-site request refused', async () => {
  const base = { cookie: alice.cookie, 'x-tag': alice.tag }
  for (const extra of [
    { 'sec-fetch-site': 'cross-site' },
    { origin: 'https://evil.example' },
  ] as Record<string, string>[]) {
    expectJson(
      await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
        headers: { ...base, ...extra },
        body: { subject: 'x' },
      }),
      403,
      { error: 'cross-site request refused' },
    )
  }
})

test('a cookie write whose body is not sent as application/json answers 415', async () => {
  const answer = await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
    headers: { cookie: alice.cookie, 'x-tag': alice.tag, 'content-type': 'text/plain' },
    raw: '{"subject":"x"}',
  })
  expectJson(answer, 415, { error: 'send the body as application/json' })
})

test('a token write may send its JSON body without a content type (curl -d)', async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: alice.token,
      raw: '{"subject":"from curl"}',
    }),
    201,
  )
})

test('a cookie of a session that is not logged in answers 401 a token is needed', async () => {
  const session = app.sessions.create()
  session.data = { tag: 'abc' }
  await app.sessions.save(session)
  const cookie = app.sessions.cookie(session).split(';')[0]!
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      headers: { cookie, 'x-tag': 'abc' },
      body: { subject: 'x' },
    }),
    401,
    { error: 'a token is needed' },
  )
})

test('GET /api/me answers the user and tag of the session, or null without one', async () => {
  expectJson(await app.call('GET', '/api/me', { headers: { cookie: alice.cookie } }), 200, {
    user: { id: alice.id, name: 'alice' },
    tag: alice.tag,
  })
  expectJson(await app.call('GET', '/api/me'), 200, { user: null, tag: null })
  expectJson(
    await app.call('GET', '/api/me', { headers: { cookie: 'tickets_session=forged' } }),
    200,
    { user: null, tag: null },
  )
})

test('token routes need a signed-in session with x-tag or a user token', async () => {
  expectJson(await app.call('GET', '/api/tokens'), 401, { error: 'a token is needed' })
  expectJson(await app.call('GET', '/api/tokens', { headers: { cookie: alice.cookie } }), 403, {
    error: 'x-tag header missing or wrong',
  })
  expectJson(
    await app.call('GET', '/api/tokens', { headers: { cookie: alice.cookie, 'x-tag': alice.tag } }),
    200,
  )
  expectJson(await app.call('POST', '/api/tokens', { token: 'tk_x', body: { label: 'x' } }), 401, {
    error: 'a user token is needed',
  })
  expectJson(await app.call('POST', '/api/tokens', { token: alice.token, body: {} }), 400, {
    error: "'label' is required",
    field: 'label',
  })
  expectJson(await app.call('DELETE', '/api/tokens', { token: alice.token }), 405, {
    error: 'GET or POST',
  })
  expectJson(await app.call('GET', '/api/tokens/revoke', { token: alice.token }), 405, {
    error: 'POST only',
  })
})

test('a token records when it was last used', async () => {
  const made = await app.call('POST', '/api/tokens', {
    token: alice.token,
    body: { label: 'used' },
  })
  await app.call('GET', '/api/inbox', { token: made.body.token })
  const [row] = await app.sql`select last_used from tokens where id = ${made.body.id}`
  assert.equal(row!.last_used, app.clock.now())
})
