/**
 * The one refusal (src/http/refusal.ts): what a refusal is made of, and the one answer it
 * becomes: the interfaces' body, `{ error }` or `{ error, field }`, and the code in a header.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { answerRefusal, ERROR_CODE, reason, Refusal, refuse } from '../src/http/refusal.ts'

const NO_SUCH_TICKET = reason('no_such_ticket', 'no such ticket')

test('refuse() makes a refusal of a status, a reason and a field', () => {
  const refusal = refuse(400, reason('field_required', "'subject' is required"), 'subject')
  assert.ok(refusal instanceof Refusal)
  assert.equal(refusal.ok, false)
  assert.deepEqual(
    { ...refusal },
    {
      ok: false,
      status: 400,
      code: 'field_required',
      message: "'subject' is required",
      field: 'subject',
    },
  )
})

test('a refusal is answered with { error } or { error, field } and its code in x-error-code', () => {
  const bare = answerRefusal(refuse(404, NO_SUCH_TICKET))
  assert.equal(bare.status, 404)
  assert.equal(bare.body, '{"error":"no such ticket"}')
  assert.equal(bare.headers![ERROR_CODE], 'no_such_ticket')
  assert.equal(ERROR_CODE, 'x-error-code')
  const withField = answerRefusal(refuse(400, reason('bad_field', "unknown state 'x'"), 'state'))
  assert.equal(withField.body, '{"error":"unknown state \'x\'","field":"state"}')
  assert.equal(withField.headers!['content-type'], 'application/json; charset=utf-8')
})

test('headers given with a refusal are added to its answer, its code kept', () => {
  const answer = answerRefusal(refuse(405, reason('method_not_allowed', 'GET only')), {
    allow: 'GET',
  })
  assert.equal(answer.headers!.allow, 'GET')
  assert.equal(answer.headers![ERROR_CODE], 'method_not_allowed')
})
