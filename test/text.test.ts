import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createHandler } from '../src/http/handler.ts'
import { createLogger } from '../src/base/log.ts'
import { makeRequest } from '../src/http/request.ts'
import { json } from '../src/http/response.ts'
import { queryNotUtf8, textDefect } from '../src/http/text.ts'

test('textDefect() finds U+0000 and lone surrogates, and passes surrogate pairs and other controls', () => {
  const cases: [string, ReturnType<typeof textDefect>][] = [
    ['', null],
    ['plain', null],
    ['é 😀 \u0001 \u007f \uffff', null],
    ['\ud83d\ude00', null],
    ['a\u0000b', 'nul'],
    ['\u0000', 'nul'],
    ['x\ud800y', 'surrogate'],
    ['\udc00', 'surrogate'],
    ['ok\ud83d', 'surrogate'],
    ['\ude00\ud83d', 'surrogate'],
    ['\ud800\u0000', 'nul'],
  ]
  for (const [value, defect] of cases)
    assert.equal(textDefect(value), defect, JSON.stringify(value))
})

test('queryNotUtf8() names the first parameter whose percent-escapes are not UTF-8', () => {
  const cases: [string, string | null][] = [
    ['', null],
    ['a=1&b=caf%C3%A9', null],
    ['x=%F0%9F%98%80', null],
    ['a=%ZZ&b=%&c=%4', null],
    ['a=%00', null],
    ['a=%ED%A0%80', 'a'], // an encoded surrogate
    ['a=1&b=%C0%AF', 'b'], // an overlong '/'
    ['a=%FF', 'a'],
    ['a=x%E2%82', 'a'], // cut short
    ['ok=%C3%A9&bad%FF=1', 'bad\ufffd'],
    ['p+q=%80', 'p q'],
    ['%FF', '\ufffd'],
  ]
  for (const [search, name] of cases) assert.equal(queryNotUtf8(search), name, search)
})

test('a query that is not percent-encoded UTF-8 answers 400 naming the parameter, after 404 and 405, before the route', async () => {
  let ran = 0
  const handler = createHandler(
    [{ method: 'GET', path: '/x', handler: () => (ran++, json(200, {})) }],
    { name: 't', logger: createLogger(null) },
  )
  const call = async (method: string, url: string) => {
    const res = await handler(makeRequest({ method, url }))
    return { status: res.status, body: JSON.parse(String(res.body)) }
  }
  assert.deepEqual(await call('GET', '/x?id=%ED%A0%80'), {
    status: 400,
    body: { error: "'id' must be percent-encoded UTF-8", field: 'id' },
  })
  assert.equal((await call('GET', '/nope?id=%FF')).status, 404)
  assert.equal((await call('POST', '/x?id=%FF')).status, 405)
  assert.equal(ran, 0)
  assert.equal((await call('GET', '/x?id=%ZZ&q=caf%C3%A9')).status, 200)
  assert.equal(ran, 1)
})
