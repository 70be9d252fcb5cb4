import assert from 'node:assert/strict'
import { test } from 'node:test'
import { makeRequest } from '../../src/http/request.ts'
import { hashSecret } from '../../src/base/random.ts'
import { ticketsApp, type Answer } from './support.ts'

const app = await ticketsApp()

/** Checks a failure page: status, title and heading, and the escaped text. */
function assertPage(answer: Answer, status: number, title: string, text: string): void {
  assert.equal(answer.status, status, answer.text)
  assert.equal(answer.headers['content-type'], 'text/html; charset=utf-8')
  assert.ok(answer.text.includes(`<title>${title}</title>`), answer.text)
  assert.ok(answer.text.includes(`<h1>${title}</h1>`), answer.text)
  assert.ok(answer.text.includes(`<p>${text}</p>`), answer.text)
}

test('login return: another method answers the HTML page Login failed, 405 GET only', async () => {
  for (const method of ['POST', 'PUT', 'DELETE'])
    assertPage(
      await app.call(method, '/login/callback?idp_code=x'),
      405,
      'Login failed',
      'GET only',
    )
})

test('login return: a missing or empty idp_code answers Login failed, 400 idp sent no login code', async () => {
  assertPage(
    await app.call('GET', '/login/callback'),
    400,
    'Login failed',
    'idp sent no login code',
  )
  assertPage(
    await app.call('GET', '/login/callback?idp_code='),
    400,
    'Login failed',
    'idp sent no login code',
  )
})

test('login return: an exchange error answers Login failed, 400 with the error text escaped', async () => {
  app.idp.fail('code <expired> & gone')
  assertPage(
    await app.call('GET', '/login/callback?idp_code=abc'),
    400,
    'Login failed',
    'code &lt;expired&gt; &amp; gone',
  )
  assertPage(
    await app.call('GET', '/login/callback?idp_code=unknown'),
    400,
    'Login failed',
    'unknown login code',
  )
})

test('login return: the user is created on first login and updated on the next', async () => {
  const first = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'p-1', name: 'Pat', email: 'pat@example.com' })}`,
  )
  assert.equal(first.status, 302)
  const again = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'p-1', name: 'Patricia' })}`,
  )
  assert.equal(again.status, 302)
  const rows = await app.sql`select id, name, email from users where idp_id = 'p-1'`
  assert.equal(rows.length, 1)
  assert.equal(rows[0]!.name, 'Patricia')
  assert.equal(rows[0]!.email, 'pat@example.com')
  assert.match(rows[0]!.id as string, /^[a-z0-9]{12}$/)
})

test('login return: a user that cannot be stored answers Login failed, 500 could not store the user', async () => {
  await app.sql`alter table users add constraint no_such_name check (name <> 'Unstorable')`
  try {
    assertPage(
      await app.call(
        'GET',
        `/login/callback?idp_code=${app.idp.code({ id: 'u', name: 'Unstorable' })}`,
      ),
      500,
      'Login failed',
      'could not store the user',
    )
  } finally {
    await app.sql`alter table users drop constraint no_such_name`
  }
})

