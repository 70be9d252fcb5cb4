import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkBody, type Shape } from '../../src/tickets/rules/body.ts'
import { expectJson, ticketsApp } from './support.ts'

// Set up before the first test is declared (test/test-files.test.ts says why).
const app = await ticketsApp()
const alice = await app.login('alice')
const demo = await app.project(alice, 'Demo')
const t = await app.ticket(alice, demo.slug)

const shape: Shape = { subject: 'required', assignee: 'present', summary: 'optional' }

/** Checks that `body` (raw text) is refused with exactly `error` and `field`. */
function assertRefused(raw: string, error: string, field: string): void {
  const got = checkBody(new TextEncoder().encode(raw), shape)
  assert.ok(!got.ok, raw)
  assert.deepEqual(
    { status: got.status, error: got.message, field: got.field },
    { status: 400, error, field },
    raw,
  )
}

test('checkBody refuses each defect with { error, field } as decided', () => {
  assertRefused('{"subject":"x",}', 'invalid JSON at character 15', 'body')
  assertRefused('['.repeat(600), 'JSON nested too deep at character 512', 'body')
  assertRefused('["subject"]', 'the body must be a JSON object', 'body')
  assertRefused('"text"', 'the body must be a JSON object', 'body')
  assertRefused('null', 'the body must be a JSON object', 'body')
  assertRefused('{"subject":"x","assignee":"","colour":"red"}', "unknown field 'colour'", 'colour')
  assertRefused(
    '{"subject":"x","assignee":"","author":"bob"}',
    "'author' is not accepted: the author is the token's user",
    'author',
  )
  assertRefused('{"subject":3,"assignee":""}', "'subject' must be a string", 'subject')
  assertRefused('{"subject":"x","assignee":null}', "'assignee' must be a string", 'assignee')
  assertRefused('{"assignee":""}', "'subject' is required", 'subject')
  assertRefused('{"subject":"","assignee":""}', "'subject' is required", 'subject')
  assertRefused('{"subject":"x"}', "'assignee' is required", 'assignee')
  assertRefused('', "'subject' is required", 'subject')
  assertRefused('{"__proto__":"x"}', "unknown field '__proto__'", '__proto__')
  assertRefused('{"constructor":"x"}', "unknown field 'constructor'", 'constructor')
})

test('checkBody accepts an empty present field and leaves out optional ones', () => {
  const got = checkBody(new TextEncoder().encode('{"subject":"x","assignee":""}'), shape)
  assert.ok(got.ok)
  assert.deepEqual({ ...got.body }, { subject: 'x', assignee: '' })
  assert.equal(Object.getPrototypeOf(got.body), null)
})

test('checkBody takes zero bytes as an empty object when nothing is required', () => {
  const got = checkBody(new Uint8Array(0), { title: 'optional' })
  assert.ok(got.ok)
  assert.deepEqual({ ...got.body }, {})
})

// Every POST route with a path that exists, and a body that is invalid JSON.
const POSTS = [
  '/api/tickets',
  `/api/projects/${demo.slug}/tickets`,
  `/api/tickets/${t.id}/comments`,
  `/api/tickets/${t.id}/state`,
  `/api/tickets/${t.id}/assign`,
  `/api/tickets/${t.id}/edit`,
  `/api/tickets/${t.id}/parent`,
  `/api/tickets/${t.id}/blocked-by`,
  `/api/projects/${demo.slug}/tickets/1/comments`,
  '/api/projects',
  `/api/projects/${demo.slug}`,
  `/api/projects/${demo.slug}/members`,
  `/api/projects/${demo.slug}/members/remove`,
  `/api/projects/${demo.slug}/invites`,
  '/api/tokens',
  '/api/tokens/revoke',
]

test('every POST route answers invalid JSON with 400 { error, field: body }', async () => {
  for (const path of POSTS) {
    expectJson(await app.call('POST', path, { token: alice.token, raw: '{"a":1,}' }), 400, {
      error: 'invalid JSON at character 7',
      field: 'body',
    })
  }
})

test('every POST route refuses an unknown field and author by name', async () => {
  for (const path of POSTS) {
    expectJson(await app.call('POST', path, { token: alice.token, body: { zzz: 'x' } }), 400, {
      error: "unknown field 'zzz'",
      field: 'zzz',
    })
    expectJson(await app.call('POST', path, { token: alice.token, body: { author: 'bob' } }), 400, {
      error: "'author' is not accepted: the author is the token's user",
      field: 'author',
    })
  }
})

test('every POST route refuses a non-string value, naming the field', async () => {
  const cases: [string, string][] = [
    ['/api/tickets', 'subject'],
    [`/api/projects/${demo.slug}/tickets`, 'summary'],
    [`/api/tickets/${t.id}/comments`, 'text'],
    [`/api/tickets/${t.id}/state`, 'state'],
    [`/api/tickets/${t.id}/assign`, 'assignee'],
    [`/api/tickets/${t.id}/edit`, 'subject'],
    [`/api/tickets/${t.id}/parent`, 'parent'],
    [`/api/tickets/${t.id}/blocked-by`, 'add'],
    ['/api/projects', 'title'],
    [`/api/projects/${demo.slug}`, 'description'],
    [`/api/projects/${demo.slug}/members`, 'role'],
    [`/api/projects/${demo.slug}/members/remove`, 'user'],
    [`/api/projects/${demo.slug}/invites`, 'uses'],
    ['/api/tokens', 'label'],
    ['/api/tokens/revoke', 'id'],
  ]
  for (const value of [12, null, true, ['a'], { a: 'b' }]) {
    for (const [path, name] of cases) {
      expectJson(
        await app.call('POST', path, { token: alice.token, body: { [name]: value } }),
        400,
        { error: `'${name}' must be a string`, field: name },
      )
    }
  }
})

test('a body over 2 MiB answers 413 body too large', async () => {
  const big = JSON.stringify({ subject: 'x'.repeat(2 * 1024 * 1024) })
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, { token: alice.token, raw: big }),
    413,
    { error: 'body too large' },
  )
})

test('a body check comes before the existence check (400 before 404)', async () => {
  expectJson(
    await app.call('POST', '/api/projects/nope/tickets', { token: alice.token, body: {} }),
    400,
    { error: "'subject' is required", field: 'subject' },
  )
  expectJson(
    await app.call('POST', '/api/projects/nope/tickets', {
      token: alice.token,
      body: { subject: 'x' },
    }),
    404,
    { error: 'no such project' },
  )
})
