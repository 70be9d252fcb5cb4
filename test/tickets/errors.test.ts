/**
 * The error answers of docs/tickets-api.md ("Conventions": the Bodies table, the 401 answers and
 * Other refusals; 4.10 for the login pages; 4.11 for old addresses), one test per kind, named
 * after it. (The connect-code refusal belongs to 4.9 and is tested in
 * test/tickets/connect.test.ts.)
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp, type Answer } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const demo = await app.project(alice, 'Demo')
await app.member(alice, demo.slug, bob, 'use')
const t = await app.ticket(alice, demo.slug)
const create = `/api/projects/${demo.slug}/tickets`

test('400 invalid JSON, unknown field, missing or empty required field, non-string value: { error, field }', async () => {
  expectJson(await app.call('POST', create, { token: alice.token, raw: '{"subject":}' }), 400, {
    error: 'invalid JSON at character 11',
    field: 'body',
  })
  expectJson(
    await app.call('POST', create, { token: alice.token, body: { subject: 'x', colour: 'red' } }),
    400,
    { error: "unknown field 'colour'", field: 'colour' },
  )
  expectJson(await app.call('POST', create, { token: alice.token, body: {} }), 400, {
    error: "'subject' is required",
    field: 'subject',
  })
  expectJson(await app.call('POST', create, { token: alice.token, body: { subject: '' } }), 400, {
    error: "'subject' is required",
    field: 'subject',
  })
  expectJson(await app.call('POST', create, { token: alice.token, raw: '' }), 400, {
    error: "'subject' is required",
    field: 'subject',
  })
  expectJson(await app.call('POST', create, { token: alice.token, body: { subject: 1 } }), 400, {
    error: "'subject' must be a string",
    field: 'subject',
  })
})

test('400 author in a body: the error names the field', async () => {
  expectJson(
    await app.call('POST', create, { token: alice.token, body: { subject: 'x', author: 'bob' } }),
    400,
    { error: "'author' is not accepted: the author is the token's user", field: 'author' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/comments`, {
      token: alice.token,
      body: { text: 'x', author: 'bob' },
    }),
    400,
    { error: "'author' is not accepted: the author is the token's user", field: 'author' },
  )
})

test("400 unresolved user or assignee: { error, field: 'user' } or { error, field: 'assignee' }", async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/members`, {
      token: alice.token,
      body: { user: 'zed', role: 'use' },
    }),
    400,
    { error: "no user 'zed' has logged in here", field: 'user' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/assign`, {
      token: alice.token,
      body: { assignee: 'zed' },
    }),
    400,
    { error: "'zed' is not a member of this project", field: 'assignee' },
  )
})

test("400 uses outside 1 to 1000: field 'uses'", async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/invites`, {
      token: alice.token,
      body: { role: 'use', uses: '1001' },
    }),
    400,
    { error: "'uses' must be a whole number from 1 to 1000", field: 'uses' },
  )
})

test("400 days outside 1 to 90: field 'days'", async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/invites`, {
      token: alice.token,
      body: { role: 'use', days: '91' },
    }),
    400,
    { error: "'days' must be a whole number from 1 to 90", field: 'days' },
  )
})

test('400 login page failures (no code, exchange error, invite error): HTML page with the text', async () => {
  const noCode = await app.call('GET', '/login/callback')
  const exchange = await app.call('GET', '/login/callback?idp_code=bad')
  const invite = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'x', name: 'x' })}&invite=nope`,
  )
  for (const [answer, title, text, code] of [
    [noCode, 'Login failed', 'idp sent no login code', 'login_failed'],
    [exchange, 'Login failed', 'unknown login code', 'login_failed'],
    [invite, 'Invite failed', 'no such invite', 'no_such_invite'],
  ] as const) {
    assert.equal(answer.status, 400)
    assert.equal(answer.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(answer.headers['x-error-code'], code)
    assert.ok(
      answer.text.includes(`<h1>${title}</h1>`) && answer.text.includes(`<p>${text}</p>`),
      answer.text,
    )
  }
})

test('401 missing, bad or revoked token on a write', async () => {
  expectJson(await app.call('POST', create, { body: { subject: 'x' } }), 401, {
    error: 'a token is needed',
  })
  expectJson(await app.call('POST', create, { token: 'tt_bad', body: { subject: 'x' } }), 401, {
    error: 'bad or revoked token',
  })
  const made = await app.call('POST', '/api/tokens', { token: alice.token, body: { label: 'x' } })
  await app.call('POST', '/api/tokens/revoke', { token: alice.token, body: { id: made.body.id } })
  expectJson(
    await app.call('POST', create, { token: made.body.token, body: { subject: 'x' } }),
    401,
    { error: 'bad or revoked token' },
  )
})

test('403 missing role: { error, field }, and { error } on edit and relations', async () => {
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/assign`, {
      token: bob.token,
      body: { assignee: '' },
    }),
    403,
    { error: 'this needs role edit or admin', field: 'project' },
  )
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/invites`, {
      token: bob.token,
      body: { role: 'use' },
    }),
    403,
    { error: 'this needs role admin', field: 'project' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/edit`, {
      token: bob.token,
      body: { subject: 'x' },
    }),
    403,
    { error: 'this needs role edit or admin' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/parent`, {
      token: bob.token,
      body: { parent: '' },
    }),
    403,
    { error: 'this needs role edit or admin' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/blocked-by`, {
      token: bob.token,
      body: { add: t.id },
    }),
    403,
    { error: 'this needs role edit or admin' },
  )
})

test('404 unknown ticket or project: no such ticket, no such project', async () => {
  expectJson(await app.call('GET', '/api/tickets/424242'), 404, { error: 'no such ticket' })
  expectJson(
    await app.call('POST', '/api/tickets/424242/comments', {
      token: alice.token,
      body: { text: 'x' },
    }),
    404,
    { error: 'no such ticket' },
  )
  expectJson(await app.call('GET', '/api/projects/ghost'), 404, { error: 'no such project' })
  expectJson(
    await app.call('POST', '/api/projects/ghost/tickets', {
      token: alice.token,
      body: { subject: 'x' },
    }),
    404,
    { error: 'no such project' },
  )
})

test('405 wrong method: GET only, POST only, GET or POST', async () => {
  expectJson(await app.call('POST', `/api/tickets/${t.id}`), 405, { error: 'GET only' })
  expectJson(await app.call('GET', `/api/tickets/${t.id}/comments`), 405, { error: 'POST only' })
  expectJson(await app.call('PATCH', '/api/tickets'), 405, { error: 'GET or POST' })
})

test('500 user could not be stored at login: HTML page', async () => {
  await app.sql`alter table users add constraint refuse_all check (name <> 'Refused')`
  try {
    const got = await app.call(
      'GET',
      `/login/callback?idp_code=${app.idp.code({ id: 'r', name: 'Refused' })}`,
    )
    assert.equal(got.status, 500)
    assert.equal(got.headers['content-type'], 'text/html; charset=utf-8')
    assert.ok(
      got.text.includes('<h1>Login failed</h1>') &&
        got.text.includes('<p>could not store the user</p>'),
    )
  } finally {
    await app.sql`alter table users drop constraint refuse_all`
  }
})

test('301 old page address: redirect', async () => {
  const got = await app.call('GET', `/tickets/${t.id}`)
  assert.equal(got.status, 301)
  assert.equal(got.headers.location, `/${demo.slug}/${t.number}`)
})

test('never a 500 for bad input: U+0000 in a body, a path or a query answers 400 or 404', async () => {
  expectJson(
    await app.call('POST', create, { token: alice.token, body: { subject: 'a\u0000b' } }),
    400,
    { error: "'subject' cannot contain the character U+0000", field: 'subject' },
  )
  expectJson(await app.call('GET', '/api/projects/a%00b'), 404, { error: 'no such project' })
  expectJson(await app.call('GET', '/api/projects/a%00b/tickets/1'), 404, {
    error: 'no such ticket',
  })
  expectJson(await app.call('GET', '/api/tickets?project=a%00b'), 400, {
    error: "'project' cannot contain the character U+0000",
    field: 'project',
  })
  const invite = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'nul', name: 'nul' })}&invite=a%00b`,
  )
  assert.equal(invite.status, 400)
  assert.equal((await app.call('GET', '/projects/a%00b')).status, 404)
  assert.equal((await app.call('GET', '/a%00b/1')).status, 404)
})

test('every refusal carries its stable code in x-error-code, and its body keeps the interface shape', async () => {
  const cases: [Promise<Answer>, number, string, unknown][] = [
    [
      app.call('POST', create, { token: alice.token, raw: '{"subject":}' }),
      400,
      'bad_json',
      { error: 'invalid JSON at character 11', field: 'body' },
    ],
    [
      app.call('POST', create, { token: alice.token, body: { subject: 'x', colour: 'red' } }),
      400,
      'unknown_field',
      { error: "unknown field 'colour'", field: 'colour' },
    ],
    [
      app.call('POST', create, { token: alice.token, body: {} }),
      400,
      'field_required',
      { error: "'subject' is required", field: 'subject' },
    ],
    [
      app.call('POST', create, { token: alice.token, body: { subject: 'x'.repeat(501) } }),
      400,
      'too_long',
      { error: "'subject' is at most 500 characters", field: 'subject' },
    ],
    [
      app.call('POST', create, { body: { subject: 'x' } }),
      401,
      'token_needed',
      { error: 'a token is needed' },
    ],
    [
      app.call('POST', create, { token: 'tt_nothing', body: { subject: 'x' } }),
      401,
      'bad_token',
      { error: 'bad or revoked token' },
    ],
    [
      app.call('POST', `/api/tickets/${t.id}/edit`, { token: bob.token, body: { subject: 'y' } }),
      403,
      'forbidden',
      { error: 'this needs role edit or admin' },
    ],
    [
      app.call('GET', '/api/projects/nothing-here/tickets/1'),
      404,
      'no_such_ticket',
      { error: 'no such ticket' },
    ],
    [
      app.call('GET', '/api/projects/nothing-here'),
      404,
      'no_such_project',
      { error: 'no such project' },
    ],
    [app.call('GET', '/api/tickets?q=colour:red'), 400, 'bad_query', undefined],
  ]
  for (const [answer, status, code, body] of cases) {
    const got = await answer
    assert.equal(got.status, status, code)
    assert.equal(got.headers['x-error-code'], code)
    if (body !== undefined) assert.deepEqual(got.body, body, code)
  }
})