test('login return: answers 302 logged in to the safe next, no-store, with a new session cookie', async () => {
  const got = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'n-1', name: 'Nia' })}&next=${encodeURIComponent('/demo/3?x=1')}`,
  )
  assert.equal(got.status, 302)
  assert.equal(got.text, 'logged in')
  assert.equal(got.headers.location, '/demo/3?x=1')
  assert.equal(got.headers['cache-control'], 'no-store')
  assert.equal(got.headers['content-type'], 'text/plain; charset=utf-8')
  assert.match(
    String(got.headers['set-cookie']),
    /^tickets_session=[A-Za-z0-9_-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
  )
})

test('login return: an unsafe next goes to /', async () => {
  for (const next of [
    '//evil.example',
    '/login/callback',
    'https://evil.example',
    '/a b',
    '/a\\b',
    'x'.repeat(10),
    '/' + 'a'.repeat(500),
  ]) {
    const got = await app.call(
      'GET',
      `/login/callback?idp_code=${app.idp.code({ id: 'n-2', name: 'Nia' })}&next=${encodeURIComponent(next)}`,
    )
    assert.equal(got.headers.location, '/', next)
  }
})

test('login return: the same person signing in again on their own session keeps its id and gets no Set-Cookie (rule 7)', async () => {
  const first = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 's-7', name: 'Seven' })}`,
  )
  const cookie = String(first.headers['set-cookie']).split(';')[0]!
  const before = (await app.sessions.load(makeRequest({ headers: { cookie } })))!
  const again = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 's-7', name: 'Seven' })}`,
    { headers: { cookie } },
  )
  assert.equal(again.status, 302)
  assert.equal(again.headers['set-cookie'], undefined)
  const after = (await app.sessions.load(makeRequest({ headers: { cookie } })))!
  assert.equal(after.id, before.id)
  assert.equal(after.userId, before.userId)
  assert.notEqual(after.data.tag, before.data.tag, 'the tag is renewed as rule 6 says')
})

test('login return: the session of the cookie is taken under a fresh id, its user set, its data kept and its tag renewed', async () => {
  const session = app.sessions.create()
  session.data = { tag: 'old-tag', kept: 'yes' }
  await app.sessions.save(session)
  const cookie = app.sessions.cookie(session).split(';')[0]!
  const got = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 's-1', name: 'Sol' })}`,
    { headers: { cookie } },
  )
  assert.equal(got.status, 302)
  const renewed = String(got.headers['set-cookie']).split(';')[0]!
  assert.match(renewed, /^tickets_session=/)
  assert.notEqual(renewed, cookie, 'the answer carries the cookie of the fresh id')
  const fresh = (await app.sessions.load(makeRequest({ headers: { cookie: renewed } })))!
  assert.notEqual(fresh.id, session.id)
  assert.equal(
    await app.sessions.load(makeRequest({ headers: { cookie } })),
    null,
    'the cookie brought names nothing',
  )
  const [row] = await app.sql`select user_id, data from sessions where id = ${hashSecret(fresh.id)}`
  const [user] = await app.sql`select id from users where idp_id = 's-1'`
  assert.equal(row!.user_id, user!.id)
  const data = row!.data as { tag: string; kept: string; user: { id: string } }
  assert.deepEqual(data.user, { id: user!.id })
  assert.equal(data.kept, 'yes')
  assert.notEqual(data.tag, 'old-tag')
  assert.equal(Buffer.from(data.tag, 'base64url').length, 16)
})

test('login return: a switch to another person says so once on the next page, as another account when both are named the same', async () => {
  const sign = async (cookie: string, id: string, name: string, login?: string) => {
    const back = await app.call(
      'GET',
      `/login/callback?idp_code=${app.idp.code({ id, name, ...(login ? { login } : {}) })}`,
      { headers: cookie ? { cookie } : {} },
    )
    assert.equal(back.status, 302, back.text)
    return String(back.headers['set-cookie'] ?? cookie).split(';')[0]!
  }
  const notice = async (cookie: string) =>
    /<div class="notice switched" role="alert"><p>([^<]*)<\/p>/.exec(
      (await app.call('GET', '/', { headers: { cookie } })).text,
    )?.[1]
  const owner = await sign('', 'sw-owner', 'owner', 'owner')
  const bob = await sign(owner, 'sw-bob', 'owner', 'bob')
  assert.equal(
    await notice(bob),
    'You are now signed in as owner (bob), no longer as owner. Not you?',
  )
  assert.equal(await notice(bob), undefined, 'said once')
  // An outside provider that sends no unique name (`login`): both people read "owner".
  const first = await sign('', 'sw-outside-1', 'owner')
  const second = await sign(first, 'sw-outside-2', 'owner')
  assert.equal(
    await notice(second),
    'You are now signed in as another account, also named owner. Not you?',
  )
})
