/**
 * Connecting an app (docs/tickets-api.md, 4.9; docs/connect-apps.md): the request, the page, the
 * confirmation, the exchange, the project keys and the connections list and removal.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { REQUEST_MS } from '../../src/tickets/api/connect.ts'
import { CODE_MS } from '../../src/tickets/domain/connections.ts'
import { expectJson, ticketsApp, type Answer, type Person } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const demo = await app.project(alice, 'Demo')
const other = await app.project(bob, 'Other')
await app.member(alice, demo.slug, bob, 'edit')

const RETURN = 'https://app.example/back'
const BAD_RETURN =
  'return must be an absolute https URL (http only for localhost, 127.0.0.1 or [::1])'
const BAD_CODE = { error: 'unknown, used or expired code', field: 'code' }
const NO_REQUEST = 'this connect request is unknown, used or expired: start again from the app'

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const asPage = (p: Person) => ({ cookie: p.cookie, 'x-tag': p.tag })

/** `GET /connect` with the given query (a default app, label and return unless given). */
function start(query: Record<string, string> = {}, raw?: string): Promise<Answer> {
  const q =
    raw ??
    new URLSearchParams({
      app: 'scheduler',
      label: 'Nightly scheduler',
      return: RETURN,
      state: 'xyz',
      ...query,
    }).toString()
  return app.call('GET', `/connect?${q}`)
}

function nonceOf(answer: Answer): string {
  assert.equal(answer.status, 302, answer.text)
  return String(answer.headers.location).slice('/connect/'.length)
}

function confirm(person: Person, nonce: string, body: unknown): Promise<Answer> {
  return app.call('POST', `/api/connect/${nonce}/confirm`, { headers: asPage(person), body })
}

/** Runs the browser half for `person`: a request, confirmed for `project`; answers the code and the location. */
async function codeFor(
  person: Person,
  body: unknown = { project: demo.slug },
  query: Record<string, string> = {},
) {
  const confirmed = await confirm(person, nonceOf(await start(query)), body)
  expectJson(confirmed, 200)
  const location = new URL(confirmed.body.location)
  return { code: location.searchParams.get('code')!, location }
}

function exchange(code: unknown): Promise<Answer> {
  return app.call('POST', '/api/connect/exchange', { body: { code } })
}

/** Connects an app to a project as `person`; answers the key and the exchange answer. */
async function connect(person: Person, project = demo.slug, label = 'Nightly scheduler') {
  const { code } = await codeFor(person, { project }, { label })
  const got = await exchange(code)
  expectJson(got, 200)
  return { key: got.body.key as string, answer: got }
}

async function connectionRow(id: string) {
  const [row] = await app.sql`select * from connections where id = ${id}`
  return row
}

/** Asserts an HTML page titled Connect with `status` and the text. */
function expectConnectPage(answer: Answer, status: number, text: string): void {
  assert.equal(answer.status, status, answer.text)
  assert.equal(answer.headers['content-type'], 'text/html; charset=utf-8')
  assert.match(answer.text, /<title>Connect<\/title>/)
  assert.ok(
    answer.text.includes(
      `<p>${text.replaceAll('&', '&amp;').replaceAll("'", '&#39;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}</p>`,
    ),
    answer.text,
  )
}

async function requestCount(): Promise<number> {
  const [row] = await app.sql`select count(*)::int as n from connect_requests`
  return row!.n as number
}

// GET /connect

test('GET /connect stores the request and answers 302 to /connect/<nonce> with no-store plain text', async () => {
  const got = await start({ state: 'abc' })
  assert.equal(got.status, 302)
  const location = String(got.headers.location)
  assert.match(
    location,
    /^\/connect\/[A-Za-z0-9_-]{32}$/,
    'a nonce of 24 random bytes in base64url',
  )
  assert.equal(got.text, `continue at ${location}`)
  assert.equal(got.headers['cache-control'], 'no-store')
  assert.equal(got.headers['content-type'], 'text/plain; charset=utf-8')
  const nonce = nonceOf(got)
  const [row] = await app.sql`select * from connect_requests where hash = ${sha256(nonce)}`
  assert.ok(row, 'the request is stored under the hash of its nonce')
  assert.deepEqual(
    [row.app, row.label, row.return_url, row.state],
    ['scheduler', 'Nightly scheduler', RETURN, 'abc'],
  )
  assert.equal(Number(row.expires) - Number(row.created), REQUEST_MS)
  assert.ok(
    !JSON.stringify(await app.sql`select * from connect_requests`).includes(nonce),
    'the nonce itself is not stored',
  )
  assert.notEqual(nonceOf(await start()), nonce, 'every request gets a fresh nonce')
})

