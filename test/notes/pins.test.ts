/**
 * Pins kept on the server (docs/notes-api.md, "Pins"): a person's pinned notes follow them to
 * every device; the later choice of a note wins, so choices made offline settle the same
 * everywhere; the checks of a POST.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { notesService, type Answer } from './support.ts'

const app = await notesService()
const json = { 'content-type': 'application/json' }

function pins(cookie: string, body?: unknown): Promise<Answer> {
  return body === undefined
    ? app.call('GET', '/api/notes/pins', { cookie })
    : app.call('POST', '/api/notes/pins', { cookie, headers: json, body: JSON.stringify(body) })
}

test('a pin and an unpin are kept for the person, the later choice of a note winning', async () => {
  const me = await app.signIn('pins-me')
  const other = await app.signIn('pins-other')
  assert.deepEqual((await pins(me)).json, { pins: [] })
  assert.deepEqual((await pins(me, { op: 'pin', id: 'a', at: 10 })).json, { ok: true })
  await pins(me, { op: 'pin', id: 'b', at: 20 })
  assert.deepEqual((await pins(me)).json, { pins: ['b', 'a'] })
  // An unpin chosen earlier (offline on another device) than the pin changes nothing.
  await pins(me, { op: 'unpin', id: 'a', at: 5 })
  assert.deepEqual((await pins(me)).json, { pins: ['b', 'a'] })
  await pins(me, { op: 'unpin', id: 'a', at: 30 })
  assert.deepEqual((await pins(me)).json, { pins: ['b'] })
  assert.deepEqual((await pins(other)).json, { pins: [] }, "another person's pins are their own")
})

test('the checks of a pin, in order', async () => {
  const me = await app.signIn('pins-checks')
  assert.equal((await app.call('GET', '/api/notes/pins')).status, 401)
  assert.equal((await app.call('PUT', '/api/notes/pins', { cookie: me })).status, 405)
  const bad = async (body: unknown) => (await pins(me, body)).json.error
  assert.equal(await bad({ op: 'stick', id: 'a', at: 1 }), "op must be 'pin' or 'unpin'")
  assert.equal(await bad({ op: 'pin', id: 'a' }), 'pin and unpin need id (string) and at (number)')
  assert.equal(await bad({ op: 'pin', id: 'a', at: 1, x: 1 }), "unknown field 'x'")
  assert.equal(await bad({ op: 'pin', id: '', at: 1 }), "'id' must not be empty")
  assert.equal(await bad({ op: 'pin', id: 'a', at: -1 }), "'at' must be a whole number from 0")
  assert.equal(await bad({ op: 'pin', id: 'x'.repeat(101), at: 1 }), 'id / local too long')
})
