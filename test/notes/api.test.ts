import assert from 'node:assert/strict'
import { test } from 'node:test'
import { notesService, type Answer } from './support.ts'

const app = await notesService()
const cookie = await app.signIn('api-user')
let ids = 0

/** A note id of its own for each use. */
function newId(): string {
  return `note-${++ids}`
}

function raw(
  body: string | Uint8Array,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Answer> {
  return app.call('POST', '/api/notes', { cookie, headers, body })
}

function save(fields: Record<string, unknown>): Promise<Answer> {
  return app.post(cookie, {
    op: 'save',
    id: newId(),
    local: 'phone',
    text: 'hello\n',
    base: 0,
    at: 1,
    ...fields,
  })
}

/** Asserts a JSON answer: status, exact body, and the JSON content type. */
function assertJson(res: Answer, status: number, body: unknown): void {
  assert.deepEqual({ status: res.status, body: res.json }, { status, body })
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  assert.equal(res.headers['cache-control'], 'private, no-store')
}

// Section 4.4, rules 1 to 9, in order.

test('4.4 rule 1: without a signed-in user every method answers 401 log in with idp first', async () => {
  const failedLogin = (await app.call('GET', '/login/callback')).headers['set-cookie']!.split(
    ';',
  )[0]!
  for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
    for (const c of [undefined, 'notes_session=forged', failedLogin]) {
      const res = await app.call(method, '/api/notes', {
        cookie: c,
        headers: { 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
        body: '{',
      })
      assertJson(res, 401, { error: 'log in with idp first' })
    }
  }
})

test('4.4 rule 2: GET with id answers the note view', async () => {
  const id = newId()
  const saved = await app.post(cookie, {
    op: 'save',
    id,
    local: 'phone',
    text: 'body\n',
    base: 0,
    at: 5,
  })
  const res = await app.call('GET', `/api/notes?id=${id}`, { cookie })
  assertJson(res, 200, {
    id,
    text: 'body\n',
    edited: saved.json.edited,
    created: saved.json.edited,
  })
})

test('4.4 rule 2: GET with the id of an unknown note or a tombstone answers 404 no such note', async () => {
  assertJson(await app.call('GET', '/api/notes?id=never-saved', { cookie }), 404, {
    error: 'no such note',
  })
  const id = newId()
  const saved = await app.post(cookie, {
    op: 'save',
    id,
    local: 'phone',
    text: 'x',
    base: 0,
    at: 5,
  })
  await app.post(cookie, { op: 'delete', id, base: saved.json.edited })
  assertJson(await app.call('GET', `/api/notes?id=${id}`, { cookie }), 404, {
    error: 'no such note',
  })
})

test('4.4 rule 2: GET without id lists every note, tombstones included, oldest edit first; since gives the delta', async () => {
  const user = await app.signIn('list-user')
  const a = await app.post(user, { op: 'save', id: 'a', local: 'l', text: '1', base: 0, at: 1 })
  const b = await app.post(user, { op: 'save', id: 'b', local: 'l', text: '1', base: 0, at: 1 })
  const del = await app.post(user, { op: 'delete', id: 'a', base: a.json.edited })
  assert.deepEqual(del.json, { ok: true })
  const list = await app.call('GET', '/api/notes', { cookie: user })
  assert.equal(list.status, 200)
  const [first, second] = list.json.notes
  assert.deepEqual(
    list.json.notes.map((n: { id: string; gone: boolean }) => [n.id, n.gone]),
    [
      ['b', false],
      ['a', true],
    ],
  )
  assert.equal(first.edited, b.json.edited)
  assert.ok(second.edited > first.edited)
  assertJson(await app.call('GET', `/api/notes?since=${first.edited}`, { cookie: user }), 200, {
    notes: [second],
  })
})

test('4.4 rule 2: GET with a since that is not a whole number from 0 answers 400', async () => {
  for (const since of ['', 'abc', '-1', '1.5', '1e3', '99999999999999999']) {
    assertJson(await app.call('GET', `/api/notes?since=${since}`, { cookie }), 400, {
      error: "'since' must be a whole number from 0",
      field: 'since',
    })
  }
})

test('4.4 rule 3: a method other than GET and POST answers 405 GET or POST only', async () => {
  for (const method of ['PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']) {
    const res = await app.call(method, '/api/notes', { cookie, body: '{}' })
    assertJson(res, 405, { error: 'GET or POST only' })
    assert.equal(res.headers.allow, 'GET, POST')
  }
})

test('4.4 rule 4: a POST without a body answers 400 a JSON body is needed, whatever its content type', async () => {
  assertJson(await raw(''), 400, { error: 'a JSON body is needed' })
  assertJson(await raw('', {}), 400, { error: 'a JSON body is needed' })
  assertJson(await raw('', { 'content-type': 'text/plain' }), 400, {
    error: 'a JSON body is needed',
  })
})

test('4.4 rule 5: a body that is not valid JSON answers 400 with the validator position', async () => {
  const cases: [string | Uint8Array, string][] = [
    ['{"a":1,}', 'invalid JSON at character 7'],
    ['[1 2]', 'invalid JSON at character 3'],
    ['tru', 'invalid JSON at character 3'],
    ['01', 'invalid JSON at character 1'],
    ['"ab', 'invalid JSON at character 3'],
    ['   ', 'invalid JSON at character 3'],
    ['{"op":"save",}', 'invalid JSON at character 13'],
    [new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), 'invalid JSON at character 0'],
    [new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]), 'invalid JSON at character 2'],
    ['['.repeat(100_000), 'JSON nested too deep at character 512'],
  ]
  for (const [body, error] of cases) assertJson(await raw(body), 400, { error })
})