test('other methods on /connect answer the HTML page Connect with 405 GET only and store nothing', async () => {
  const before = await requestCount()
  for (const method of ['POST', 'PUT', 'DELETE', 'HEAD']) {
    const got = await app.call(
      method,
      `/connect?app=a&label=b&return=${encodeURIComponent(RETURN)}`,
    )
    expectConnectPage(got, 405, 'GET only')
    assert.equal(got.headers.allow, 'GET')
  }
  assert.equal(await requestCount(), before)
})

test('an invalid connect request answers the HTML page Connect with 400 and the reason, and stores nothing', async () => {
  const long = 'x'.repeat(81)
  const cases: [Record<string, string> | string, string][] = [
    ['label=L&return=https%3A%2F%2Fa.example%2F', 'app must be 1 to 80 characters'],
    [{ app: '' }, 'app must be 1 to 80 characters'],
    [{ app: long }, 'app must be 1 to 80 characters'],
    [{ app: 'a\u0007b' }, 'app must not contain control characters'],
    [{ app: 'a\u0000b' }, 'app must not contain control characters'],
    ['app=A&return=https%3A%2F%2Fa.example%2F', 'label must be 1 to 80 characters'],
    [{ label: long }, 'label must be 1 to 80 characters'],
    [{ label: 'line\nbreak' }, 'label must not contain control characters'],
    [{ label: 'evil\u202etxt.exe' }, 'label must not contain control characters'],
    ['app=A&label=L', BAD_RETURN],
    [{ return: '' }, BAD_RETURN],
    [{ return: '/back' }, BAD_RETURN],
    [{ return: 'http://app.example/back' }, BAD_RETURN],
    [{ return: 'http://localhost.evil.example/back' }, BAD_RETURN],
    [{ return: 'https:app.example/back' }, BAD_RETURN],
    [{ return: ' https://app.example/back' }, BAD_RETURN],
    [{ return: 'https://app.example/a b' }, BAD_RETURN],
    [{ return: 'javascript:alert(1)//https://x' }, BAD_RETURN],
    [{ return: 'ftp://app.example/back' }, BAD_RETURN],
    [{ return: 'https://' }, BAD_RETURN],
    [
      { return: 'https://user:pw@app.example/back' },
      'return must not have a user name, a password or a #fragment',
    ],
    [
      { return: 'https://app.example/back#top' },
      'return must not have a user name, a password or a #fragment',
    ],
    [
      { return: 'https://app.example/back?code=1' },
      'return must not already carry code or state in its query',
    ],
    [
      { return: 'https://app.example/back?a=1&state=2' },
      'return must not already carry code or state in its query',
    ],
    [
      { return: `https://app.example/${'x'.repeat(2000)}` },
      'return must be at most 2000 characters',
    ],
    [{ state: 'x'.repeat(501) }, 'state must be at most 500 characters'],
    [{ state: 'a\u0000' }, 'state must not contain control characters'],
    ['app=A&app=B&label=L&return=https%3A%2F%2Fa.example%2F', 'app is given more than once'],
    [
      'app=A&label=L&return=https%3A%2F%2Fa.example%2F&state=1&state=2',
      'state is given more than once',
    ],
  ]
  const before = await requestCount()
  for (const [query, error] of cases) {
    const got = typeof query === 'string' ? await start({}, query) : await start(query)
    expectConnectPage(got, 400, error)
  }
  assert.equal(await requestCount(), before)
})

test('GET /connect accepts names of exactly 80 characters (counted as people count them), a state of 500 and loopback http', async () => {
  const smiles = '🙂'.repeat(80)
  for (const query of [
    { app: 'a'.repeat(80), label: smiles, state: 's'.repeat(500) },
    { return: 'http://localhost:8080/cb' },
    { return: 'http://127.0.0.1/cb' },
    { return: 'http://[::1]:3000/cb?x=1' },
    { return: 'https://app.example/back?x=1&y=%20' },
  ] as Record<string, string>[]) {
    const got = await start(query)
    assert.equal(got.status, 302, `${JSON.stringify(query)}: ${got.text}`)
  }
})

test('a missing state is stored and sent back as empty', async () => {
  const nonce = nonceOf(await start({}, `app=a&label=b&return=${encodeURIComponent(RETURN)}`))
  const [row] = await app.sql`select state from connect_requests where hash = ${sha256(nonce)}`
  assert.equal(row!.state, '')
  const confirmed = await confirm(alice, nonce, { project: demo.slug })
  expectJson(confirmed, 200)
  assert.match(
    confirmed.body.location,
    /^https:\/\/app\.example\/back\?code=[A-Za-z0-9_-]{43}&state=$/,
  )
})

// The page /connect/<nonce>

