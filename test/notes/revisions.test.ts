import assert from 'node:assert/strict'
import { test } from 'node:test'
import { notesService } from './support.ts'

const app = await notesService()
const alice = await app.signIn('alice')
const bob = await app.signIn('bob')

const first = await app.post(alice, {
  op: 'save',
  id: 'diary',
  local: 'phone',
  text: 'one\n',
  base: 0,
  at: 11,
})
app.clock.advance(10)
const second = await app.post(alice, {
  op: 'save',
  id: 'diary',
  local: 'laptop',
  text: 'one\ntwo\n',
  base: first.json.edited,
  at: 22,
})

test('the revisions of a note come newest first with edited, at, local and text', async () => {
  const res = await app.call('GET', '/api/notes/revisions?id=diary', { cookie: alice })
  assert.equal(res.status, 200)
  assert.equal(res.headers['cache-control'], 'private, no-store')
  assert.deepEqual(res.json, {
    revisions: [
      {
        edited: second.json.edited,
        at: 22,
        local: 'laptop',
        device: null,
        text: 'one\ntwo\n',
        by: 'alice',
      },
      {
        edited: first.json.edited,
        at: 11,
        local: 'phone',
        device: null,
        text: 'one\n',
        by: 'alice',
      },
    ],
  })
})

test("another user's note, an unknown note and a deleted note answer 404 no such note", async () => {
  const other = await app.call('GET', '/api/notes/revisions?id=diary', { cookie: bob })
  assert.equal(other.status, 404)
  assert.deepEqual(other.json, { error: 'no such note' })
  assert.deepEqual(
    (await app.call('GET', '/api/notes/revisions?id=nothing', { cookie: alice })).json,
    { error: 'no such note' },
  )
  const saved = await app.post(alice, {
    op: 'save',
    id: 'gone-soon',
    local: 'phone',
    text: 'x',
    base: 0,
    at: 1,
  })
  await app.post(alice, { op: 'delete', id: 'gone-soon', base: saved.json.edited })
  assert.equal(
    (await app.call('GET', '/api/notes/revisions?id=gone-soon', { cookie: alice })).status,
    404,
  )
})

test('the checks come in the order of /api/notes: sign-in first, then the method, then the id', async () => {
  const anonymous = await app.call('POST', '/api/notes/revisions?id=diary')
  assert.equal(anonymous.status, 401)
  assert.deepEqual(anonymous.json, { error: 'log in with idp first' })
  const post = await app.call('POST', '/api/notes/revisions?id=diary', { cookie: alice })
  assert.equal(post.status, 405)
  assert.equal(post.headers.allow, 'GET')
  assert.deepEqual(post.json, { error: 'GET only' })
  const noId = await app.call('GET', '/api/notes/revisions', { cookie: alice })
  assert.equal(noId.status, 400)
  assert.deepEqual(noId.json, { error: "'id' must not be empty", field: 'id' })
})

test('a copy made by a conflict has its own history', async () => {
  const a = await app.post(alice, {
    op: 'save',
    id: 'list',
    local: 'phone',
    text: 'milk\n',
    base: 0,
    at: 1,
  })
  await app.post(alice, {
    op: 'save',
    id: 'list',
    local: 'phone',
    text: 'oat milk\n',
    base: a.json.edited,
    at: 2,
  })
  const clash = await app.post(alice, {
    op: 'save',
    id: 'list',
    local: 'laptop',
    text: 'soy milk\n',
    base: a.json.edited,
    at: 3,
  })
  const copy = clash.json.copy.id as string
  const res = await app.call('GET', `/api/notes/revisions?id=${encodeURIComponent(copy)}`, {
    cookie: alice,
  })
  assert.deepEqual(
    res.json.revisions.map((r: { text: string }) => r.text),
    ['soy milk\n'],
  )
})

test("a save's device words are kept with its revision, and a device that is not 1 to 64 characters is refused", async () => {
  const a = await app.post(alice, {
    op: 'save',
    id: 'named',
    local: 'p1',
    device: 'Chrome on Android',
    text: 'a\n',
    base: 0,
    at: 1,
  })
  assert.equal(a.status, 200)
  const res = await app.call('GET', '/api/notes/revisions?id=named', { cookie: alice })
  assert.equal(res.json.revisions[0].device, 'Chrome on Android')
  for (const device of ['', '   ', 'x'.repeat(65), 7, null]) {
    const refused = await app.post(alice, {
      op: 'save',
      id: 'named',
      local: 'p1',
      device,
      text: 'b\n',
      base: a.json.edited,
      at: 2,
    })
    assert.equal(refused.status, 400, JSON.stringify(device))
    assert.deepEqual(refused.json, {
      error: "'device' must be 1 to 64 characters",
      field: 'device',
    })
  }
  const unknown = await app.post(alice, {
    op: 'save',
    id: 'named',
    local: 'p1',
    devices: 'x',
    text: 'b\n',
    base: a.json.edited,
    at: 2,
  })
  assert.deepEqual(unknown.json, { error: "unknown field 'devices'" })
})