test('4.4 rule 6: valid JSON that is not an object answers 400 the body must be a JSON object', async () => {
  for (const body of ['[]', '[{"op":"save"}]', '"save"', '1', 'null', 'true']) {
    assertJson(await raw(body), 400, { error: 'the body must be a JSON object' })
  }
})

test('4.4 rule 7: a save answers 200 { id, edited, text } and stores the note', async () => {
  const id = newId()
  const res = await app.post(cookie, {
    op: 'save',
    id,
    local: 'phone',
    text: 'saved\n',
    base: 0,
    at: 17,
  })
  assertJson(res, 200, { id, edited: res.json.edited, text: 'saved\n' })
  assert.equal(typeof res.json.edited, 'number')
  assert.equal((await app.call('GET', `/api/notes?id=${id}`, { cookie })).json.text, 'saved\n')
})

test('4.4 rule 7: a save with a missing or mistyped field answers 400 save needs …', async () => {
  const error = { error: 'save needs id, local, text (strings) and base, at (numbers)' }
  for (const name of ['id', 'local', 'text', 'base', 'at']) {
    assertJson(await save({ [name]: undefined }), 400, error)
    assertJson(await save({ [name]: null }), 400, error)
  }
  for (const wrong of [
    { id: 5 },
    { local: [] },
    { text: {} },
    { base: '0' },
    { at: true },
    { text: 1 },
  ]) {
    assertJson(await save(wrong), 400, error)
  }
})

test('4.4 rule 7: a save with id or local over 64 characters answers 400 id / local too long', async () => {
  assertJson(await save({ id: 'i'.repeat(65) }), 400, { error: 'id / local too long' })
  assertJson(await save({ local: 'l'.repeat(65) }), 400, { error: 'id / local too long' })
  assert.equal((await save({ id: 'i'.repeat(64), local: 'l'.repeat(64) })).status, 200)
})

test('4.4 rule 7: a save the store refuses answers 400 with the store error { error, field }', async () => {
  assertJson(await save({ id: '' }), 400, { error: "'id' must not be empty", field: 'id' })
  assertJson(await save({ local: '' }), 400, { error: "'local' must not be empty", field: 'local' })
  assertJson(await save({ text: 'x'.repeat(1_000_001) }), 400, {
    error: "'text' is longer than 1,000,000 characters",
    field: 'text',
  })
  assertJson(await save({ base: -1 }), 400, {
    error: "'base' must be a whole number from 0",
    field: 'base',
  })
  assertJson(await save({ at: 0.5 }), 400, {
    error: "'at' must be a whole number from 0",
    field: 'at',
  })
  assertJson(await raw('{"op":"save","id":"n","local":"l","text":"t","base":1e400,"at":1}'), 400, {
    error: "'base' must be a whole number from 0",
    field: 'base',
  })
  assertJson(
    await raw('{"op":"save","id":"n","local":"l","text":"a\\u0000","base":0,"at":1}'),
    400,
    { error: "'text' must not contain the character U+0000", field: 'text' },
  )
  assertJson(
    await raw('{"op":"save","id":"\\ud800","local":"l","text":"t","base":0,"at":1}'),
    400,
    { error: "'id' must be valid Unicode (it has a lone surrogate)", field: 'id' },
  )
})

