/**
 * Notes shared between people, through the app's copy and sync (local.ts, sync.ts) in Node
 * against the real API: a shared note comes into the other person's copy marked with its owner;
 * two people edit it offline, on different lines and then on the same line, and come online;
 * when the owner stops sharing, what the other person typed and had not sent becomes a note of
 * their own.
 */
import 'fake-indexeddb/auto'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { openLocal } from '../../../src/notes/app/local.ts'
import {
  createLocalLock,
  createSync,
  type Send,
  type SyncEvent,
} from '../../../src/notes/app/sync.ts'
import { notesService } from '../support.ts'

const app = await notesService()
let n = 0
const json = { 'content-type': 'application/json' }

/** A device of the person signed in with `cookie`: its copy, its sync, and what it heard. */
async function device(cookie: string) {
  const local = await openLocal(`share-${process.pid}-${++n}`)
  const events: SyncEvent[] = []
  let offline = false
  const send: Send = async (method, path, body) => {
    if (offline) return null
    const res =
      method === 'POST' && path === '/api/notes'
        ? await app.post(cookie, body)
        : await app.call(method, path, {
            cookie,
            ...(body === undefined ? {} : { headers: json, body: JSON.stringify(body) }),
          })
    return { status: res.status, body: res.json }
  }
  const sync = createSync({
    local,
    send,
    clock: Date.now,
    lock: createLocalLock(),
    onEvent: (e) => events.push(e),
  })
  return { local, sync, events, setOffline: (v: boolean) => (offline = v) }
}

/** Ann's note `text`, shared with Bob to edit; both devices hold it. */
async function shared(tag: string, text: string) {
  const annCookie = await app.signIn(`${tag}-ann`)
  const bobCookie = await app.signIn(`${tag}-bob`)
  const ann = await device(annCookie)
  const bob = await device(bobCookie)
  await ann.local.edit('plan', text, 1)
  await ann.sync.run()
  const made = await app.call('POST', '/api/notes/shares', {
    cookie: annCookie,
    headers: json,
    body: JSON.stringify({ op: 'share', id: 'plan', person: `${tag}-bob`, access: 'edit' }),
  })
  assert.equal(made.status, 200, made.text)
  await bob.sync.run()
  const [note] = await bob.local.all()
  assert.ok(note, 'the shared note is in the other copy')
  assert.deepEqual(note.shared, { owner: `${tag}-ann`, access: 'edit' })
  assert.equal(note.text, text)
  return { ann, bob, annCookie, bobCookie, id: note.id }
}

test('edits offline on different lines both stay; then on the same line the second to come online gets a conflicted copy of their own', async () => {
  const { ann, bob, id } = await shared('lines', 'eggs\nflour\nsugar\n')
  ann.setOffline(true)
  bob.setOffline(true)
  await ann.local.edit('plan', 'six eggs\nflour\nsugar\n', 2)
  await bob.local.edit(id, 'eggs\nflour\nbrown sugar\n', 2)
  ann.setOffline(false)
  bob.setOffline(false)
  await ann.sync.run()
  await bob.sync.run()
  await ann.sync.run()
  const both = 'six eggs\nflour\nbrown sugar\n'
  assert.equal((await ann.local.get('plan'))!.text, both)
  assert.equal((await bob.local.get(id))!.text, both)

  ann.setOffline(true)
  bob.setOffline(true)
  await ann.local.edit('plan', 'six eggs\nrye flour\nbrown sugar\n', 3)
  await bob.local.edit(id, 'six eggs\nspelt flour\nbrown sugar\n', 3)
  ann.setOffline(false)
  await ann.sync.run()
  bob.setOffline(false)
  await bob.sync.run()
  // Ann came first: the note keeps her line; Bob's is a copy among his own notes, saying whose
  // words the note kept. No word is lost.
  const notes = await bob.local.all()
  const copy = notes.find((note) => note.conflictOf === id)
  assert.ok(copy, 'Bob has a conflicted copy')
  assert.equal(copy.text, 'six eggs\nspelt flour\nbrown sugar\n')
  assert.equal(copy.conflictBy, 'lines-ann')
  assert.equal((await bob.local.get(id))!.text, 'six eggs\nrye flour\nbrown sugar\n')
  assert.ok(bob.events.some((e) => e.kind === 'copy' && e.id === id))
  await ann.sync.run()
  assert.equal((await ann.local.get('plan'))!.text, 'six eggs\nrye flour\nbrown sugar\n')
  assert.deepEqual(
    (await ann.local.all()).map((note) => note.id),
    ['plan'],
    "Ann's copy holds no copy of Bob's",
  )
})

test('when the owner stops sharing, the words the other person had not sent become a note of their own, on the server too', async () => {
  const { ann, bob, annCookie, bobCookie, id } = await shared('stop', 'agenda\n')
  bob.setOffline(true)
  await bob.local.edit(id, 'agenda\nmy unsynced item\n', 2)
  await app.call('POST', '/api/notes/shares', {
    cookie: annCookie,
    headers: json,
    body: JSON.stringify({ op: 'unshare', id: 'plan', person: 'stop-bob' }),
  })
  bob.setOffline(false)
  await bob.sync.run()
  const notes = await bob.local.all()
  assert.equal(notes.length, 1)
  const [own] = notes
  assert.notEqual(own!.id, id)
  assert.equal(own!.shared, undefined)
  assert.equal(own!.text, 'agenda\nmy unsynced item\n')
  assert.ok(bob.events.some((e) => e.kind === 'unshared' && e.kept === own!.id))
  assert.equal((await bob.local.pending()).length, 0)
  const onServer = await app.call('GET', `/api/notes?id=${own!.id}`, { cookie: bobCookie })
  assert.equal(onServer.json.text, 'agenda\nmy unsynced item\n')
  await ann.sync.run()
  assert.equal((await ann.local.get('plan'))!.text, 'agenda\n')
})

test('a save refused because the share ended (sent before the list was read) keeps the words too', async () => {
  const { annCookie, bob, bobCookie, id } = await shared('late', 'list\n')
  await bob.local.edit(id, 'list\nlate words\n', 2)
  await app.call('POST', '/api/notes/shares', {
    cookie: annCookie,
    headers: json,
    body: JSON.stringify({ op: 'unshare', id: 'plan', person: 'late-bob' }),
  })
  await bob.sync.flush()
  const kept = bob.events.find((e) => e.kind === 'unshared')
  assert.ok(kept?.kind === 'unshared' && kept.kept !== null)
  await bob.sync.flush()
  const onServer = await app.call('GET', `/api/notes?id=${kept.kept}`, { cookie: bobCookie })
  assert.equal(onServer.json.text, 'list\nlate words\n')
  assert.equal(await bob.local.get(id), undefined)
})
