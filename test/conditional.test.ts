/**
 * Conditional GETs (src/http/conditional.ts): `If-None-Match` read as RFC 9110 says, the `ETag` every
 * GET of JSON or Markdown gets from the dispatcher, and the 304 as a client receives it.
 */
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { test } from 'node:test'
import { conditional, etagOf, matches } from '../src/http/conditional.ts'
import { createHandler, type HttpRoute } from '../src/http/handler.ts'
import { serve } from '../src/http/server.ts'
import { createLogger } from '../src/base/log.ts'
import { makeRequest } from '../src/http/request.ts'
import { bodyText, json, jsonStream, text, type Response } from '../src/http/response.ts'

const TAG = '"abc"'

test('If-None-Match matches by the weak comparison, in a list, or as *', () => {
  const cases: [string, boolean][] = [
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc" ,', true],
    [', ,"abc"', true],
    ['\t"x"\t,\t"abc"\t', true],
    ['*', true],
    [' * ', true],
    ['"abcd"', false],
    ['"ab"', false],
    ['"x", "y"', false],
    ['', false],
    ['abc', false],
    ['"abc', false],
    ['"abc" "x"', false],
    ['w/"abc"', false],
    ['*, "abc"', false],
    ['"x", *', false],
    ['"a c"', false],
  ]
  for (const [field, want] of cases) assert.equal(matches(field, TAG), want, field)
  assert.equal(matches('"abc"', 'W/"abc"'), true, 'a weak tag of ours matches its strong form')
  assert.equal(matches(undefined, TAG), false)
})

test('etagOf gives the same strong tag for the same bytes, another for others', () => {
  assert.equal(etagOf('{"a":1}'), etagOf(new TextEncoder().encode('{"a":1}')))
  assert.notEqual(etagOf('{"a":1}'), etagOf('{"a":2}'))
  assert.match(etagOf(''), /^"[A-Za-z0-9_-]{20}"$/)
})

const routes: HttpRoute[] = [
  {
    method: 'GET',
    path: '/json',
    handler: () => json(200, { hello: 'world' }, { 'cache-control': 'no-store' }),
  },
  {
    method: 'GET',
    path: '/markdown',
    handler: async () => ({
      status: 200,
      headers: { 'content-type': 'text/markdown; charset=utf-8' },
      body: '# hi\n',
    }),
  },
  { method: 'GET', path: '/own', handler: () => json(200, { v: 1 }, { etag: 'W/"v1"' }) },
  {
    method: 'GET',
    path: '/html',
    handler: () => ({
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: '<p>hi</p>',
    }),
  },
  { method: 'GET', path: '/text', handler: () => text(200, 'hi') },
  { method: 'GET', path: '/missing', handler: () => json(404, { error: 'no such thing' }) },
  { method: 'POST', path: '/json', handler: () => json(200, { hello: 'world' }) },
]
const handler = createHandler(routes, { name: 'test', logger: createLogger(null) })

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return handler(makeRequest({ method, url, headers }))
}

test('a GET answered 200 with JSON or Markdown carries an ETag of its body', async () => {
  const answer = await get('/json')
  assert.equal(answer.headers?.etag, etagOf('{"hello":"world"}'))
  assert.equal((await get('/markdown')).headers?.etag, etagOf('# hi\n'))
  assert.equal((await get('/json', {}, 'HEAD')).headers?.etag, answer.headers?.etag)
})

test('no ETag on other answers: a POST, a 404, HTML and plain text', async () => {
  assert.equal((await get('/json', {}, 'POST')).headers?.etag, undefined)
  assert.equal((await get('/missing')).headers?.etag, undefined)
  assert.equal((await get('/html')).headers?.etag, undefined)
  assert.equal((await get('/text')).headers?.etag, undefined)
})

test('a matching If-None-Match answers 304 with the ETag and Cache-Control, no body and no content type', async () => {
  const tag = (await get('/json')).headers!.etag as string
  for (const field of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
    const answer = await get('/json', { 'if-none-match': field })
    assert.equal(answer.status, 304, field)
    assert.equal(answer.body, undefined)
    assert.equal(answer.headers?.etag, tag)
    assert.equal(answer.headers?.['cache-control'], 'no-store')
    assert.equal(answer.headers?.['content-type'], undefined)
    assert.equal(answer.headers?.['content-length'], undefined)
  }
  assert.equal((await get('/json', { 'if-none-match': '"other"' })).status, 200)
  assert.equal((await get('/json', { 'if-none-match': tag }, 'HEAD')).status, 304)
})

test("a handler's own ETag is kept and compared", async () => {
  assert.equal((await get('/own')).headers?.etag, 'W/"v1"')
  assert.equal((await get('/own', { 'if-none-match': '"v1"' })).status, 304)
})

test('If-None-Match never turns a POST or an error into a 304', async () => {
  assert.equal((await get('/json', { 'if-none-match': '*' }, 'POST')).status, 200)
  assert.equal((await get('/missing', { 'if-none-match': '*' })).status, 404)
  const refused = json(404, { error: 'x' })
  assert.equal(conditional(makeRequest({ headers: { 'if-none-match': '*' } }), refused), refused)
})

test('over a socket the 304 has no body and no Content-Length', async () => {
  const served = await serve({
    name: 'test',
    routes,
    host: '127.0.0.1',
    port: 0,
    graceMs: 0, // no request is on its way when the tests close it
    logger: createLogger(null),
  })
  try {
    const tag = (await get('/json')).headers!.etag as string
    const got = await new Promise<{
      status: number
      headers: Record<string, unknown>
      body: string
    }>((resolve, reject) => {
      request(`${served.url}/json`, { headers: { 'if-none-match': tag } }, (res) => {
        let body = ''
        res.on('data', (c) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
      })
        .on('error', reject)
        .end()
    })
    assert.equal(got.status, 304)
    assert.equal(got.body, '')
    assert.equal(got.headers.etag, tag)
    assert.equal(got.headers['content-length'], undefined)
    assert.equal(got.headers['transfer-encoding'], undefined)
  } finally {
    await served.close()
  }
})

test('a streamed body is never read for a tag: without its own ETag it has none, with one a match answers 304 unread', async () => {
  let reads = 0
  async function* rows() {
    reads++
    yield [{ n: 1 }]
  }
  const streamed = createHandler(
    [
      { method: 'GET', path: '/plain', handler: () => jsonStream(200, 'items', rows()) },
      {
        method: 'GET',
        path: '/tagged',
        handler: () => jsonStream(200, 'items', rows(), { etag: '"v7"' }),
      },
    ],
    { name: 'test', logger: createLogger(null) },
  )
  const plain = await streamed(makeRequest({ method: 'GET', url: '/plain' }))
  assert.equal(plain.headers?.etag, undefined)
  assert.equal(reads, 0)
  const matched = await streamed(
    makeRequest({ method: 'GET', url: '/tagged', headers: { 'if-none-match': '"v7"' } }),
  )
  assert.equal(matched.status, 304)
  assert.equal(matched.body, undefined)
  assert.equal(reads, 0)
  const full = await streamed(makeRequest({ method: 'GET', url: '/tagged' }))
  assert.equal(full.headers?.etag, '"v7"')
  assert.equal(await bodyText(full.body), '{"items":[{"n":1}]}')
})