test('4.4 rule 7: a save with an unknown field answers 400 unknown field, after the interface checks', async () => {
  assertJson(await save({ title: 'x' }), 400, { error: "unknown field 'title'" })
  assertJson(
    await raw('{"op":"save","id":"n","local":"l","text":"t","base":0,"at":1,"__proto__":{}}'),
    400,
    { error: "unknown field '__proto__'" },
  )
  assertJson(await save({ title: 'x', id: 'i'.repeat(65) }), 400, { error: 'id / local too long' })
  assertJson(await save({ title: 'x', at: 'now' }), 400, {
    error: 'save needs id, local, text (strings) and base, at (numbers)',
  })
})

test('4.4 rule 7: a conflicting save answers the stored note with the sent text as copy', async () => {
  const id = newId()
  const first = await app.post(cookie, {
    op: 'save',
    id,
    local: 'phone',
    text: 'title\n',
    base: 0,
    at: 1,
  })
  const phone = await app.post(cookie, {
    op: 'save',
    id,
    local: 'phone',
    text: 'phone\n',
    base: first.json.edited,
    at: 2,
  })
  const laptop = await app.post(cookie, {
    op: 'save',
    id,
    local: 'laptop',
    text: 'laptop\n',
    base: first.json.edited,
    at: 3,
  })
  assertJson(laptop, 200, {
    id,
    edited: phone.json.edited,
    text: 'phone\n',
    copy: laptop.json.copy,
  })
  assert.equal(laptop.json.copy.text, 'laptop\n')
  assert.equal(
    (await app.call('GET', `/api/notes?id=${laptop.json.copy.id}`, { cookie })).json.text,
    'laptop\n',
  )
})

test('4.4 rule 8: a delete with a missing or mistyped field answers 400 delete needs …', async () => {
  const error = { error: 'delete needs id (string) and base (number)' }
  for (const body of [
    { op: 'delete' },
    { op: 'delete', id: 'x' },
    { op: 'delete', base: 1 },
    { op: 'delete', id: 1, base: 1 },
    { op: 'delete', id: 'x', base: '1' },
  ]) {
    assertJson(await app.post(cookie, body), 400, error)
  }
})

test('4.4 rule 8: a delete answers { ok: true } on a matching base and { kept, id, edited, text } otherwise', async () => {
  const id = newId()
  const first = await app.post(cookie, { op: 'save', id, local: 'l', text: 'one', base: 0, at: 1 })
  const second = await app.post(cookie, {
    op: 'save',
    id,
    local: 'l',
    text: 'two',
    base: first.json.edited,
    at: 1,
  })
  assertJson(await app.post(cookie, { op: 'delete', id, base: first.json.edited }), 200, {
    kept: true,
    id,
    edited: second.json.edited,
    text: 'two',
  })
  assertJson(await app.post(cookie, { op: 'delete', id, base: second.json.edited }), 200, {
    ok: true,
  })
  assertJson(await app.post(cookie, { op: 'delete', id, base: second.json.edited }), 200, {
    ok: true,
  })
  assertJson(await app.post(cookie, { op: 'delete', id: 'never-saved', base: 0 }), 200, {
    ok: true,
  })
})

test('4.4 rule 8: a delete with an unknown field or a bad base answers 400', async () => {
  assertJson(await app.post(cookie, { op: 'delete', id: 'x', base: 1, text: 'x' }), 400, {
    error: "unknown field 'text'",
  })
  assertJson(await app.post(cookie, { op: 'delete', id: 'x', base: -1 }), 400, {
    error: "'base' must be a whole number from 0",
    field: 'base',
  })
})

test("4.4 rule 9: any other op answers 400 op must be 'save' or 'delete'", async () => {
  for (const body of [
    {},
    { op: 'update' },
    { op: 'SAVE' },
    { op: 1 },
    { op: null },
    { id: 'x', base: 1 },
  ]) {
    assertJson(await app.post(cookie, body), 400, { error: "op must be 'save' or 'delete'" })
  }
})

// The cross-site and content-type checks (docs/notes-api.md, "Checks of /api/notes, in order",
// item 2): right after the sign-in check, for POST.

test('a POST with the session cookie and Sec-Fetch-Site cross-site answers 403 cross-site request refused', async () => {
  const res = await raw('{}', {
    'content-type': 'application/json',
    'sec-fetch-site': 'cross-site',
  })
  assertJson(res, 403, { error: 'cross-site request refused' })
})

