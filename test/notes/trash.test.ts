/**
 * Recently deleted notes (docs/notes-api.md, "Recently deleted"): listed with their last text
 * for 30 days, brought back by a save as the interface already allows, removed for good after
 * 30 days (on the test's clock) or at once by emptying the trash, the tombstone staying.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createNotesService } from '../../src/notes/service.ts'
import { createNoteStore, TRASH_MS } from '../../src/notes/store.ts'
import { until } from '../support/wait.ts'
import { assertAnswers, notesService } from './support.ts'

const app = await notesService()
const DAY = 24 * 60 * 60 * 1000

async function saveAndDelete(cookie: string, id: string, texts: string[]): Promise<number> {
  let edited = 0
  for (const text of texts)
    edited = (await app.post(cookie, { op: 'save', id, local: 'phone', text, base: edited, at: 1 }))
      .json.edited
  const answer = await app.post(cookie, { op: 'delete', id, base: edited })
  assert.deepEqual(answer.json, { ok: true })
  return (await app.call('GET', '/api/notes', { cookie })).json.notes.find(
    (n: { id: string }) => n.id === id,
  ).edited
}

const trashOf = async (cookie: string) =>
  (await app.call('GET', '/api/notes/trash', { cookie })).json.notes as {
    id: string
    deleted: number
    until: number
    text: string
  }[]
const revisionCount = async (user: string, id: string) =>
  (
    await app.sql<
      { n: number }[]
    >`select count(*)::int as n from note_revisions where user_id = ${user} and note_id = ${id}`
  )[0]!.n

test('a deleted note is listed in the trash with its last text, when it was deleted and until when it is kept, last deleted first', async () => {
  const alice = await app.signIn('t-alice')
  const first = await saveAndDelete(alice, 'groceries', ['milk\n', 'milk\neggs\n'])
  app.clock.advance(10)
  const second = await saveAndDelete(alice, 'plans', ['plans\n'])
  const res = await app.call('GET', '/api/notes/trash', { cookie: alice })
  assert.equal(res.status, 200)
  assert.equal(res.headers['cache-control'], 'private, no-store')
  assert.deepEqual(res.json, {
    notes: [
      { id: 'plans', deleted: second, until: second + TRASH_MS, text: 'plans\n' },
      { id: 'groceries', deleted: first, until: first + 30 * DAY, text: 'milk\neggs\n' },
    ],
  })
  assert.deepEqual(await trashOf(await app.signIn('t-bob')), [], 'another person sees none of it')
})

test('a save brings a deleted note back as it was, with its history, and it leaves the trash', async () => {
  const alice = await app.signIn('t-restore')
  const deleted = await saveAndDelete(alice, 'diary', ['one\n', 'one\ntwo\n'])
  const back = await app.post(alice, {
    op: 'save',
    id: 'diary',
    local: 'laptop',
    text: 'one\ntwo\n',
    base: deleted,
    at: 2,
  })
  assert.equal(back.status, 200)
  assert.equal(
    (await app.call('GET', '/api/notes?id=diary', { cookie: alice })).json.text,
    'one\ntwo\n',
  )
  const history = (
    await app.call('GET', '/api/notes/revisions?id=diary', { cookie: alice })
  ).json.revisions.map((r: { text: string }) => r.text)
  assert.deepEqual(history, ['one\ntwo\n', 'one\ntwo\n', 'one\n'])
  assert.deepEqual(await trashOf(alice), [])
})

test('after 30 days the text and history are removed for good, the tombstone stays listed, and a note deleted later is kept', async () => {
  let cookie = await app.signIn('t-purge')
  const old = await saveAndDelete(cookie, 'old', ['old words\n', 'older words\n'])
  app.clock.advance(2 * DAY)
  await saveAndDelete(cookie, 'recent', ['recent words\n'])
  app.clock.advance(28 * DAY + 1000)
  // A session does not last 30 days: signed in again.
  cookie = await app.signIn('t-purge')
  assert.deepEqual(
    (await trashOf(cookie)).map((n) => n.id),
    ['recent'],
    'the trash no longer lists a note past its 30 days',
  )

  const store = createNoteStore({ sql: app.sql, clock: app.clock.now })
  assert.ok((await store.purge(null, app.clock.now() - TRASH_MS)) >= 1)
  const [row] = await app.sql<
    { text: string; gone: boolean; purged: boolean; edited: number }[]
  >`select text, gone, purged, edited from notes where user_id = 't-purge' and id = 'old'`
  assert.deepEqual(row, { text: '', gone: true, purged: true, edited: old })
  assert.equal(await revisionCount('t-purge', 'old'), 0)
  assert.equal(
    await revisionCount('t-purge', 'recent'),
    1,
    'a note deleted 28 days ago keeps its history',
  )
  const list = (await app.call('GET', '/api/notes', { cookie })).json.notes
  assert.deepEqual(
    list.find((n: { id: string }) => n.id === 'old'),
    { id: 'old', edited: old, gone: true },
  )

  // A device offline all along still brings its text back: the edit beats the deletion.
  const saved = await app.post(cookie, {
    op: 'save',
    id: 'old',
    local: 'tablet',
    text: 'kept on the tablet\n',
    base: 5,
    at: 3,
  })
  assert.equal(saved.json.text, 'kept on the tablet\n')
  assert.equal(
    (await app.call('GET', '/api/notes?id=old', { cookie })).json.text,
    'kept on the tablet\n',
  )
})

test('the service removes notes past their 30 days by itself, at start and every hour after', async () => {
  const cookie = await app.signIn('t-sweep')
  await saveAndDelete(cookie, 'swept', ['sweep me\n'])
  app.clock.advance(31 * DAY)
  const service = createNotesService(app.deps)
  try {
    await until(
      async () =>
        (
          await app.sql<
            { purged: boolean }[]
          >`select purged from notes where user_id = 't-sweep' and id = 'swept'`
        )[0]!.purged,
    )
  } finally {
    await service.close?.()
  }
  assert.equal(await revisionCount('t-sweep', 'swept'), 0)
})

test("Empty trash removes every deleted note's text and history at once, and no live note", async () => {
  const cookie = await app.signIn('t-empty')
  await saveAndDelete(cookie, 'a', ['a\n'])
  await saveAndDelete(cookie, 'b', ['b\n'])
  await app.post(cookie, {
    op: 'save',
    id: 'live',
    local: 'phone',
    text: 'stays\n',
    base: 0,
    at: 1,
  })
  const res = await app.call('POST', '/api/notes/trash', {
    cookie,
    headers: { 'content-type': 'application/json' },
    body: '{"op":"empty"}',
  })
  assert.equal(res.status, 200)
  assert.deepEqual(res.json, { ok: true, removed: 2 })
  assert.deepEqual(await trashOf(cookie), [])
  assert.equal(await revisionCount('t-empty', 'a'), 0)
  assert.equal(await revisionCount('t-empty', 'live'), 1)
  assert.equal(
    (await app.call('GET', '/api/notes', { cookie })).json.notes.length,
    3,
    'the tombstones stay listed',
  )
})

test('the checks of /api/notes/trash come in the order of /api/notes', async () => {
  const cookie = await app.signIn('t-checks')
  const json = { 'content-type': 'application/json' }
  await assertAnswers(app, '/api/notes/trash', [
    ['GET', {}, 401, { error: 'log in with idp first' }],
    ['POST', { headers: json, body: '{"op":"empty"}' }, 401, { error: 'log in with idp first' }],
    ['PUT', { cookie }, 405, { error: 'GET or POST only' }],
    ['POST', { cookie, headers: json }, 400, { error: 'a JSON body is needed' }],
    [
      'POST',
      { cookie, headers: json, body: '{"op":' },
      400,
      { error: 'invalid JSON at character 6' },
    ],
    [
      'POST',
      { cookie, headers: json, body: '[]' },
      400,
      { error: 'the body must be a JSON object' },
    ],
    [
      'POST',
      { cookie, headers: json, body: '{"op":"burn"}' },
      400,
      { error: "op must be 'empty'" },
    ],
    [
      'POST',
      { cookie, headers: json, body: '{"op":"empty","id":"x"}' },
      400,
      { error: "unknown field 'id'" },
    ],
  ])
  const crossSite = await app.call('POST', '/api/notes/trash', {
    cookie,
    headers: { ...json, 'sec-fetch-site': 'cross-site' },
    body: '{"op":"empty"}',
  })
  assert.equal(crossSite.status, 403)
})
