import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createDevIdentityProvider, devUserId } from '../src/accounts/dev-idp.ts'
import { serve } from '../src/http/server.ts'
import type { HttpRoute } from '../src/http/handler.ts'
import { makeRequest } from '../src/http/request.ts'
import { createIdentityProvider, loginFailed, safeNext } from '../src/auth/idp.ts'
import { createLogger } from '../src/base/log.ts'
import { createRouter } from '../src/http/router.ts'

async function devProvider(clock?: () => number) {
  const dev = createDevIdentityProvider({ apiKey: 'dev-key', apiSecret: 'dev-secret', clock })
  const served = await serve({
    name: 'dev-idp',
    routes: dev.routes,
    host: '127.0.0.1',
    port: 0,
    graceMs: 0, // no request is on its way when the tests close it
    logger: createLogger(null),
  })
  return { served, dev }
}

async function codeFrom(url: string, name: string): Promise<string> {
  const res = await fetch(
    `${url}/login?key=dev-key&return=${encodeURIComponent('http://localhost:3001/login/callback?next=/x')}&name=${name}`,
    { redirect: 'manual' },
  )
  assert.equal(res.status, 302)
  const location = new URL(res.headers.get('location')!)
  assert.equal(location.origin + location.pathname, 'http://localhost:3001/login/callback')
  assert.equal(location.searchParams.get('next'), '/x')
  return location.searchParams.get('idp_code')!
}

test('the development provider redirects with a code that the exchange client turns into an identity', async (t) => {
  const { served } = await devProvider()
  t.after(() => served.close())
  const idp = createIdentityProvider({
    authUrl: served.url,
    apiKey: 'dev-key',
    apiSecret: 'dev-secret',
  })
  const result = await idp.exchange(await codeFrom(served.url, 'alice'))
  assert.deepEqual(result, { ok: true, identity: { id: devUserId('alice'), name: 'alice' } })
})

test('a development login code works once', async (t) => {
  const { served } = await devProvider()
  t.after(() => served.close())
  const idp = createIdentityProvider({
    authUrl: served.url,
    apiKey: 'dev-key',
    apiSecret: 'dev-secret',
  })
  const code = await codeFrom(served.url, 'bob')
  assert.equal((await idp.exchange(code)).ok, true)
  assert.deepEqual(await idp.exchange(code), loginFailed('login code unknown, used or expired'))
})

test('a development login code expires after 60 seconds', async (t) => {
  let now = 0
  const { served } = await devProvider(() => now)
  t.after(() => served.close())
  const idp = createIdentityProvider({
    authUrl: served.url,
    apiKey: 'dev-key',
    apiSecret: 'dev-secret',
  })
  const code = await codeFrom(served.url, 'carol')
  now += 60_001
  assert.deepEqual(await idp.exchange(code), loginFailed('login code unknown, used or expired'))
})

test('the development provider refuses a wrong app secret and another app key', async (t) => {
  const { served } = await devProvider()
  t.after(() => served.close())
  const wrong = createIdentityProvider({
    authUrl: served.url,
    apiKey: 'dev-key',
    apiSecret: 'nope',
  })
  assert.deepEqual(
    await wrong.exchange(await codeFrom(served.url, 'dave')),
    loginFailed('unknown app key or wrong secret'),
  )
  const page = await fetch(`${served.url}/login?key=other&return=http://localhost/`)
  assert.equal(page.status, 400)
  assert.match(await page.text(), /app key is not known/)
})

test('the development provider page asks for a name and says it is for development only', async (t) => {
  const { served } = await devProvider()
  t.after(() => served.close())
  const res = await fetch(
    `${served.url}/login?key=dev-key&return=${encodeURIComponent('http://localhost:3001/cb?a="b"')}`,
  )
  assert.equal(res.status, 200)
  const page = await res.text()
  assert.match(page, /Development only/)
  assert.match(page, /<input id="name" name="name"/)
  assert.match(page, /value="http:\/\/localhost:3001\/cb\?a=&quot;b&quot;"/)
})