test('the connect page asks a signed-out person to sign in and the login brings them back to it', async () => {
  const nonce = nonceOf(await start())
  const page = await app.call('GET', `/connect/${nonce}`)
  assert.equal(page.status, 200)
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  assert.equal(page.headers['cache-control'], 'private, no-store')
  assert.equal(page.headers['x-frame-options'], 'DENY')
  assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/)
  assert.ok(page.text.includes(RETURN), 'the person sees where they will be sent')
  assert.ok(!page.text.includes('<form'), 'no confirmation before signing in')
  const href = /<a href="([^"]+)">Sign in<\/a>/.exec(page.text)![1]!.replaceAll('&amp;', '&')
  const login = new URL(href)
  assert.equal(`${login.origin}${login.pathname}`, 'http://idp.test/login')
  const back = new URL(login.searchParams.get('return')!)
  assert.equal(`${back.origin}${back.pathname}`, 'http://localhost:3002/login/callback')
  assert.equal(back.searchParams.get('next'), `/connect/${nonce}`)

  const code = app.idp.code({ id: 'idp-carol', name: 'carol' })
  const returned = await app.call(
    'GET',
    `/login/callback?idp_code=${code}&next=${encodeURIComponent(back.searchParams.get('next')!)}`,
  )
  assert.equal(returned.status, 302)
  assert.equal(returned.headers.location, `/connect/${nonce}`)
})

