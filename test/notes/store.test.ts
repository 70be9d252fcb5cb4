import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createNoteStore, type SaveInput } from '../../src/notes/store.ts'
import { Refusal } from '../../src/http/refusal.ts'
import { connect } from '../../src/db/client.ts'
import { testDatabase } from '../support/db.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'

const T0 = 1_700_000_000_000
const db = await testDatabase()
const { sql } = db
let now = T0
const store = createNoteStore({ sql, clock: () => now })
let users = 0

/** A user of its own for each test, so tests do not see each other's notes. */
function newUser(): string {
  return `user-${++users}`
}

function input(id: string, text: string, base: number, extra: Partial<SaveInput> = {}): SaveInput {
  return { id, local: 'phone', text, base, at: 1_000, ...extra }
}

async function saved(user: string, id: string, text: string, base = 0) {
  const result = await store.save(user, input(id, text, base))
  assert.ok(!(result instanceof Refusal), JSON.stringify(result))
  return result
}

async function revisions(user: string, id: string) {
  return sql`select edited, text, at, local from note_revisions where user_id = ${user} and note_id = ${id} order by edited`
}

test('a save of an unknown id creates the note, with created equal to its first edited', async () => {
  const user = newUser()
  now = T0
  const result = await saved(user, 'n1', 'hello\n')
  assert.deepEqual(result, { id: 'n1', edited: T0, text: 'hello\n' })
  assert.deepEqual(await store.get(user, 'n1'), {
    id: 'n1',
    text: 'hello\n',
    edited: T0,
    created: T0,
  })
})

test('edited rises strictly for a user even when the clock stands still or goes back', async () => {
  const user = newUser()
  now = T0 + 10_000
  const a = await saved(user, 'a', 'x')
  const b = await saved(user, 'b', 'y')
  now = T0 + 5_000
  const c = await saved(user, 'c', 'z')
  assert.deepEqual([a.edited, b.edited, c.edited], [T0 + 10_000, T0 + 10_001, T0 + 10_002])
  now = T0 + 20_000
  assert.equal((await saved(user, 'd', 'w')).edited, T0 + 20_000)
})

test('edited is kept per user: another user at the same time gets the clock time', async () => {
  const [one, two] = [newUser(), newUser()]
  now = T0 + 50_000
  await saved(one, 'a', 'x')
  await saved(one, 'b', 'x')
  assert.equal((await saved(two, 'a', 'x')).edited, T0 + 50_000)
})

test('a save whose base matches the stored edited replaces the text and keeps created', async () => {
  const user = newUser()
  now = T0 + 100_000
  const first = await saved(user, 'n', 'one\n')
  now += 5
  const second = await saved(user, 'n', 'two\n', first.edited)
  assert.deepEqual(second, { id: 'n', edited: T0 + 100_005, text: 'two\n' })
  assert.deepEqual(await store.get(user, 'n'), {
    id: 'n',
    text: 'two\n',
    edited: second.edited,
    created: first.edited,
  })
})

test('every accepted save keeps a revision with its text, edited, at and local', async () => {
  const user = newUser()
  const first = await store.save(user, input('n', 'one\n', 0, { at: 11, local: 'phone' }))
  assert.ok(!(first instanceof Refusal))
  const second = await store.save(
    user,
    input('n', 'two\n', first.edited, { at: 22, local: 'laptop' }),
  )
  assert.ok(!(second instanceof Refusal))
  assert.deepEqual(
    (await revisions(user, 'n')).map((r) => ({ ...r })),
    [
      { edited: first.edited, text: 'one\n', at: 11, local: 'phone' },
      { edited: second.edited, text: 'two\n', at: 22, local: 'laptop' },
    ],
  )
})

test('a save from an older base with edits in other lines merges, stores and answers the merged text', async () => {
  const user = newUser()
  const base = await saved(user, 'n', 'a\nb\nc\n')
  const phone = await saved(user, 'n', 'A\nb\nc\n', base.edited)
  const laptop = await store.save(user, input('n', 'a\nb\nC\n', base.edited, { local: 'laptop' }))
  assert.ok(!(laptop instanceof Refusal))
  assert.equal(laptop.text, 'A\nb\nC\n')
  assert.equal(laptop.copy, undefined)
  assert.ok(laptop.edited > phone.edited)
  assert.equal((await store.get(user, 'n'))?.text, 'A\nb\nC\n')
  assert.deepEqual(
    (await revisions(user, 'n')).map((r) => r.text),
    ['a\nb\nc\n', 'A\nb\nc\n', 'A\nb\nC\n'],
  )
})

