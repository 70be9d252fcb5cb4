import assert from 'node:assert/strict'
import { test } from 'node:test'
import { makeRequest } from '../../src/http/request.ts'
import { cookieOf, notesService, type Answer } from './support.ts'

const app = await notesService()

/** The session the cookie names, as stored. */
async function sessionOf(cookie: string) {
  const session = await app.sessions.load(makeRequest({ headers: { cookie } }))
  assert.ok(session, 'the cookie names a stored session')
  return session
}

function assertFailure(res: Answer, reason: string): void {
  assert.equal(res.status, 302)
  assert.equal(res.text, `login failed: ${reason}`)
  assert.equal(res.headers.location, '/login/failed')
  assert.equal(res.headers['cache-control'], 'no-store')
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  assert.equal(res.headers['x-error-code'], 'login_failed')
}

test('4.1 rule 1: a method other than GET fails with reason GET only', async () => {
  for (const method of ['POST', 'PUT', 'HEAD', 'DELETE']) {
    const res = await app.call(
      method,
      `/login/callback?idp_code=${app.idp.code({ id: 'u', name: 'u' })}`,
    )
    assertFailure(res, 'GET only')
    assert.equal((await sessionOf(cookieOf(res.headers['set-cookie']!))).userId, null)
  }
})

test('4.1 rule 2: a missing or empty idp_code fails with reason idp sent no login code', async () => {
  for (const url of ['/login/callback', '/login/callback?idp_code=', '/login/callback?next=/x']) {
    assertFailure(await app.call('GET', url), 'idp sent no login code')
  }
})

test('4.1 rule 3: an exchange error fails with the error text as the reason', async () => {
  app.idp.fail('idp unreachable')
  assertFailure(await app.call('GET', '/login/callback?idp_code=abc'), 'idp unreachable')
  assertFailure(
    await app.call('GET', '/login/callback?idp_code=never-issued'),
    'unknown login code',
  )
})

test('4.1 rule 4: a login sets the user, 16 fresh random bytes as tag, and clears loginError', async () => {
  const failed = await app.call('GET', '/login/callback')
  const cookie = cookieOf(failed.headers['set-cookie']!)
  assert.equal((await sessionOf(cookie)).data.loginError, 'idp sent no login code')

  const res = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'alice-id', name: 'Alice' })}`,
    { cookie },
  )
  assert.equal(res.status, 302)
  const signedIn = cookieOf(res.headers['set-cookie']!)
  const session = await sessionOf(signedIn)
  assert.equal(session.userId, 'alice-id')
  assert.equal(session.data.loginError, null)
  const tag = session.data.tag
  assert.ok(typeof tag === 'string' && Buffer.from(tag, 'base64url').length === 16)

  const again = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'alice-id', name: 'Alice' })}`,
    { cookie: signedIn },
  )
  assert.notEqual((await sessionOf(signedIn)).data.tag, tag, 'every login gives a fresh tag')
  assert.equal(again.headers['set-cookie'], undefined)
})

test('4.1 rule 7: the same person signing in again on their own session keeps its id and gets no Set-Cookie', async () => {
  const cookie = await app.signIn('same-person')
  const before = await sessionOf(cookie)
  const again = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'same-person', name: 'Same' })}`,
    { cookie },
  )
  assert.equal(again.status, 302)
  assert.equal(again.text, 'logged in')
  assert.equal(again.headers['set-cookie'], undefined, 'no Set-Cookie: the session is not new')
  const after = await sessionOf(cookie)
  assert.equal(after.id, before.id)
  assert.equal(after.userId, 'same-person')
  assert.equal(after.data.switchedFrom, null)
  assert.deepEqual((await app.call('GET', '/api/me', { cookie })).json, { user: 'same-person' })
})

test('4.1 rule 4: a login takes the session of the request cookie under a fresh id, sends its cookie, and the old one names nothing', async () => {
  const cookie = await app.signIn('first-user')
  const before = await sessionOf(cookie)
  before.data.kept = 'yes'
  await app.sessions.save(before)
  const res = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'second-user', name: 'B' })}`,
    { cookie },
  )
  assert.equal(res.status, 302)
  const renewed = cookieOf(res.headers['set-cookie']!)
  assert.notEqual(renewed, cookie)
  const after = await sessionOf(renewed)
  assert.notEqual(after.id, before.id)
  assert.equal(after.userId, 'second-user')
  assert.equal(after.data.kept, 'yes', "the session's data is carried over")
  assert.equal(await app.sessions.load(makeRequest({ headers: { cookie } })), null)
  assert.deepEqual((await app.call('GET', '/api/me', { cookie })).json, { user: null })
})

test('4.1 rule 5: the success answer is a 302 to the safe form of next with body logged in', async () => {
  const cases: [string | null, string][] = [
    [null, '/'],
    ['/notes?x=1', '/notes?x=1'],
    ['//evil.example/x', '/'],
    ['https://evil.example/', '/'],
    ['/login/failed', '/'],
    ['/a b', '/'],
    ['', '/'],
  ]
  for (const [next, location] of cases) {
    const query = next === null ? '' : `&next=${encodeURIComponent(next)}`
    const res = await app.call(
      'GET',
      `/login/callback?idp_code=${app.idp.code({ id: 'u5', name: 'u' })}${query}`,
    )
    assert.equal(res.status, 302)
    assert.equal(res.text, 'logged in')
    assert.equal(res.headers.location, location, `next ${next}`)
    assert.equal(res.headers['cache-control'], 'no-store')
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  }
})