test('the connect page escapes the app, the label and the return address', async () => {
  const nonce = nonceOf(
    await start({
      app: '<script>alert(1)</script>',
      label: `"Bob's" & <b>`,
      return: 'https://app.example/back?q="x"&r=<i>',
    }),
  )
  for (const headers of [{}, asPage(alice)]) {
    const page = await app.call('GET', `/connect/${nonce}`, { headers })
    assert.equal(page.status, 200)
    assert.ok(!page.text.includes('<script>alert'), 'no markup from the app')
    assert.ok(!page.text.includes('<b>') && !page.text.includes('<i>'))
    assert.ok(page.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'))
    assert.ok(page.text.includes('&quot;Bob&#39;s&quot; &amp; &lt;b&gt;'))
    assert.ok(
      page.text.includes('https://app.example/back?q=%22x%22&amp;r=%3Ci%3E'),
      'the normalised address, escaped',
    )
  }
})

test('the connect page lists the projects the person administers and offers a new one; its form confirms', async () => {
  const mine = await app.project(alice, 'Alpha <tools>')
  const nonce = nonceOf(await start())
  const page = await app.call('GET', `/connect/${nonce}`, { headers: asPage(bob) })
  assert.equal(page.status, 200)
  const offered = [...page.text.matchAll(/name="project" value="([^"]*)"/g)].map((m) => m[1])
  assert.deepEqual(
    offered,
    [other.id, ''],
    'bob administers Other only (he has edit in Demo); the empty value is the new project',
  )
  assert.ok(page.text.includes('name="title"'))
  assert.ok(!page.text.includes(mine.slug))
  const alicePage = await app.call('GET', `/connect/${nonce}`, { headers: asPage(alice) })
  assert.ok(alicePage.text.includes('Alpha &lt;tools&gt;'))

  const form = /<form id="connect" data-confirm="([^"]+)" data-tag="([^"]+)">/.exec(page.text)!
  assert.equal(form[1], `/api/connect/${nonce}/confirm`)
  assert.equal(form[2], bob.tag, "the page carries the session's tag for x-tag")
  const confirmed = await app.call('POST', form[1], {
    headers: { cookie: bob.cookie, 'x-tag': form[2] },
    body: { project: offered[0] },
  })
  expectJson(confirmed, 200)
  assert.ok(confirmed.body.location.startsWith(`${RETURN}?code=`))
})

test('the connect page names the person by display name with their unique name beside it when the two differ', async () => {
  // Issue 35, point 3: bob renamed "owner" must not pass for the owner on the page that hands out a key.
  const nonce = nonceOf(await start())
  const named = async (name: string, login: string | undefined) => {
    const code = app.idp.code({
      id: `idp-shown-${name}-${login}`,
      name,
      ...(login === undefined ? {} : { login }),
    })
    const back = await app.call(
      'GET',
      `/login/callback?idp_code=${code}&next=${encodeURIComponent(`/connect/${nonce}`)}`,
    )
    assert.equal(back.status, 302, back.text)
    const page = await app.call('GET', `/connect/${nonce}`, {
      headers: { cookie: String(back.headers['set-cookie']).split(';')[0]! },
    })
    assert.equal(page.status, 200)
    return /as you, <strong>([^<]*)<\/strong>/.exec(page.text)?.[1]
  }
  assert.equal(await named('owner', 'bob'), 'owner (bob)')
  assert.equal(
    await named('Carol', 'carol'),
    'Carol',
    'the same name in another case is not repeated',
  )
  assert.equal(await named('Dan', undefined), 'Dan', 'a provider that sends no unique name')
})

test('an unknown connect page answers 404 Connect, and so do other methods 405', async () => {
  expectConnectPage(await app.call('GET', '/connect/nothing-here'), 404, NO_REQUEST)
  const nonce = nonceOf(await start())
  expectConnectPage(await app.call('POST', `/connect/${nonce}`), 405, 'GET only')
})

test('a request older than 10 minutes can no longer be shown or confirmed', async () => {
  const fresh = nonceOf(await start())
  const old = nonceOf(await start())
  app.clock.advance(REQUEST_MS - 1)
  expectJson(await confirm(alice, fresh, { project: demo.slug }), 200)
  app.clock.advance(1)
  expectConnectPage(
    await app.call('GET', `/connect/${old}`, { headers: asPage(alice) }),
    404,
    NO_REQUEST,
  )
  expectJson(await confirm(alice, old, { project: demo.slug }), 404, { error: NO_REQUEST })
})

// POST /api/connect/<nonce>/confirm

test('confirming answers the return address with code and state added, keeping its own query, and issues a code for 5 minutes', async () => {
  const nonce = nonceOf(
    await start({ return: 'https://app.example/back?team=a%20b', state: 'st&te=1' }),
  )
  const confirmed = await confirm(alice, nonce, { project: demo.slug })
  expectJson(confirmed, 200)
  assert.equal(confirmed.headers['cache-control'], 'no-store')
  assert.deepEqual(Object.keys(confirmed.body), ['location'])
  const m =
    /^https:\/\/app\.example\/back\?team=a%20b&code=([A-Za-z0-9_-]{43})&state=st%26te%3D1$/.exec(
      confirmed.body.location,
    )
  assert.ok(m, confirmed.body.location)
  const [row] = await app.sql`select * from connect_codes where hash = ${sha256(m[1]!)}`
  assert.ok(row, 'the code is stored as its hash')
  assert.deepEqual(
    [row.project_id, row.user_id, row.app, row.label, row.used],
    [demo.id, alice.id, 'scheduler', 'Nightly scheduler', null],
  )
  assert.equal(Number(row.expires) - Number(row.created), CODE_MS)
  assert.equal(
    (await app.sql`select 1 from connect_requests where hash = ${sha256(nonce)}`).length,
    0,
    'the request is used up',
  )
  expectJson(await confirm(alice, nonce, { project: demo.slug }), 404, { error: NO_REQUEST })
})

test('confirming takes the project by id as by slug, or makes a new project with the person as admin', async () => {
  const byId = await codeFor(alice, { project: demo.id })
  expectJson(await exchange(byId.code), 200)
  const made = await codeFor(bob, { title: 'Made for the app' })
  const got = await exchange(made.code)
  expectJson(got, 200)
  assert.equal(got.body.project, 'made-for-the-app')
  assert.equal(got.body.title, 'Made for the app')
  const shown = await app.call('GET', '/api/projects/made-for-the-app')
  assert.deepEqual(
    shown.body.members.map((m: { user: { id: string }; role: string }) => [m.user.id, m.role]),
    [[bob.id, 'admin']],
  )
})

test('confirming is refused in the order credential, body, request, project, role, and a refusal keeps the request', async () => {
  const nonce = nonceOf(await start())
  const path = `/api/connect/${nonce}/confirm`
  expectJson(await app.call('GET', path), 405, { error: 'POST only' })
  expectJson(await app.call('POST', path, { body: { project: demo.slug } }), 401, {
    error: 'a token is needed',
  })
  expectJson(
    await app.call('POST', path, {
      headers: { cookie: alice.cookie },
      body: { project: demo.slug },
    }),
    403,
    { error: 'x-tag header missing or wrong' },
  )
  expectJson(
    await app.call('POST', path, { token: 'tk_' + 'a'.repeat(43), body: { project: demo.slug } }),
    401,
    { error: 'a user token is needed' },
  )
  expectJson(await confirm(alice, nonce, { nope: 'x' }), 400, {
    error: "unknown field 'nope'",
    field: 'nope',
  })
  expectJson(await confirm(alice, nonce, {}), 400, {
    error: "give exactly one of 'project' or 'title'",
    field: 'project',
  })
  expectJson(await confirm(alice, nonce, { project: demo.slug, title: 'New' }), 400, {
    error: "give exactly one of 'project' or 'title'",
    field: 'title',
  })
  expectJson(await confirm(alice, 'unknown-nonce', { project: demo.slug }), 404, {
    error: NO_REQUEST,
  })
  expectJson(await confirm(alice, nonce, { project: 'no-such' }), 404, { error: 'no such project' })
  expectJson(await confirm(bob, nonce, { project: demo.slug }), 403, {
    error: 'this needs role admin',
    field: 'project',
  })
  expectJson(await confirm(alice, nonce, { project: other.slug }), 403, {
    error: 'you are not a member of this project',
    field: 'project',
  })
  expectJson(await confirm(alice, nonce, { title: '   ' }), 400, {
    error: "'title' is required",
    field: 'title',
  })
  expectJson(await confirm(alice, nonce, { title: 'x'.repeat(201) }), 400, {
    error: "'title' is at most 200 characters",
    field: 'title',
  })
  assert.equal((await app.sql`select 1 from projects where title = ${'x'.repeat(201)}`).length, 0)
  // A user token works as well as the page's cookie.
  const confirmed = await app.call('POST', path, {
    token: alice.token,
    body: { project: demo.slug },
  })
  expectJson(confirmed, 200)
})

// POST /api/connect/exchange

test('the exchange answers the key once with the exact headers, stores only its hash, and emits connectionsChanged', async () => {
  const { code } = await codeFor(alice)
  const woke = app.service.wake.next()
  const got = await exchange(code)
  expectJson(got, 200)
  assert.equal(got.headers['content-type'], 'application/json; charset=utf-8')
  assert.equal(got.headers['cache-control'], 'no-store')
  assert.deepEqual(Object.keys(got.body).sort(), ['api', 'key', 'project', 'title'])
  assert.match(got.body.key, /^tk_[A-Za-z0-9_-]{43}$/)
  assert.deepEqual(
    [got.body.project, got.body.title, got.body.api],
    [demo.slug, 'Demo', 'http://localhost:3002/api'],
  )
  const [row] = await app.sql`select * from connections where hash = ${sha256(got.body.key)}`
  assert.ok(row)
  assert.deepEqual(
    [row.project_id, row.user_id, row.app, row.label, row.last_used],
    [demo.id, alice.id, 'scheduler', 'Nightly scheduler', null],
  )
  assert.ok(
    !JSON.stringify(await app.sql`select * from connections`).includes(got.body.key),
    'the key is not stored',
  )
  const [used] = await app.sql`select used from connect_codes where hash = ${sha256(code)}`
  assert.notEqual(used!.used, null)
  const last = (await app.events()).at(-1)!
  assert.deepEqual(last, { name: 'connectionsChanged', args: [demo.slug], project_id: demo.id })
  const woken = await Promise.race([
    woke.then(() => true),
    new Promise((r) => setImmediate(() => r(false))),
  ])
  assert.equal(woken, true, 'live pollers are woken after the commit')
  expectJson(await exchange(code), 400, BAD_CODE)
})

test('20 parallel exchanges of one code: exactly one gets the key, 19 get 400 code', async () => {
  const { code } = await codeFor(alice)
  const before = (await app.events()).length
  const connectionsBefore = (await app.sql`select count(*)::int as n from connections`)[0]!
    .n as number
  const answers = await Promise.all(Array.from({ length: 20 }, () => exchange(code)))
  const won = answers.filter((a) => a.status === 200)
  assert.equal(won.length, 1)
  for (const a of answers.filter((a) => a.status !== 200)) expectJson(a, 400, BAD_CODE)
  const [n] =
    await app.sql`select count(*)::int as n from connections where hash = ${sha256(won[0]!.body.key)}`
  assert.equal(n!.n, 1)
  const connectionsAfter = (await app.sql`select count(*)::int as n from connections`)[0]!
    .n as number
  assert.equal(connectionsAfter, connectionsBefore + 1, 'one connection is stored')
  assert.equal(
    (await app.events()).slice(before).filter((e) => e.name === 'connectionsChanged').length,
    1,
  )
})

test('a code older than 5 minutes is refused; one just younger works', async () => {
  const old = await codeFor(alice)
  const young = await codeFor(alice)
  app.clock.advance(CODE_MS - 1)
  expectJson(await exchange(young.code), 200)
  app.clock.advance(1)
  expectJson(await exchange(old.code), 400, BAD_CODE)
})

test('the exchange needs no credential and checks method, body, then the code', async () => {
  expectJson(await app.call('GET', '/api/connect/exchange'), 405, { error: 'POST only' })
  expectJson(await app.call('POST', '/api/connect/exchange'), 400, {
    error: "'code' is required",
    field: 'code',
  })
  expectJson(await app.call('POST', '/api/connect/exchange', { raw: '{"code":' }), 400, {
    error: 'invalid JSON at character 8',
    field: 'body',
  })
  expectJson(await exchange(42), 400, { error: "'code' must be a string", field: 'code' })
  expectJson(await exchange(''), 400, { error: "'code' is required", field: 'code' })
  expectJson(
    await app.call('POST', '/api/connect/exchange', { body: { code: 'x', key: 'y' } }),
    400,
    { error: "unknown field 'key'", field: 'key' },
  )
  expectJson(await exchange('never-issued'), 400, BAD_CODE)
  const { code } = await codeFor(alice)
  expectJson(
    await app.call('POST', '/api/connect/exchange', { token: 'tt_whatever', body: { code } }),
    200,
  )
})

// Project keys

test('a key creates tickets, comments and changes state in its project as the confirming person, its events carrying the label', async () => {
  const { key } = await connect(alice, demo.slug, 'Build bot')
  const made = await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
    token: key,
    body: { subject: 'From the app' },
  })
  expectJson(made, 201)
  assert.equal(made.body.ticket.author.id, alice.id)
  const viaGlobal = await app.call('POST', '/api/tickets', {
    token: key,
    body: { project: demo.id, subject: 'Also from the app' },
  })
  expectJson(viaGlobal, 201)
  const t = made.body.ticket
  const commented = await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: key,
    body: { text: 'built' },
  })
  expectJson(commented, 201)
  assert.deepEqual(
    [commented.body.event.by, commented.body.event.user, commented.body.event.app],
    ['alice', alice.id, 'Build bot'],
  )
  const moved = await app.call('POST', `/api/projects/${demo.slug}/tickets/${t.number}/state`, {
    token: key,
    body: { state: 'doing' },
  })
  expectJson(moved, 201)
  assert.equal(moved.body.event.app, 'Build bot')
  assert.equal(moved.body.assignEvent.app, 'Build bot')
  const byPerson = await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: alice.token,
    body: { text: 'thanks' },
  })
  assert.equal(byPerson.body.event.app, null)
  const shown = await app.call('GET', `/api/tickets/${t.id}`)
  assert.deepEqual(
    shown.body.events.map((e: { kind: string; app: string | null }) => [e.kind, e.app]),
    [
      ['comment', 'Build bot'],
      ['state', 'Build bot'],
      ['assign', 'Build bot'],
      ['comment', null],
    ],
  )
  const stored =
    await app.sql`select kind, app from ticket_events where ticket_id = ${t.id} order by id`
  assert.deepEqual(
    stored.map((r) => r.app),
    ['Build bot', 'Build bot', 'Build bot', null],
  )
  const live = (await app.events()).filter(
    (e) => e.name === 'ticketEvent' && (e.args[0] as string) === t.id,
  )
  assert.deepEqual(
    live.map((e) => (e.args[1] as { app: string | null }).app),
    ['Build bot', 'Build bot', 'Build bot', null],
  )
})