test('overlapping edits keep the stored text and save the sent text as a copy', async () => {
  const user = newUser()
  const base = await saved(user, 'n', 'title\n')
  const phone = await saved(user, 'n', 'phone title\n', base.edited)
  const laptop = await store.save(user, input('n', 'laptop title\n', base.edited))
  assert.ok(!(laptop instanceof Refusal) && laptop.copy)
  assert.deepEqual(
    { id: laptop.id, edited: laptop.edited, text: laptop.text },
    { id: 'n', edited: phone.edited, text: 'phone title\n' },
  )
  assert.equal(laptop.copy.text, 'laptop title\n')
  assert.ok(laptop.copy.edited > phone.edited)
  assert.match(laptop.copy.id, /^n-copy-[A-Za-z0-9_-]{12}$/)
  assert.equal((await store.get(user, 'n'))?.text, 'phone title\n')
  assert.deepEqual(await store.get(user, laptop.copy.id), {
    id: laptop.copy.id,
    text: 'laptop title\n',
    edited: laptop.copy.edited,
    created: laptop.copy.edited,
  })
  assert.deepEqual(
    (await revisions(user, laptop.copy.id)).map((r) => r.text),
    ['laptop title\n'],
  )
})

test('a base whose text is not known makes a copy', async () => {
  const user = newUser()
  const stored = await saved(user, 'n', 'stored\n')
  const result = await store.save(user, input('n', 'sent\n', stored.edited - 1))
  assert.ok(!(result instanceof Refusal) && result.copy)
  assert.equal(result.text, 'stored\n')
  assert.equal(result.copy.text, 'sent\n')
})

test('a copy of a note with a 64-character id has an id of at most 64 characters', async () => {
  const user = newUser()
  const id = 'x'.repeat(39) + '😀' + 'y'.repeat(23)
  await saved(user, id, 'stored\n')
  const result = await store.save(user, input(id, 'sent\n', 1))
  assert.ok(!(result instanceof Refusal) && result.copy)
  assert.ok(result.copy.id.length <= 64, result.copy.id)
  assert.ok(
    result.copy.id.startsWith('x'.repeat(39) + '-copy-'),
    'a surrogate pair is not cut in half',
  )
})

test('identical texts never make a copy and change nothing, whatever the base', async () => {
  const user = newUser()
  const stored = await saved(user, 'n', 'same\n')
  for (const base of [0, stored.edited - 1, stored.edited]) {
    const result = await store.save(user, input('n', 'same\n', base))
    assert.deepEqual(result, { id: 'n', edited: stored.edited, text: 'same\n' })
  }
  assert.deepEqual(
    (await store.list(user)).map((r) => r.id),
    ['n'],
  )
  assert.equal((await revisions(user, 'n')).length, 1)
})

test('a merge that adds nothing to the stored text changes nothing', async () => {
  const user = newUser()
  const base = await saved(user, 'n', 'a\nb\n')
  const phone = await saved(user, 'n', 'A\nb\n', base.edited)
  const again = await store.save(user, input('n', 'a\nb\n', base.edited))
  assert.deepEqual(again, { id: 'n', edited: phone.edited, text: 'A\nb\n' })
})

test('an edit beats a deletion: a save to a tombstone brings the note back with the sent text', async () => {
  const user = newUser()
  const first = await saved(user, 'n', 'first\n')
  assert.deepEqual(await store.remove(user, { id: 'n', base: first.edited }), { ok: true })
  const revived = await saved(user, 'n', 'edited offline\n', first.edited)
  assert.equal(revived.text, 'edited offline\n')
  assert.equal(revived.copy, undefined)
  assert.deepEqual(await store.get(user, 'n'), {
    id: 'n',
    text: 'edited offline\n',
    edited: revived.edited,
    created: first.edited,
  })
  assert.deepEqual(await store.list(user), [{ id: 'n', edited: revived.edited, gone: false }])
})

test('a delete whose base matches makes a tombstone that the list shows as gone', async () => {
  const user = newUser()
  const note = await saved(user, 'n', 'x')
  assert.deepEqual(await store.remove(user, { id: 'n', base: note.edited }), { ok: true })
  assert.equal(await store.get(user, 'n'), null)
  const [row] = await store.list(user)
  assert.equal(row?.gone, true)
  assert.ok(row.edited > note.edited)
})

test('a delete of a note edited elsewhere keeps it and answers kept with the note', async () => {
  const user = newUser()
  const first = await saved(user, 'n', 'one\n')
  const second = await saved(user, 'n', 'two\n', first.edited)
  assert.deepEqual(await store.remove(user, { id: 'n', base: first.edited }), {
    kept: true,
    id: 'n',
    edited: second.edited,
    text: 'two\n',
  })
  assert.equal((await store.get(user, 'n'))?.text, 'two\n')
})

test('a delete of an unknown or already deleted note answers ok and changes nothing', async () => {
  const user = newUser()
  assert.deepEqual(await store.remove(user, { id: 'nothing', base: 5 }), { ok: true })
  const note = await saved(user, 'n', 'x')
  await store.remove(user, { id: 'n', base: note.edited })
  const before = await store.list(user)
  assert.deepEqual(await store.remove(user, { id: 'n', base: 123 }), { ok: true })
  assert.deepEqual(await store.list(user), before)
  assert.deepEqual(
    before.map((r) => r.id),
    ['n'],
  )
})

