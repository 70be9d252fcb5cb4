/**
 * Notes shared between people (docs/notes-api.md, "Sharing with people"): found by name, shared
 * to edit or to read, merged line by line like one person's devices, a conflicted copy for the
 * person whose save came second, history by person, unsharing, and ids that cannot reach another
 * person's note.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createHandler } from '../../src/http/handler.ts'
import { makeRequest } from '../../src/http/request.ts'
import { createNotesService } from '../../src/notes/service.ts'
import { testLogger } from '../support/service.ts'
import { notesService, cookieOf, type Answer } from './support.ts'

const app = await notesService()
const json = { 'content-type': 'application/json' }

async function signIn(id: string, name: string, login: string): Promise<string> {
  const res = await app.call('GET', `/login/callback?idp_code=${app.idp.code({ id, name, login })}`)
  assert.equal(res.status, 302, res.text)
  return cookieOf(res.headers['set-cookie']!)
}

function shares(cookie: string, body: unknown): Promise<Answer> {
  return app.call('POST', '/api/notes/shares', {
    cookie,
    headers: json,
    body: JSON.stringify(body),
  })
}

function save(
  cookie: string,
  id: string,
  text: string,
  base: number,
  local = 'l',
): Promise<Answer> {
  return app.post(cookie, { op: 'save', id, local, text, base, at: 1 })
}

/** Signs in an owner and a second person, and shares a new note of the owner's with them. */
async function sharedNote(tag: string, text: string, access: 'edit' | 'read' = 'edit') {
  const owner = await signIn(`${tag}-ann`, `Ann ${tag}`, `ann-${tag}`)
  const other = await signIn(`${tag}-bob`, `Bob ${tag}`, `bob-${tag}`)
  const base = (await save(owner, 'plan', text, 0)).json.edited as number
  const found = await app.call('GET', `/api/notes/people?name=BOB-${tag}`, { cookie: owner })
  assert.equal(found.status, 200, found.text)
  assert.deepEqual(found.json.people, [{ id: `${tag}-bob`, name: `Bob ${tag} (bob-${tag})` }])
  const made = await shares(owner, { op: 'share', id: 'plan', person: `${tag}-bob`, access })
  assert.equal(made.status, 200, made.text)
  const listed = await app.call('GET', '/api/notes/shared', { cookie: other })
  const [row] = listed.json.notes
  assert.equal(row.owner.name, `Ann ${tag} (ann-${tag})`)
  assert.equal(row.access, access)
  assert.equal(row.edited, base)
  return { owner, other, base, id: row.id as string }
}

test('a note shared to edit appears in the other person list under an id of its own, with the owner name', async () => {
  const { owner, other, id } = await sharedNote('list', 'milk\n')
  assert.match(id, /^shared-[A-Za-z0-9_-]{64}$/)
  const view = await app.call('GET', `/api/notes?id=${id}`, { cookie: other })
  assert.equal(view.status, 200)
  assert.equal(view.json.text, 'milk\n')
  assert.equal(view.json.id, id)
  // The person's own list, as the interface defines it, holds only their own notes.
  assert.deepEqual((await app.call('GET', '/api/notes', { cookie: other })).json.notes, [])
  const mine = await app.call('GET', '/api/notes/shares', { cookie: owner })
  assert.deepEqual(mine.json.shares, [
    { note: 'plan', person: { id: 'list-bob', name: 'Bob list (bob-list)' }, access: 'edit' },
  ])
})