test("the ticket's page and its Markdown name the app beside the person for the events it made", async () => {
  const { key } = await connect(alice, demo.slug, 'Build <bot>')
  const made = await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
    token: key,
    body: { subject: 'Shown with its app' },
  })
  const t = made.body.ticket
  await app.call('POST', `/api/tickets/${t.id}/comments`, { token: key, body: { text: 'built' } })
  await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: alice.token,
    body: { text: 'thanks' },
  })
  const markdown = await app.call('GET', `/api/projects/${demo.slug}/tickets/${t.number}`, {
    headers: { accept: 'text/markdown' },
  })
  const history = markdown.text.split('\n').filter((line) => line.startsWith('- 20'))
  assert.deepEqual(
    history.map((line) => line.replace(/^- \S+ \S+ UTC /, '')),
    ['alice (via Build <bot>) commented:', 'alice commented:'],
  )
  const page = await app.call('GET', `/${demo.slug}/${t.number}`)
  assert.equal(page.status, 200)
  assert.match(
    page.text,
    /<b>alice<\/b> <span class="pill">via Build &lt;bot&gt;<\/span> commented · <time[^>]*>[^<]*<\/time><\/div>\n<div class="bubble markdown"><p>built<\/p>/,
  )
  assert.match(
    page.text,
    /<b>alice<\/b> commented · <time[^>]*>[^<]*<\/time><\/div>\n<div class="bubble markdown"><p>thanks<\/p>/,
  )
})

