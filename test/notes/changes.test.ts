import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_CHANGES } from '../../src/notes/store.ts'
import { notesService } from './support.ts'

const app = await notesService()
const alice = await app.signIn('alice')
const bob = await app.signIn('bob')

test('changes answers the notes edited after since, oldest first, with texts, and tombstones without', async () => {
  const a = await app.post(alice, {
    op: 'save',
    id: 'a',
    local: 'p',
    text: 'first',
    base: 0,
    at: 1,
  })
  app.clock.advance(5)
  const b = await app.post(alice, {
    op: 'save',
    id: 'b',
    local: 'p',
    text: 'second',
    base: 0,
    at: 1,
  })
  app.clock.advance(5)
  await app.post(alice, { op: 'delete', id: 'a', base: a.json.edited })
  const all = await app.call('GET', '/api/notes/changes', { cookie: alice })
  assert.equal(all.status, 200)
  assert.equal(all.headers['cache-control'], 'private, no-store')
  const gone = all.json.notes[1]
  assert.deepEqual(all.json, {
    notes: [
      { id: 'b', edited: b.json.edited, gone: false, text: 'second' },
      { id: 'a', edited: gone.edited, gone: true },
    ],
    more: false,
  })
  assert.deepEqual(
    (await app.call('GET', `/api/notes/changes?since=${b.json.edited}`, { cookie: alice })).json,
    { notes: [gone], more: false },
  )
  assert.deepEqual((await app.call('GET', '/api/notes/changes?since=0', { cookie: bob })).json, {
    notes: [],
    more: false,
  })
})

test('changes comes a page at a time: more is true until the last page', async () => {
  const carol = await app.signIn('carol')
  await app.sql`
    insert into notes (user_id, id, text, created, edited, gone)
    select 'carol', 'n' || n, 'text ' || n, n, n, false from generate_series(1, ${MAX_CHANGES + 20}) as n`
  const first = await app.call('GET', '/api/notes/changes?since=0', { cookie: carol })
  assert.equal(first.json.notes.length, MAX_CHANGES)
  assert.equal(first.json.more, true)
  const last = first.json.notes.at(-1).edited
  const second = await app.call('GET', `/api/notes/changes?since=${last}`, { cookie: carol })
  assert.equal(second.json.notes.length, 20)
  assert.equal(second.json.more, false)
})

test('changes checks sign-in, then the method, then since', async () => {
  assert.equal((await app.call('POST', '/api/notes/changes')).status, 401)
  const post = await app.call('POST', '/api/notes/changes', { cookie: alice })
  assert.equal(post.status, 405)
  assert.equal(post.headers.allow, 'GET')
  for (const since of ['-1', 'x', '1.5', '99999999999999999']) {
    const res = await app.call('GET', `/api/notes/changes?since=${since}`, { cookie: alice })
    assert.equal(res.status, 400, since)
    assert.deepEqual(res.json, { error: "'since' must be a whole number from 0", field: 'since' })
  }
})