test('two people edit offline on different lines, then on the same line: both lines stay, then the second gets a conflicted copy with both texts kept', async () => {
  const start = 'eggs\nflour\nsugar\n'
  const { owner, other, base, id } = await sharedNote('merge', start)

  // Both edit offline from `base`: Ann the first line, Bob the last. Ann comes online first.
  const ann = await save(owner, 'plan', 'six eggs\nflour\nsugar\n', base, 'ann-phone')
  assert.equal(ann.json.text, 'six eggs\nflour\nsugar\n')
  const bob = await save(other, id, 'eggs\nflour\nbrown sugar\n', base, 'bob-laptop')
  assert.equal(bob.status, 200, bob.text)
  assert.equal(bob.json.text, 'six eggs\nflour\nbrown sugar\n')
  assert.equal(bob.json.copy, undefined)
  const both = bob.json.edited as number

  // Both change the same line offline from the merged text. Bob comes online first this time.
  const bobFirst = await save(other, id, 'six eggs\nrye flour\nbrown sugar\n', both, 'bob-laptop')
  assert.equal(bobFirst.json.text, 'six eggs\nrye flour\nbrown sugar\n')
  assert.equal(bobFirst.json.copy, undefined)
  const annSecond = await save(
    owner,
    'plan',
    'six eggs\nspelt flour\nbrown sugar\n',
    both,
    'ann-phone',
  )
  // The note keeps Bob's text; Ann's comes back as a copy of her own, saying who wrote the other.
  assert.equal(annSecond.json.text, 'six eggs\nrye flour\nbrown sugar\n')
  assert.equal(annSecond.json.copy.text, 'six eggs\nspelt flour\nbrown sugar\n')
  assert.equal(annSecond.json.copy.by, 'Bob merge (bob-merge)')
  const annCopy = await app.call('GET', `/api/notes?id=${annSecond.json.copy.id}`, {
    cookie: owner,
  })
  assert.equal(annCopy.json.text, 'six eggs\nspelt flour\nbrown sugar\n')

  // Again the other way round: Ann first, Bob second; Bob's copy is among his own notes.
  const now = annSecond.json.edited as number
  await save(owner, 'plan', 'six eggs\nrye flour\nwhite sugar\n', now, 'ann-phone')
  const bobSecond = await save(other, id, 'six eggs\nrye flour\ncane sugar\n', now, 'bob-laptop')
  assert.equal(bobSecond.json.text, 'six eggs\nrye flour\nwhite sugar\n')
  assert.equal(bobSecond.json.copy.text, 'six eggs\nrye flour\ncane sugar\n')
  assert.equal(bobSecond.json.copy.by, 'Ann merge (ann-merge)')
  const bobOwn = await app.call('GET', '/api/notes', { cookie: other })
  assert.deepEqual(
    bobOwn.json.notes.map((n: { id: string }) => n.id),
    [bobSecond.json.copy.id],
  )

  // No word lost: every text either wrote is the note's text, in a copy, or in the history.
  const history = await app.call('GET', `/api/notes/revisions?id=${id}`, { cookie: other })
  assert.deepEqual(
    history.json.revisions.map((r: { by: string; text: string }) => [r.by, r.text]),
    [
      ['Ann merge (ann-merge)', 'six eggs\nrye flour\nwhite sugar\n'],
      ['Bob merge (bob-merge)', 'six eggs\nrye flour\nbrown sugar\n'],
      ['Bob merge (bob-merge)', 'six eggs\nflour\nbrown sugar\n'],
      ['Ann merge (ann-merge)', 'six eggs\nflour\nsugar\n'],
      ['Ann merge (ann-merge)', start],
    ],
  )
  const ownerHistory = await app.call('GET', '/api/notes/revisions?id=plan', { cookie: owner })
  assert.deepEqual(ownerHistory.json, history.json)
})

test('a person the note is shared with to read can read it and follow it, but a save is refused', async () => {
  const { owner, other, base, id } = await sharedNote('read', 'agenda\n', 'read')
  const refused = await save(other, id, 'agenda\nmy item\n', base)
  assert.equal(refused.status, 403)
  assert.deepEqual(refused.json, { error: 'this note is shared with you to read only' })
  assert.equal(refused.headers['x-error-code'], 'read_only')
  assert.equal(
    (await app.call('GET', `/api/notes?id=${id}`, { cookie: other })).json.text,
    'agenda\n',
  )
  assert.equal(
    (await app.call('GET', '/api/notes?id=plan', { cookie: owner })).json.text,
    'agenda\n',
  )
  // Turned to "can edit", the same save is taken.
  await shares(owner, { op: 'share', id: 'plan', person: 'read-bob', access: 'edit' })
  assert.equal((await save(other, id, 'agenda\nmy item\n', base)).json.text, 'agenda\nmy item\n')
})

test('when the owner stops sharing, the note leaves the other list and their later saves are refused; deleting it there only leaves the share', async () => {
  const { owner, other, base, id } = await sharedNote('stop', 'draft\n')
  const ended = await shares(owner, { op: 'unshare', id: 'plan', person: 'stop-bob' })
  assert.deepEqual(ended.json, { ok: true, was: true })
  assert.deepEqual((await app.call('GET', '/api/notes/shared', { cookie: other })).json.notes, [])
  const late = await save(other, id, 'draft\nmy unsynced words\n', base)
  assert.equal(late.status, 403)
  assert.equal(late.headers['x-error-code'], 'not_shared')
  assert.equal((await app.call('GET', `/api/notes?id=${id}`, { cookie: other })).status, 404)
  assert.equal(
    (await app.call('GET', '/api/notes?id=plan', { cookie: owner })).json.text,
    'draft\n',
  )

  // Shared again, a delete by the other person ends the share for them; the note stays.
  await shares(owner, { op: 'share', id: 'plan', person: 'stop-bob', access: 'edit' })
  const again = (await app.call('GET', '/api/notes/shared', { cookie: other })).json.notes[0].id
  assert.notEqual(again, id)
  assert.deepEqual((await app.post(other, { op: 'delete', id: again, base: 0 })).json, { ok: true })
  assert.deepEqual((await app.call('GET', '/api/notes/shared', { cookie: other })).json.notes, [])
  assert.equal(
    (await app.call('GET', '/api/notes?id=plan', { cookie: owner })).json.text,
    'draft\n',
  )
})

