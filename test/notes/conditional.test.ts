/**
 * Conditional GETs of the notes API (docs/notes-api.md, "Polling without cost"): the list's
 * ETag is its version, a client that has it gets 304 without the list being read, and any
 * write gives a new one; the other GETs get a tag of their bytes.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { etagOf } from '../../src/http/conditional.ts'
import { createHandler } from '../../src/http/handler.ts'
import { createShares } from '../../src/notes/shares.ts'
import { createWakes } from '../../src/notes/waits.ts'
import { createPins } from '../../src/notes/pins.ts'
import { createPublications } from '../../src/notes/publications.ts'
import { createApiHandlers } from '../../src/notes/api.ts'
import { createNoteStore, type NoteStore } from '../../src/notes/store.ts'
import { makeRequest } from '../../src/http/request.ts'
import { testLogger } from '../support/service.ts'
import { notesService } from './support.ts'

const app = await notesService()

test('the list carries an ETag, and the same list the same one', async () => {
  const cookie = await app.signIn('etag-same')
  await app.post(cookie, { op: 'save', id: 'a', local: 'l', text: '1', base: 0, at: 1 })
  const first = await app.call('GET', '/api/notes', { cookie })
  const second = await app.call('GET', '/api/notes', { cookie })
  assert.match(first.headers.etag ?? '', /^"[A-Za-z0-9_-]{20}"$/)
  assert.equal(second.headers.etag, first.headers.etag)
  assert.notEqual(
    (await app.call('GET', '/api/notes?since=0', { cookie })).headers.etag,
    first.headers.etag,
    'another query, another tag',
  )
})

test('a client that has the list gets 304 with the ETag and no body; after a save, a delete or a conflict the list again', async () => {
  const cookie = await app.signIn('etag-poll')
  const saved = await app.post(cookie, {
    op: 'save',
    id: 'n',
    local: 'l',
    text: 'a\n',
    base: 0,
    at: 1,
  })
  for (const url of ['/api/notes', `/api/notes?since=${saved.json.edited}`]) {
    let tag = (await app.call('GET', url, { cookie })).headers.etag!
    const unchanged = await app.call('GET', url, { cookie, headers: { 'if-none-match': tag } })
    assert.equal(unchanged.status, 304)
    assert.equal(unchanged.text, '')
    assert.equal(unchanged.headers.etag, tag)
    assert.equal(unchanged.headers['cache-control'], 'private, no-store')

    // Each write changes the list: a new note, a conflict's copy, a deletion.
    const extra = `w-${url.length}`
    const writes = [
      () => app.post(cookie, { op: 'save', id: extra, local: 'l', text: 'x', base: 0, at: 1 }),
      () => app.post(cookie, { op: 'save', id: 'n', local: 'other', text: 'b\n', base: 0, at: 2 }),
      async () => {
        const { edited } = (await app.call('GET', `/api/notes?id=${extra}`, { cookie })).json
        return app.post(cookie, { op: 'delete', id: extra, base: edited })
      },
    ]
    for (const [i, write] of writes.entries()) {
      const before = (await app.call('GET', url, { cookie })).json
      await write()
      const after = await app.call('GET', url, { cookie, headers: { 'if-none-match': tag } })
      assert.equal(after.status, 200, `${url} after write ${i}`)
      assert.notDeepEqual(after.json, before)
      assert.notEqual(after.headers.etag, tag)
      tag = after.headers.etag!
    }
  }
})

test("one user's tag is no good for another user's list", async () => {
  const one = await app.signIn('etag-one')
  const two = await app.signIn('etag-two')
  const tag = (await app.call('GET', '/api/notes', { cookie: one })).headers.etag!
  assert.equal(
    (await app.call('GET', '/api/notes', { cookie: two, headers: { 'if-none-match': tag } }))
      .status,
    200,
  )
})

test('a matching If-None-Match is answered without reading the list', async () => {
  const cookie = await app.signIn('etag-cheap')
  await app.post(cookie, { op: 'save', id: 'a', local: 'l', text: '1', base: 0, at: 1 })
  const real = createNoteStore({ sql: app.sql, clock: app.clock.now })
  let lists = 0
  const store: NoteStore = { ...real, list: (...args) => (lists++, real.list(...args)) }
  const api = createApiHandlers({
    store,
    publications: createPublications({ sql: app.sql, clock: app.clock.now }),
    shares: createShares({ sql: app.sql, clock: app.clock.now }),
    wakes: createWakes(),
    pins: createPins({ sql: app.sql }),
    sessions: app.sessions,
    publicUrl: app.publicUrl,
  })
  const handler = createHandler([{ method: '*', path: '/api/notes', handler: api.notes }], {
    name: 'notes',
    logger: testLogger(),
  })
  const get = (headers: Record<string, string> = {}) =>
    handler(makeRequest({ url: '/api/notes?since=0', headers: { cookie, ...headers } }))
  const full = await get()
  assert.equal(lists, 1)
  const again = await get({ 'if-none-match': full.headers!.etag as string })
  assert.equal(again.status, 304)
  assert.equal(lists, 1, 'the 304 did not read the list')
})

test('the version is the last edited given out to the user, 0 before the first write', async () => {
  const store = createNoteStore({ sql: app.sql, clock: app.clock.now })
  assert.equal(await store.version('nobody-yet'), 0)
  const cookie = await app.signIn('etag-version')
  const saved = await app.post(cookie, {
    op: 'save',
    id: 'v',
    local: 'l',
    text: '1',
    base: 0,
    at: 1,
  })
  assert.equal(await store.version('etag-version'), saved.json.edited)
})

test('a note, the changes and the history get a tag of their bytes, and 304 with it', async () => {
  const cookie = await app.signIn('etag-others')
  await app.post(cookie, { op: 'save', id: 'o', local: 'l', text: '1', base: 0, at: 1 })
  for (const url of [
    '/api/notes?id=o',
    '/api/notes/changes?since=0',
    '/api/notes/revisions?id=o',
    '/api/me',
  ]) {
    const tag = (await app.call('GET', url, { cookie })).headers.etag
    assert.ok(tag, url)
    assert.equal(
      (await app.call('GET', url, { cookie, headers: { 'if-none-match': tag } })).status,
      304,
      url,
    )
  }
})

test('/api/me without a session is tagged like any answer: the tag of its bytes, not stored, 304 with the tag; a POST gets no tag', async () => {
  const first = await app.call('GET', '/api/me')
  assert.equal(first.text, '{"user":null}')
  assert.equal(first.headers.etag, etagOf('{"user":null}'))
  assert.equal(first.headers['cache-control'], 'private, no-store')
  assert.equal(first.headers['content-length'], '13')
  const again = await app.call('GET', '/api/me', {
    headers: { 'if-none-match': first.headers.etag },
  })
  assert.equal(again.status, 304)
  assert.equal(again.text, '')
  const head = await app.call('HEAD', '/api/me')
  assert.equal(head.headers.etag, first.headers.etag)
  const post = await app.call('POST', '/api/me')
  assert.deepEqual(post.json, { user: null })
  assert.equal(post.headers.etag, undefined)
})
