import { test } from 'node:test'
import assert from 'node:assert/strict'
import { makeRequest } from '../src/http/request.ts'
import { refuseContentType, refuseCrossSite, refuseTag } from '../src/http/guards.ts'
import { answerRefusal } from '../src/http/refusal.ts'

const own = 'http://localhost:3001'
const withCookie = { cookie: 'notes_session=abc' }
const body = new TextEncoder().encode('{}')

test('a cookie-carrying POST marked Sec-Fetch-Site: cross-site is refused with 403', () => {
  const res = refuseCrossSite(
    makeRequest({ method: 'POST', headers: { ...withCookie, 'sec-fetch-site': 'cross-site' } }),
    'notes_session',
    own,
  )
  assert.equal(res?.status, 403)
  assert.deepEqual(JSON.parse(answerRefusal(res).body as string), {
    error: 'cross-site request refused',
  })
})

test('a cookie-carrying POST from another Origin is refused; the own origin and same-site pass', () => {
  assert.equal(
    refuseCrossSite(
      makeRequest({ headers: { ...withCookie, origin: 'http://evil.test' } }),
      'notes_session',
      own,
    )?.status,
    403,
  )
  assert.equal(
    refuseCrossSite(
      makeRequest({ headers: { ...withCookie, origin: own, 'sec-fetch-site': 'same-origin' } }),
      'notes_session',
      own,
    ),
    null,
  )
  assert.equal(
    refuseCrossSite(makeRequest({ headers: { ...withCookie } }), 'notes_session', own),
    null,
  )
})

test('a request without the session cookie is not subject to the cross-site check', () => {
  assert.equal(
    refuseCrossSite(
      makeRequest({ headers: { origin: 'http://evil.test', 'sec-fetch-site': 'cross-site' } }),
      'notes_session',
      own,
    ),
    null,
  )
})

test('a non-empty body must be application/json (charset allowed); an empty one passes', () => {
  const refused = refuseContentType(
    makeRequest({ headers: { 'content-type': 'text/plain' } }),
    body,
  )
  assert.equal(refused?.status, 415)
  assert.deepEqual(JSON.parse(answerRefusal(refused).body as string), {
    error: 'send the body as application/json',
  })
  assert.equal(refuseContentType(makeRequest({}), body)?.status, 415)
  assert.equal(
    refuseContentType(
      makeRequest({ headers: { 'content-type': 'Application/JSON; charset=utf-8' } }),
      body,
    ),
    null,
  )
  assert.equal(
    refuseContentType(
      makeRequest({ headers: { 'content-type': 'text/plain' } }),
      new Uint8Array(0),
    ),
    null,
  )
})

test('the x-tag header must equal the session tag', () => {
  const wrong = refuseTag(makeRequest({ headers: { 'x-tag': 'nope' } }), 'right')
  assert.equal(wrong?.status, 403)
  assert.deepEqual(JSON.parse(answerRefusal(wrong).body as string), {
    error: 'x-tag header missing or wrong',
  })
  assert.equal(refuseTag(makeRequest({}), 'right')?.status, 403)
  assert.equal(refuseTag(makeRequest({ headers: { 'x-tag': 'right' } }), undefined)?.status, 403)
  assert.equal(refuseTag(makeRequest({ headers: { 'x-tag': 'right' } }), 'right'), null)
})