test('4.1 rule 6: a failure stores the reason in the existing session and sends no Set-Cookie', async () => {
  const cookie = await app.signIn('keeps-user')
  app.idp.fail('account locked')
  const res = await app.call('GET', '/login/callback?idp_code=x', { cookie })
  assertFailure(res, 'account locked')
  assert.equal(res.headers['set-cookie'], undefined)
  assert.equal((await sessionOf(cookie)).data.loginError, 'account locked')
})

test('4.1 rule 7: both answers carry Set-Cookie for a new session, HttpOnly and SameSite=Lax', async () => {
  const ok = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'u7', name: 'u' })}`,
  )
  const failed = await app.call('GET', '/login/callback')
  for (const res of [ok, failed]) {
    const setCookie = res.headers['set-cookie']
    assert.ok(setCookie, 'Set-Cookie is sent')
    assert.match(
      setCookie,
      /^notes_session=[A-Za-z0-9_-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    )
  }
  assert.equal((await sessionOf(cookieOf(ok.headers['set-cookie']!))).userId, 'u7')
  assert.equal(
    (await sessionOf(cookieOf(failed.headers['set-cookie']!))).data.loginError,
    'idp sent no login code',
  )
})

test('4.2: /login/failed shows the stored reason escaped and a link to sign in again', async () => {
  app.idp.fail('<script>alert("x")</script> & more')
  const failed = await app.call('GET', '/login/callback?idp_code=x')
  const res = await app.call('GET', '/login/failed', {
    cookie: cookieOf(failed.headers['set-cookie']!),
  })
  assert.equal(res.status, 200)
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8')
  assert.equal(res.headers['cache-control'], 'private, no-store')
  assert.equal(res.headers['x-error-code'], 'login_failed')
  assert.ok(res.text.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more'))
  assert.ok(!res.text.includes('<script>'))
  assert.ok(res.text.includes('<a href="/login">Sign in again</a>'))
})

test('4.2: /login/failed without a stored failure says so and still links to sign in', async () => {
  const res = await app.call('GET', '/login/failed')
  assert.equal(res.status, 200)
  assert.equal(res.headers['x-error-code'], undefined)
  assert.ok(res.text.includes('No failed sign-in is recorded'))
  assert.ok(res.text.includes('href="/login"'))
})

test('section 5: /login sends the browser to the provider with the callback and the safe next as return address', async () => {
  const back = (query: string) =>
    `http://idp.test/login?key=dev-key&return=${encodeURIComponent(`${app.publicUrl}/login/callback${query}`)}`
  const res = await app.call('GET', '/login?next=/notes/7')
  assert.equal(res.status, 302)
  assert.equal(res.headers.location, back('?next=%2Fnotes%2F7'))
  assert.equal(res.headers['cache-control'], 'no-store')
  assert.equal(
    (await app.call('GET', '/login?next=//evil.example')).headers.location,
    back('?next=%2F'),
  )
  assert.equal((await app.call('GET', '/login')).headers.location, back(''))
})

test('the start page is a welcome with "Sign in" when signed out, and the app showing the name, escaped, when signed in', async () => {
  const anonymous = await app.call('GET', '/')
  assert.equal(anonymous.status, 200)
  assert.equal(anonymous.headers['content-type'], 'text/html; charset=utf-8')
  assert.ok(anonymous.text.includes('<a class="button primary" href="/login">Sign in</a>'))
  assert.ok(!anonymous.text.includes('<script'))
  const res = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'u-1234', name: '<b>Bob</b>' })}`,
  )
  const signedIn = await app.call('GET', '/', { cookie: cookieOf(res.headers['set-cookie']!) })
  assert.ok(
    signedIn.text.includes(
      '<summary class="person" title="Signed in as &lt;b&gt;Bob&lt;/b&gt;">&lt;b&gt;Bob&lt;/b&gt;</summary>',
    ),
  )
  assert.ok(!signedIn.text.includes('<b>Bob</b>'))
  assert.match(
    signedIn.text,
    /<script type="module" src="\/assets\/app-[A-Za-z0-9]+\.js"><\/script>/,
  )
})

test('4.3: /api/me answers the signed-in user or null, for any method', async () => {
  const anonymous = await app.call('GET', '/api/me')
  assert.equal(anonymous.status, 200)
  assert.deepEqual(anonymous.json, { user: null })
  assert.equal(anonymous.headers['content-type'], 'application/json; charset=utf-8')
  const cookie = await app.signIn('me-user')
  assert.deepEqual((await app.call('GET', '/api/me', { cookie })).json, { user: 'me-user' })
  const post = await app.call('POST', '/api/me', { cookie })
  assert.equal(post.status, 200)
  assert.deepEqual(post.json, { user: 'me-user' })
  const failedOnly = cookieOf((await app.call('GET', '/login/callback')).headers['set-cookie']!)
  assert.deepEqual((await app.call('GET', '/api/me', { cookie: failedOnly })).json, { user: null })
  assert.deepEqual((await app.call('GET', '/api/me', { cookie: 'notes_session=forged' })).json, {
    user: null,
  })
})

test('a login return that switches the session to another person named the same says another account on the next page', async () => {
  // An outside provider that sends no unique name (`login`): both people are "owner".
  const first = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'owner-1', name: 'owner' })}`,
  )
  const cookie = cookieOf(first.headers['set-cookie']!)
  const switched = await app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: 'owner-2', name: 'owner' })}`,
    { cookie },
  )
  const next = await app.call('GET', '/', { cookie: cookieOf(switched.headers['set-cookie']!) })
  assert.match(
    next.text,
    /<p class="switched" role="alert">You are now signed in as another account, also named owner\. Not you\?/,
  )
})