test('an id chosen to reach another person note is refused: a shared id of someone else, and the owner own id', async () => {
  const { owner, base, id } = await sharedNote('steal', 'secret\n')
  const eve = await signIn('steal-eve', 'Eve', 'eve-steal')
  for (const answer of [
    await save(eve, id, 'mine now\n', base),
    await app.post(eve, { op: 'delete', id, base }),
  ]) {
    assert.equal(answer.status, 403)
    assert.deepEqual(answer.json, { error: 'this note is not shared with you' })
  }
  assert.equal((await app.call('GET', `/api/notes?id=${id}`, { cookie: eve })).status, 404)
  assert.equal(
    (await app.call('GET', `/api/notes/revisions?id=${id}`, { cookie: eve })).status,
    404,
  )
  // A long id of another form is refused as the interface says.
  const long = await save(eve, `shared-${'x'.repeat(65)}`, 'x', 0)
  assert.deepEqual([long.status, long.json], [400, { error: 'id / local too long' }])
  // The owner's own id is Eve's own note, never the owner's.
  assert.equal((await save(eve, 'plan', 'eve plan\n', 0)).json.text, 'eve plan\n')
  assert.equal(
    (await app.call('GET', '/api/notes?id=plan', { cookie: owner })).json.text,
    'secret\n',
  )
  // Nor can the owner be shared a note by naming an id of the other's.
  const made = await shares(eve, {
    op: 'share',
    id: 'nothing',
    person: 'steal-ann',
    access: 'edit',
  })
  assert.deepEqual([made.status, made.json], [404, { error: 'no such note' }])
})

test('people are found by a whole sign-in or display name only, never by a part, and never oneself', async () => {
  const me = await signIn('find-me', 'Carol Finder', 'carol-find')
  await signIn('find-dan', 'Dan Found', 'dan-find')
  const find = async (name: string) =>
    (await app.call('GET', `/api/notes/people?name=${encodeURIComponent(name)}`, { cookie: me }))
      .json
  assert.deepEqual((await find('dan')).people, [])
  assert.deepEqual((await find('dan Found')).people, [
    { id: 'find-dan', name: 'Dan Found (dan-find)' },
  ])
  assert.deepEqual((await find('carol-find')).people, [])
  const empty = await app.call('GET', '/api/notes/people?name=', { cookie: me })
  assert.deepEqual(
    [empty.status, empty.json],
    [400, { error: "'name' must not be empty", field: 'name' }],
  )
  assert.equal((await app.call('GET', '/api/notes/people?name=dan-find')).status, 401)
  const self = await shares(me, { op: 'share', id: 'x', person: 'find-me', access: 'edit' })
  assert.equal(self.status, 400)
  const bad = await shares(me, { op: 'share', id: 'x', person: 'find-dan', access: 'write' })
  assert.deepEqual(bad.json, {
    error: "share needs id, person (strings) and access ('edit' or 'read')",
  })
})

test('a wait on an open shared note answers when the other person saves, and 404 once the share ends', async () => {
  const { owner, other, base, id } = await sharedNote('wait', 'one\n')
  const waiting = app.call('GET', `/api/notes/wait?id=${id}&edited=${base}`, { cookie: other })
  const ownerWaiting = app.call('GET', `/api/notes/wait?id=plan&edited=${base}`, { cookie: owner })
  const saved = await save(owner, 'plan', 'one\ntwo\n', base)
  const woke = await waiting
  assert.deepEqual(woke.json, { id, edited: saved.json.edited, gone: false })
  assert.equal((await ownerWaiting).json.edited, saved.json.edited)
  // Already newer than the page's: answered at once.
  const behind = await app.call('GET', `/api/notes/wait?id=${id}&edited=${base}`, { cookie: other })
  assert.equal(behind.json.edited, saved.json.edited)
  const held = app.call('GET', `/api/notes/wait?id=${id}&edited=${saved.json.edited}`, {
    cookie: other,
  })
  await shares(owner, { op: 'unshare', id: 'plan', person: 'wait-bob' })
  assert.equal((await held).status, 404)
  const bad = await app.call('GET', `/api/notes/wait?id=plan&edited=x`, { cookie: owner })
  assert.deepEqual(bad.json, { error: "'edited' must be a whole number from 0", field: 'edited' })
})

test('a wait held by another instance of the service (another process) sees the save at its next look', async () => {
  const { owner, other, base, id } = await sharedNote('look', 'one\n')
  const second = createNotesService(app.deps)
  const otherProcess = createHandler(second.routes, { name: 'notes', logger: testLogger() })
  try {
    const waiting = otherProcess(
      makeRequest({ url: `/api/notes/wait?id=${id}&edited=${base}`, headers: { cookie: other } }),
    )
    const saved = await save(owner, 'plan', 'one\ntwo\n', base)
    const woke = await waiting
    assert.equal(woke.status, 200)
    assert.deepEqual(JSON.parse(String(woke.body)), { id, edited: saved.json.edited, gone: false })
  } finally {
    await second.close?.()
  }
})
