import assert from 'node:assert/strict'
import { test } from 'node:test'
import { notesService } from './support.ts'

const app = await notesService()
const alice = await app.signIn('alice')
const bob = await app.signIn('bob')
const saved = await app.post(alice, {
  op: 'save',
  id: 'diary',
  local: 'phone',
  text: "alice's secret\n",
  base: 0,
  at: 1,
})

async function aliceDiary() {
  return (await app.call('GET', '/api/notes?id=diary', { cookie: alice })).json
}

test("a user cannot read another user's note by its id", async () => {
  const res = await app.call('GET', '/api/notes?id=diary', { cookie: bob })
  assert.equal(res.status, 404)
  assert.deepEqual(res.json, { error: 'no such note' })
})

test("another user's notes are not in the list or the delta", async () => {
  assert.deepEqual((await app.call('GET', '/api/notes', { cookie: bob })).json, { notes: [] })
  assert.deepEqual((await app.call('GET', '/api/notes?since=0', { cookie: bob })).json, {
    notes: [],
  })
})

test("saving under another user's note id makes a note of one's own and leaves the other untouched", async () => {
  const res = await app.post(bob, {
    op: 'save',
    id: 'diary',
    local: 'laptop',
    text: "bob's diary\n",
    base: saved.json.edited,
    at: 2,
  })
  assert.equal(res.status, 200)
  assert.equal(res.json.text, "bob's diary\n")
  assert.equal(res.json.copy, undefined)
  assert.deepEqual(await aliceDiary(), {
    id: 'diary',
    text: "alice's secret\n",
    edited: saved.json.edited,
    created: saved.json.edited,
  })
  assert.equal(
    (await app.call('GET', '/api/notes?id=diary', { cookie: bob })).json.text,
    "bob's diary\n",
  )
})

test("deleting another user's note id with its edited as base does not delete it", async () => {
  const mallory = await app.signIn('mallory')
  const res = await app.post(mallory, { op: 'delete', id: 'diary', base: saved.json.edited })
  assert.deepEqual(res.json, { ok: true })
  assert.equal((await aliceDiary()).text, "alice's secret\n")
  assert.deepEqual((await app.call('GET', '/api/notes', { cookie: alice })).json.notes, [
    { id: 'diary', edited: saved.json.edited, gone: false },
  ])
})
