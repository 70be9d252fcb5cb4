import { test } from 'node:test'
import assert from 'node:assert/strict'
import { etagOf } from '../src/http/conditional.ts'
import { createHandler, type HandlerOptions, type HttpRoute } from '../src/http/handler.ts'
import { createRateLimiter } from '../src/limits/rate-limit.ts'
import { makeRequest } from '../src/http/request.ts'
import { json, text, type Response } from '../src/http/response.ts'
import { reason, refuse } from '../src/http/refusal.ts'

function handlerOf(routes: HttpRoute[], extra: Partial<HandlerOptions> = {}) {
  const lines: string[] = []
  const handler = createHandler(routes, {
    name: 'demo',
    logger: { line: (l) => void lines.push(l), flush() {} },
    ...extra,
  })
  return { handler, lines }
}

// These routes answer whole bodies, never streams.
const bodyOf = (body: Response['body']) =>
  typeof body === 'string' ? body : new TextDecoder().decode(body as Uint8Array | undefined)

test('createHandler routes a request to its handler with its params', async () => {
  const { handler } = handlerOf([
    { method: 'GET', path: '/hello/:name', handler: (req) => json(200, { hi: req.params.name }) },
  ])
  const res = await handler(makeRequest({ url: '/hello/ada%20l?x=1' }))
  assert.equal(res.status, 200)
  assert.deepEqual(JSON.parse(bodyOf(res.body)), { hi: 'ada l' })
})

test('createHandler answers 404 for an unknown path and 405 with the allowed methods for another method', async () => {
  const { handler } = handlerOf([
    { method: 'GET', path: '/only-get', handler: () => json(200, {}) },
  ])
  const missing = await handler(makeRequest({ url: '/nothing' }))
  assert.equal(missing.status, 404)
  assert.deepEqual(JSON.parse(bodyOf(missing.body)), { error: 'not found' })
  const wrong = await handler(makeRequest({ method: 'POST', url: '/only-get' }))
  assert.equal(wrong.status, 405)
  assert.deepEqual(JSON.parse(bodyOf(wrong.body)), { error: 'GET only' })
  assert.equal(wrong.headers?.allow, 'GET, HEAD')
})

test('createHandler answers unknown paths with the given notFound handler', async () => {
  const { handler } = handlerOf([], { notFound: (req) => text(404, `no ${req.path}`) })
  const res = await handler(makeRequest({ url: '/gone?q=1' }))
  assert.equal(res.status, 404)
  assert.equal(res.body, 'no /gone')
})

test('GET /healthz answers 200 when ready, 503 when not or when the check fails', async () => {
  let state: 'up' | 'down' | 'broken' = 'up'
  const ready = async () =>
    state === 'broken' ? Promise.reject(new Error('no database')) : state === 'up'
  const { handler } = handlerOf([], { ready })
  const ok = await handler(makeRequest({ url: '/healthz' }))
  assert.equal(ok.status, 200)
  assert.deepEqual(JSON.parse(bodyOf(ok.body)), { ok: true })
  state = 'down'
  assert.equal((await handler(makeRequest({ method: 'HEAD', url: '/healthz' }))).status, 503)
  state = 'broken'
  const broken = await handler(makeRequest({ url: '/healthz' }))
  assert.equal(broken.status, 503)
  assert.deepEqual(JSON.parse(bodyOf(broken.body)), { ok: false })
})

test('GET /healthz ready is answered with its tag and a 304 when the tag is named; a readiness that throws answers 503', async () => {
  let throws = false
  const { handler } = handlerOf([], {
    ready: () => {
      if (throws) throw new Error('no database')
      return true
    },
  })
  const ok = await handler(makeRequest({ url: '/healthz' }))
  assert.equal(ok.status, 200)
  assert.equal(ok.headers?.etag, etagOf('{"ok":true}'))
  const notModified = await handler(
    makeRequest({ url: '/healthz', headers: { 'if-none-match': etagOf('{"ok":true}') } }),
  )
  assert.equal(notModified.status, 304)
  throws = true
  const down = await handler(makeRequest({ url: '/healthz' }))
  assert.equal(down.status, 503)
  assert.deepEqual(JSON.parse(bodyOf(down.body)), { ok: false })
})

test('an unexpected exception, thrown or rejected, becomes a logged 500 with a generic body', async () => {
  const { handler, lines } = handlerOf([
    {
      method: 'GET',
      path: '/throws',
      handler: () => {
        throw new Error('secret detail')
      },
    },
    {
      method: 'GET',
      path: '/rejects',
      handler: async () => Promise.reject(new Error('other detail')),
    },
  ])
  for (const url of ['/throws', '/rejects']) {
    const res = await handler(makeRequest({ url }))
    assert.equal(res.status, 500)
    assert.deepEqual(JSON.parse(bodyOf(res.body)), { error: 'internal error' })
    assert.doesNotMatch(bodyOf(res.body), /detail/)
  }
  assert.equal(lines.length, 2)
  assert.match(lines[0]!, /^demo error: Error: secret detail/)
  assert.match(lines[1]!, /^demo error: Error: other detail/)
})

test('a thrown refusal is answered as it is, with its code, without a log line', async () => {
  const { handler, lines } = handlerOf([
    {
      method: 'POST',
      path: '/big',
      handler: async (req) => json(200, { bytes: (await req.body()).length }),
    },
    {
      method: 'GET',
      path: '/gone',
      handler: () => {
        throw refuse(404, reason('not_found', 'no such thing'))
      },
    },
  ])
  const big = await handler(
    makeRequest({ method: 'POST', url: '/big', body: new Uint8Array(2 * 1024 * 1024 + 1) }),
  )
  assert.equal(big.status, 413)
  assert.deepEqual(JSON.parse(bodyOf(big.body)), { error: 'body too large' })
  assert.equal(big.headers!['x-error-code'], 'body_too_large')
  assert.equal(big.headers!.connection, 'close')
  const gone = await handler(makeRequest({ url: '/gone' }))
  assert.equal(gone.status, 404)
  assert.deepEqual(JSON.parse(bodyOf(gone.body)), { error: 'no such thing' })
  assert.equal(gone.headers!['x-error-code'], 'not_found')
  assert.equal(gone.headers!.connection, undefined)
  assert.deepEqual(lines, [])
})

test("createHandler counts each request in its route's rate-limit class, unknown paths too, and never /healthz", async () => {
  const limiter = createRateLimiter({
    limits: { api: { rate: 0.001, burst: 3 }, signin: { rate: 0.001, burst: 1 } },
    clock: () => 0,
  })
  const { handler } = handlerOf(
    [
      { method: 'GET', path: '/read', handler: () => json(200, {}) },
      { method: 'GET', path: '/login', handler: () => json(200, {}), rateLimit: 'signin' },
    ],
    { limiter },
  )
  const status = async (url: string) =>
    (await handler(makeRequest({ url, address: '192.0.2.7' }))).status
  assert.deepEqual([await status('/login'), await status('/login')], [200, 429])
  assert.deepEqual(
    [await status('/read'), await status('/nothing'), await status('/read'), await status('/read')],
    [200, 404, 200, 429],
  )
  assert.equal(await status('/nothing'), 429)
  assert.equal(await status('/healthz'), 200)
})