test('the exchange client answers the error text the provider gives', async (t) => {
  const server = createServer((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: 'code already used' }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.after(() => server.close())
  const idp = createIdentityProvider({
    authUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'k',
    apiSecret: 's',
  })
  assert.deepEqual(await idp.exchange('c'), loginFailed('code already used'))
})

test('the exchange client names the status when the provider gives no error text, and refuses a malformed identity', async (t) => {
  let answer = { status: 502, body: '<html>bad gateway</html>' }
  const server = createServer((_req, res) => {
    res.writeHead(answer.status)
    res.end(answer.body)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.after(() => server.close())
  const idp = createIdentityProvider({
    authUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'k',
    apiSecret: 's',
  })
  assert.deepEqual(await idp.exchange('c'), loginFailed('idp answered 502'))
  answer = { status: 200, body: JSON.stringify({ name: 'no id' }) }
  assert.deepEqual(await idp.exchange('c'), loginFailed('idp sent no usable identity'))
})

test('the exchange client answers idp unreachable when nothing listens or no answer comes in time', async (t) => {
  const closed = createIdentityProvider({
    authUrl: 'http://127.0.0.1:1',
    apiKey: 'k',
    apiSecret: 's',
  })
  assert.deepEqual(await closed.exchange('c'), loginFailed('idp unreachable'))
  const server = createServer(() => {}) // never answers
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.after(() => {
    server.closeAllConnections()
    server.close()
  })
  const silent = createIdentityProvider({
    authUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'k',
    apiSecret: 's',
    timeoutMs: 100,
  })
  assert.deepEqual(await silent.exchange('c'), loginFailed('idp unreachable'))
})

test('loginUrl carries the app key and the url-encoded return address', () => {
  const idp = createIdentityProvider({
    authUrl: 'https://id.example/',
    apiKey: 'my key',
    apiSecret: 's',
  })
  assert.equal(
    idp.loginUrl('https://notes.example/login/callback?next=/a'),
    'https://id.example/login?key=my%20key&return=https%3A%2F%2Fnotes.example%2Flogin%2Fcallback%3Fnext%3D%2Fa',
  )
})

test('safeNext keeps only local paths made of safe characters (tickets interface 4.10 rule 8)', () => {
  const cases: [unknown, string][] = [
    ['/notes?id=a&x=1', '/notes?id=a&x=1'],
    ['/a-b.c_d~e/f?g=h&i=%20+,;@!$()*:', '/a-b.c_d~e/f?g=h&i=%20+,;@!$()*:'],
    ['/', '/'],
    [undefined, '/'],
    [null, '/'],
    [42, '/'],
    ['', '/'],
    ['//evil.example/x', '/'],
    ['/login/failed', '/'],
    ['/login/callback?idp_code=x', '/'],
    ['/loginx', '/loginx'],
    ['https://evil.example/', '/'],
    ['javascript:alert(1)', '/'],
    ['/a\\b', '/'],
    ['/a b', '/'],
    ['/a\nb', '/'],
    ['/a\u0000', '/'],
    ['/caf\u00e9', '/'],
    ['/a#frag', '/'],
    ['/a"b', '/'],
    ['/a<b', '/'],
    ['/' + 'a'.repeat(499), '/' + 'a'.repeat(499)],
    ['/' + 'a'.repeat(500), '/'],
  ]
  for (const [input, expected] of cases)
    assert.equal(safeNext(input), expected, `safeNext(${JSON.stringify(input)})`)
})

test('the development provider routes form a valid table', () => {
  const dev = createDevIdentityProvider({ apiKey: 'k', apiSecret: 's' })
  const router = createRouter<HttpRoute['handler']>(dev.routes)
  assert.equal(router.match('GET', '/login')?.found, true)
  assert.equal(router.match('POST', '/api/exchange')?.found, true)
  assert.ok(makeRequest({ url: '/login' }))
})

test("the exchange client refuses U+0000, lone surrogates and bytes that are not UTF-8 in the provider's answer", async () => {
  const answering = (status: number, body: string | Uint8Array<ArrayBuffer>) =>
    createIdentityProvider({
      authUrl: 'http://idp.test',
      apiKey: 'k',
      apiSecret: 's',
      fetch: async () => new Response(body, { status }),
    })
  const refused = loginFailed('idp sent no usable identity')
  assert.deepEqual(await answering(200, '{"id":"a\\u0000","name":"x"}').exchange('c'), refused)
  assert.deepEqual(await answering(200, '{"id":"a","name":"\\ud800"}').exchange('c'), refused)
  assert.deepEqual(
    await answering(200, '{"id":"a","name":"x","email":"\\udc00@x"}').exchange('c'),
    refused,
  )
  const invalidUtf8 = new Uint8Array([
    ...Buffer.from('{"id":"a","name":"'),
    0xff,
    ...Buffer.from('"}'),
  ])
  assert.deepEqual(await answering(200, invalidUtf8).exchange('c'), refused)
  assert.deepEqual(
    await answering(400, '{"error":"bad\\u0000"}').exchange('c'),
    loginFailed('idp answered 400'),
  )
  assert.deepEqual(
    await answering(403, '{"error":"x\\ud800"}').exchange('c'),
    loginFailed('idp answered 403'),
  )
  assert.deepEqual(await answering(200, '{"id":"a","name":"Zoë 🚀","email":"z@x"}').exchange('c'), {
    ok: true,
    identity: { id: 'a', name: 'Zoë 🚀', email: 'z@x' },
  })
})

test('the exchange client keeps the unique name (login) a provider sends, and leaves out one that is empty, not text or has U+0000', async () => {
  const answering = (body: string) =>
    createIdentityProvider({
      authUrl: 'http://idp.test',
      apiKey: 'k',
      apiSecret: 's',
      fetch: async () => new Response(body, { status: 200 }),
    })
  assert.deepEqual(await answering('{"id":"a","name":"owner","login":"bob"}').exchange('c'), {
    ok: true,
    identity: { id: 'a', name: 'owner', login: 'bob' },
  })
  for (const login of ['""', '42', 'null', '"b\\u0000ob"', '"\\ud800"']) {
    assert.deepEqual(
      await answering(`{"id":"a","name":"owner","login":${login}}`).exchange('c'),
      { ok: true, identity: { id: 'a', name: 'owner' } },
      login,
    )
  }
})

test("the exchange answer marks the provider's owner only with owner: true", async () => {
  const { exchangeResult } = await import('../src/auth/idp.ts')
  assert.deepEqual(exchangeResult(200, { id: 'a', name: 'Olivia', owner: true }), {
    ok: true,
    identity: { id: 'a', name: 'Olivia', owner: true },
  })
  assert.deepEqual(exchangeResult(200, { id: 'b', name: 'Pablo', owner: 'yes' }), {
    ok: true,
    identity: { id: 'b', name: 'Pablo' },
  })
  assert.deepEqual(exchangeResult(200, { id: 'c', name: 'Quinn' }), {
    ok: true,
    identity: { id: 'c', name: 'Quinn' },
  })
})

test("the built-in provider's links carry no key (keyInLinks: false); others' carry it", () => {
  const back = 'http://localhost:3001/login/callback'
  const builtIn = createIdentityProvider({
    authUrl: 'http://localhost:3003',
    apiKey: 'dev-key',
    apiSecret: 's',
    keyInLinks: false,
  })
  assert.equal(
    builtIn.loginUrl(back),
    `http://localhost:3003/login?return=${encodeURIComponent(back)}`,
  )
  const outside = createIdentityProvider({
    authUrl: 'https://id.example',
    apiKey: 'k',
    apiSecret: 's',
  })
  assert.equal(
    outside.loginUrl(back),
    `https://id.example/login?key=k&return=${encodeURIComponent(back)}`,
  )
})