test('a key used outside its project answers 403', async () => {
  const { key } = await connect(alice)
  const elsewhere = await app.ticket(bob, other.slug)
  const refusal = { error: 'this project key belongs to another project', field: 'project' }
  expectJson(
    await app.call('POST', `/api/projects/${other.slug}/tickets`, {
      token: key,
      body: { subject: 'x' },
    }),
    403,
    refusal,
  )
  expectJson(
    await app.call('POST', '/api/tickets', {
      token: key,
      body: { project: other.slug, subject: 'x' },
    }),
    403,
    refusal,
  )
  expectJson(
    await app.call('POST', `/api/tickets/${elsewhere.id}/comments`, {
      token: key,
      body: { text: 'x' },
    }),
    403,
    refusal,
  )
  expectJson(
    await app.call('POST', `/api/tickets/${elsewhere.id}/state`, {
      token: key,
      body: { state: 'done' },
    }),
    403,
    refusal,
  )
  assert.equal(
    (await app.sql`select 1 from ticket_events where ticket_id = ${elsewhere.id}`).length,
    0,
  )
})

test('a key whose confirming person is no longer a member of the project is refused', async () => {
  const dana = await app.login('dana')
  await app.member(alice, demo.slug, dana, 'admin')
  const { key } = await connect(dana)
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: key,
      body: { subject: 'while dana is here' },
    }),
    201,
  )
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/members/remove`, {
      token: alice.token,
      body: { user: dana.id },
    }),
    200,
  )
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: key,
      body: { subject: 'after' },
    }),
    403,
    {
      error: 'the person who connected this app is no longer a member of this project',
      field: 'project',
    },
  )
  await app.member(alice, demo.slug, dana, 'use')
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: key,
      body: { subject: 'back again' },
    }),
    201,
  )
})

test('a key on a Group B route answers 401 a user token is needed', async () => {
  const { key } = await connect(alice)
  const t = await app.ticket(alice, demo.slug)
  const nonce = nonceOf(await start())
  const routes: [string, string, unknown][] = [
    ['POST', `/api/tickets/${t.id}/assign`, { assignee: '' }],
    ['POST', `/api/tickets/${t.id}/edit`, { subject: 'y' }],
    ['POST', `/api/tickets/${t.id}/parent`, { parent: '' }],
    ['POST', `/api/tickets/${t.id}/blocked-by`, { add: 'x' }],
    ['POST', '/api/projects', { title: 'By a key' }],
    ['POST', `/api/projects/${demo.slug}`, { title: 'x' }],
    ['POST', `/api/projects/${demo.slug}/members`, { user: bob.id, role: 'admin' }],
    ['POST', `/api/projects/${demo.slug}/invites`, { role: 'admin' }],
    ['POST', `/api/projects/${demo.slug}/connections/remove`, { id: 'x' }],
    ['POST', `/api/connect/${nonce}/confirm`, { project: demo.slug }],
    ['POST', '/api/tokens', { label: 'x' }],
    ['GET', '/api/tokens', undefined],
    ['GET', '/api/inbox', undefined],
  ]
  for (const [method, path, body] of routes) {
    expectJson(await app.call(method, path, { token: key, body }), 401, {
      error: 'a user token is needed',
    })
  }
})

test("a key's lastUsed is kept like a token's, at most once a minute, and shown in the connections list", async () => {
  const { key } = await connect(alice, demo.slug, 'Counter')
  const [row] = await app.sql`select id from connections where hash = ${sha256(key)}`
  const id = row!.id as string
  const first = app.clock.now()
  await app.ticket({ ...alice, token: key }, demo.slug)
  assert.equal(Number((await connectionRow(id))!.last_used), first)
  app.clock.advance(30_000)
  await app.ticket({ ...alice, token: key }, demo.slug)
  assert.equal(Number((await connectionRow(id))!.last_used), first)
  app.clock.advance(30_000)
  await app.ticket({ ...alice, token: key }, demo.slug)
  assert.equal(Number((await connectionRow(id))!.last_used), first + 60_000)
  const listed = await app.call('GET', `/api/projects/${demo.slug}/connections`)
  assert.equal(
    listed.body.connections.find((c: { id: string }) => c.id === id).lastUsed,
    first + 60_000,
  )
})

// Connections list and removal

test('the connections list is public, shows rows { id, app, label, by, created, lastUsed } and never a key', async () => {
  const project = await app.project(alice, 'Listed')
  const { key } = await connect(alice, project.slug, 'Lister')
  const listed = await app.call('GET', `/api/projects/${project.slug}/connections`)
  expectJson(listed, 200)
  assert.equal(listed.body.connections.length, 1)
  const [c] = listed.body.connections
  assert.deepEqual(Object.keys(c).sort(), ['app', 'by', 'created', 'id', 'label', 'lastUsed'])
  assert.deepEqual(
    [c.app, c.label, c.by, c.created, c.lastUsed],
    ['scheduler', 'Lister', { id: alice.id, name: 'alice' }, app.clock.now(), null],
  )
  assert.ok(!listed.text.includes(key) && !listed.text.includes(sha256(key)))
  assert.deepEqual(
    (await app.call('GET', `/api/projects/${project.id}/connections`)).body,
    listed.body,
    'by id as by slug',
  )
  expectJson(await app.call('GET', '/api/projects/no-such/connections'), 404, {
    error: 'no such project',
  })
  expectJson(
    await app.call('POST', `/api/projects/${project.slug}/connections`, { token: alice.token }),
    405,
    { error: 'GET only' },
  )
})

test('removing a connection is refused in the order method, credential, body, project, role, then the id', async () => {
  const project = await app.project(alice, 'Removals')
  await app.member(alice, project.slug, bob, 'edit')
  const { key } = await connect(alice, project.slug)
  const [row] = await app.sql`select id from connections where hash = ${sha256(key)}`
  const path = `/api/projects/${project.slug}/connections/remove`
  const carol = await app.login('carol')
  const elsewhere = await connect(alice, demo.slug)
  const [foreign] = await app.sql`select id from connections where hash = ${sha256(elsewhere.key)}`
  expectJson(await app.call('GET', path), 405, { error: 'POST only' })
  expectJson(await app.call('POST', path, { body: { id: row!.id } }), 401, {
    error: 'a token is needed',
  })
  expectJson(await app.call('POST', path, { token: key, body: { id: row!.id } }), 401, {
    error: 'a user token is needed',
  })
  expectJson(await app.call('POST', path, { token: alice.token, raw: '[' }), 400, {
    error: 'invalid JSON at character 1',
    field: 'body',
  })
  expectJson(await app.call('POST', path, { token: alice.token, body: {} }), 400, {
    error: "'id' is required",
    field: 'id',
  })
  expectJson(
    await app.call('POST', '/api/projects/no-such/connections/remove', {
      token: alice.token,
      body: { id: row!.id },
    }),
    404,
    { error: 'no such project' },
  )
  expectJson(await app.call('POST', path, { token: bob.token, body: { id: row!.id } }), 403, {
    error: 'this needs role admin',
    field: 'project',
  })
  expectJson(await app.call('POST', path, { token: carol.token, body: { id: 'nothing' } }), 403, {
    error: 'you are not a member of this project',
    field: 'project',
  })
  expectJson(await app.call('POST', path, { token: alice.token, body: { id: 'nothing' } }), 400, {
    error: 'no such connection in this project',
    field: 'id',
  })
  expectJson(await app.call('POST', path, { token: alice.token, body: { id: foreign!.id } }), 400, {
    error: 'no such connection in this project',
    field: 'id',
  })
  assert.ok(await connectionRow(row!.id as string), 'nothing was removed')
  assert.ok(await connectionRow(foreign!.id as string))
})

test('a removed connection emits connectionsChanged and its key gets 401 on its next request', async () => {
  const project = await app.project(alice, 'Revoked')
  const { key } = await connect(alice, project.slug, 'Doomed')
  const { key: kept } = await connect(alice, project.slug, 'Kept')
  expectJson(
    await app.call('POST', `/api/projects/${project.slug}/tickets`, {
      token: key,
      body: { subject: 'before' },
    }),
    201,
  )
  const [row] = await app.sql`select id from connections where hash = ${sha256(key)}`
  const woke = app.service.wake.next()
  const removed = await app.call('POST', `/api/projects/${project.slug}/connections/remove`, {
    headers: asPage(alice),
    body: { id: row!.id },
  })
  expectJson(removed, 200)
  assert.equal(removed.body.removed.id, row!.id)
  assert.equal(removed.body.removed.label, 'Doomed')
  assert.deepEqual(
    removed.body.connections.map((c: { label: string }) => c.label),
    ['Kept'],
  )
  assert.deepEqual((await app.events()).at(-1), {
    name: 'connectionsChanged',
    args: [project.slug],
    project_id: project.id,
  })
  assert.equal(
    await Promise.race([woke.then(() => true), new Promise((r) => setImmediate(() => r(false)))]),
    true,
  )
  expectJson(
    await app.call('POST', `/api/projects/${project.slug}/tickets`, {
      token: key,
      body: { subject: 'after' },
    }),
    401,
    { error: 'bad or revoked token' },
  )
  expectJson(
    await app.call('POST', `/api/projects/${project.slug}/tickets`, {
      token: kept,
      body: { subject: 'still here' },
    }),
    201,
  )
  assert.deepEqual(
    (await app.call('GET', `/api/projects/${project.slug}/connections`)).body.connections.map(
      (c: { label: string }) => c.label,
    ),
    ['Kept'],
  )
})

test('the whole flow with a Unicode label: request, page, confirm, exchange, a ticket through the key', async () => {
  const label = 'Zürich 🙂 sync'
  const nonce = nonceOf(await start({ label, state: 'résumé' }))
  const page = await app.call('GET', `/connect/${nonce}`, { headers: asPage(alice) })
  assert.ok(page.text.includes(label))
  const confirmed = await confirm(alice, nonce, { project: demo.slug })
  const location = new URL(confirmed.body.location)
  assert.equal(location.searchParams.get('state'), 'résumé')
  const got = await exchange(location.searchParams.get('code'))
  expectJson(got, 200)
  const t = await app.ticket({ ...alice, token: got.body.key }, demo.slug)
  const commented = await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: got.body.key,
    body: { text: 'hi' },
  })
  assert.equal(commented.body.event.app, label)
})

test('the connect page offers Cancel, back to the app with error=access_denied and its state', async () => {
  const nonce = nonceOf(await start({ state: 'a b&c' }))
  const signedOut = await app.call('GET', `/connect/${nonce}`)
  const cancel = `${RETURN}?error=access_denied&amp;state=a+b%26c`
  assert.ok(
    signedOut.text.includes(`<a class="button" href="${cancel}">Cancel</a>`),
    signedOut.text,
  )
  const signedIn = await app.call('GET', `/connect/${nonce}`, { headers: { cookie: alice.cookie } })
  assert.ok(signedIn.text.includes(`<a class="button" href="${cancel}">Cancel</a>`), signedIn.text)
  assert.ok(signedIn.text.includes('<label for="connect-title">Title</label>'))
  assert.match(String(signedIn.headers['content-security-policy']), /style-src 'self'/)
})