test('the list is oldest edit first, tombstones included, and since lists only later edits', async () => {
  const user = newUser()
  const a = await saved(user, 'a', '1')
  const b = await saved(user, 'b', '1')
  const c = await saved(user, 'c', '1')
  const a2 = await saved(user, 'a', '2', a.edited)
  await store.remove(user, { id: 'b', base: b.edited })
  const list = await store.list(user)
  assert.deepEqual(
    list.map((r) => [r.id, r.gone]),
    [
      ['c', false],
      ['a', false],
      ['b', true],
    ],
  )
  assert.deepEqual(
    (await store.list(user, c.edited)).map((r) => r.id),
    ['a', 'b'],
  )
  assert.deepEqual(
    (await store.list(user, a2.edited)).map((r) => r.id),
    ['b'],
  )
  assert.deepEqual(await store.list(user, list.at(-1)!.edited), [])
})

/** What a store refusal says: its status, message and field. */
const said = (refusal: unknown) => {
  assert.ok(refusal instanceof Refusal, JSON.stringify(refusal))
  return { status: refusal.status, error: refusal.message, field: refusal.field }
}

test("the store refuses a save's bad fields with a 400 naming the field", async () => {
  const user = newUser()
  const cases: [Partial<SaveInput>, string, string][] = [
    [{ id: '' }, "'id' must not be empty", 'id'],
    [{ local: '' }, "'local' must not be empty", 'local'],
    [{ text: 'x'.repeat(1_000_001) }, "'text' is longer than 1,000,000 characters", 'text'],
    [{ base: -1 }, "'base' must be a whole number from 0", 'base'],
    [{ base: 1.5 }, "'base' must be a whole number from 0", 'base'],
    [{ base: 2 ** 53 }, "'base' must be a whole number from 0", 'base'],
    [{ at: Infinity }, "'at' must be a whole number from 0", 'at'],
    [{ at: NaN }, "'at' must be a whole number from 0", 'at'],
    [{ text: 'a\u0000b' }, "'text' must not contain the character U+0000", 'text'],
    [{ id: 'a\u0000' }, "'id' must not contain the character U+0000", 'id'],
    [{ local: '\uD800' }, "'local' must be valid Unicode (it has a lone surrogate)", 'local'],
    [{ text: 'a\uDC00' }, "'text' must be valid Unicode (it has a lone surrogate)", 'text'],
  ]
  for (const [change, error, field] of cases) {
    assert.deepEqual(
      said(await store.save(user, { ...input('n', 'text', 0), ...change })),
      { status: 400, error, field },
      JSON.stringify(change).slice(0, 80),
    )
  }
  assert.deepEqual(await store.list(user), [])
})

test('a text of exactly 1,000,000 characters and a surrogate pair are accepted and stored as sent', async () => {
  const user = newUser()
  const text = 'é😀\r\n' + 'x'.repeat(1_000_000 - 5)
  assert.equal(text.length, 1_000_000)
  await saved(user, 'n', text)
  assert.equal((await store.get(user, 'n'))?.text, text)
})

test("the store refuses a delete's bad base or empty id with a 400 naming the field", async () => {
  const user = newUser()
  assert.deepEqual(said(await store.remove(user, { id: 'n', base: -3 })), {
    status: 400,
    error: "'base' must be a whole number from 0",
    field: 'base',
  })
  assert.deepEqual(said(await store.remove(user, { id: 'n', base: 1e300 })), {
    status: 400,
    error: "'base' must be a whole number from 0",
    field: 'base',
  })
  assert.deepEqual(said(await store.remove(user, { id: '', base: 1 })), {
    status: 400,
    error: "'id' must not be empty",
    field: 'id',
  })
})

test('a delete whose connection is cut before its commit is run again on another connection, and the note is gone once', async (t) => {
  const user = newUser()
  now = T0 + 50_000
  const first = await saved(user, 'cut', 'to go\n')
  const target = new URL(db.url)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const url = new URL(db.url)
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  let cuts = 0
  const cutSql = connect(url.href, {
    max: 2,
    schema: db.schema,
    // The delete's locking read is on the wire: the connection breaks before any commit is sent.
    onQuery: (statement) => {
      if (cuts === 0 && /for update/.test(statement)) {
        cuts++
        proxy.cut()
      }
    },
  })
  t.after(async () => {
    await cutSql.end({ timeout: 1 })
    await proxy.close()
  })
  const cutStore = createNoteStore({ sql: cutSql, clock: () => now })
  assert.deepEqual(await cutStore.remove(user, { id: 'cut', base: first.edited }), { ok: true })
  assert.equal(cuts, 1)
  assert.equal(await store.get(user, 'cut'), null)
})