test('a POST from another Origin answers 403, before the content type and body checks', async () => {
  assertJson(
    await raw('nonsense', { 'content-type': 'text/plain', origin: 'https://evil.example' }),
    403,
    { error: 'cross-site request refused' },
  )
  assertJson(await raw('', { origin: 'http://localhost:3999' }), 403, {
    error: 'cross-site request refused',
  })
})

test("a POST whose Origin is the service's own or that is same-site passes the cross-site check", async () => {
  for (const headers of [
    { origin: 'http://localhost:3001' },
    { 'sec-fetch-site': 'same-origin' },
    {},
  ] as Record<string, string>[]) {
    assertJson(await raw('{"op":"x"}', { 'content-type': 'application/json', ...headers }), 400, {
      error: "op must be 'save' or 'delete'",
    })
  }
})

test('a non-empty body sent as text/plain or without a content type answers 415, before the JSON checks', async () => {
  for (const headers of [
    { 'content-type': 'text/plain' },
    {},
    { 'content-type': 'application/jsonx' },
  ] as Record<string, string>[]) {
    assertJson(await raw('{not json', headers), 415, { error: 'send the body as application/json' })
  }
  assertJson(await raw('{"op":"x"}', { 'content-type': 'Application/JSON; charset=utf-8' }), 400, {
    error: "op must be 'save' or 'delete'",
  })
})

test('a GET is not refused for a cross-site header: the check is for POST', async () => {
  const res = await app.call('GET', '/api/notes?id=none', {
    cookie,
    headers: { 'sec-fetch-site': 'cross-site' },
  })
  assertJson(res, 404, { error: 'no such note' })
})

test('a POST body over 2 MiB answers 413 body too large', async () => {
  const res = await raw('"' + 'x'.repeat(2 * 1024 * 1024) + '"')
  assert.equal(res.status, 413)
  assert.deepEqual(res.json, { error: 'body too large' })
})

// Section 7, one row each.

test('section 7 row 401: /api/notes without a signed-in user', async () => {
  assertJson(await app.call('GET', '/api/notes'), 401, { error: 'log in with idp first' })
})

test('section 7 row 404: GET /api/notes?id= for an unknown note', async () => {
  assertJson(await app.call('GET', '/api/notes?id=', { cookie }), 404, { error: 'no such note' })
})

test('section 7 row 405: /api/notes with a method other than GET or POST', async () => {
  assertJson(await app.call('PUT', '/api/notes', { cookie }), 405, { error: 'GET or POST only' })
})

test('section 7 row 400: POST without body', async () => {
  assertJson(await app.call('POST', '/api/notes', { cookie }), 400, {
    error: 'a JSON body is needed',
  })
})

test('section 7 row 400: POST with invalid JSON', async () => {
  assertJson(await raw('{"op":'), 400, { error: 'invalid JSON at character 6' })
})

test('section 7 row 400: POST body not an object', async () => {
  assertJson(await raw('["op"]'), 400, { error: 'the body must be a JSON object' })
})

test('section 7 row 400: save with missing or mistyped fields', async () => {
  assertJson(await app.post(cookie, { op: 'save', id: 'x' }), 400, {
    error: 'save needs id, local, text (strings) and base, at (numbers)',
  })
})

test('section 7 row 400: save with id or local over 64 characters', async () => {
  assertJson(await save({ local: 'x'.repeat(100) }), 400, { error: 'id / local too long' })
})

test('section 7 row 400: save rejected by the note store', async () => {
  assertJson(await save({ base: 1.25 }), 400, {
    error: "'base' must be a whole number from 0",
    field: 'base',
  })
})

test('section 7 row 400: delete with missing or mistyped fields', async () => {
  assertJson(await app.post(cookie, { op: 'delete', id: 'x', base: null }), 400, {
    error: 'delete needs id (string) and base (number)',
  })
})

test('section 7 row 400: unknown op', async () => {
  assertJson(await app.post(cookie, { op: 'merge' }), 400, {
    error: "op must be 'save' or 'delete'",
  })
})

test('section 7 row 302: login failure redirects to /login/failed with the reason in the session', async () => {
  const res = await app.call('GET', '/login/callback?idp_code=not-issued')
  assert.equal(res.status, 302)
  assert.equal(res.headers.location, '/login/failed')
  const page = await app.call('GET', '/login/failed', {
    cookie: res.headers['set-cookie']!.split(';')[0],
  })
  assert.ok(page.text.includes('unknown login code'))
})
