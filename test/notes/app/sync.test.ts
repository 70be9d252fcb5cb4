/**
 * The app's copy (local.ts) and sync (sync.ts) in Node, against the real notes API handlers.
 * IndexedDB comes from fake-indexeddb (a dev dependency): the copy's code runs unchanged, so its
 * transactions and the queue's rules are tested here without a browser.
 */
import 'fake-indexeddb/auto'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { openLocal, type Local } from '../../../src/notes/app/local.ts'
import {
  createLocalLock,
  createSync,
  type Send,
  type SyncEvent,
} from '../../../src/notes/app/sync.ts'
import { notesService } from '../support.ts'

const app = await notesService()
let n = 0

/**
 * Runs `work` (a call to the service) the way a link that is answering reports it: a piece every
 * few milliseconds, so that the sync's time limit, which counts silence, never cuts a slow
 * answer on a busy machine.
 */
async function answering<T>(watch: Parameters<Send>[3], work: () => Promise<T>): Promise<T> {
  const beat = setInterval(() => watch?.alive(), 10)
  try {
    return await work()
  } finally {
    clearInterval(beat)
  }
}

/** A device of `user`: its own copy, a sync on it, the requests it sent and the events it heard. */
async function device(
  cookie: string,
  options: {
    before?: (body: any) => Promise<void> | void
    lock?: ReturnType<typeof createLocalLock>
    local?: Local
    timeout?: number
  } = {},
) {
  const local = options.local ?? (await openLocal(`test-${process.pid}-${++n}`))
  const posts: any[] = []
  const events: SyncEvent[] = []
  let offline = false
  const send: Send = async (method, path, body, watch) => {
    if (offline) return null
    if (method === 'POST') {
      posts.push(body)
      await options.before?.(body)
    }
    const res = await answering(watch, () =>
      method === 'POST' ? app.post(cookie, body) : app.call('GET', path, { cookie }),
    )
    return { status: res.status, body: res.json }
  }
  const sync = createSync({
    local,
    send,
    clock: Date.now,
    lock: options.lock ?? createLocalLock(),
    onEvent: (e) => events.push(e),
    ...(options.timeout ? { timeout: options.timeout } : {}),
  })
  return { local, sync, posts, events, setOffline: (v: boolean) => (offline = v) }
}

/** A phone and a laptop of one new user, both holding note `id` with `text` as the phone saved it. */
async function twoDevicesWith(name: string, id: string, text: string) {
  const user = await app.signIn(name)
  const phone = await device(user)
  const laptop = await device(user)
  await phone.local.edit(id, text, 1)
  await phone.sync.flush()
  await laptop.sync.pull()
  return { user, phone, laptop }
}

async function serverText(cookie: string, id: string): Promise<string | null> {
  const res = await app.call('GET', `/api/notes?id=${encodeURIComponent(id)}`, { cookie })
  return res.status === 200 ? res.json.text : null
}

test("once its save is taken, the device that wrote a note keeps the server's time for it, the time every other device shows", async () => {
  const { phone, laptop } = await twoDevicesWith('u-one-time', 'one-time', 'Bought the seeds')
  const onPhone = (await phone.local.all()).find((n) => n.id === 'one-time')!
  const onLaptop = (await laptop.local.all()).find((n) => n.id === 'one-time')!
  assert.notEqual(onLaptop.edited, 1, "the laptop has the server's time, not the phone's clock")
  assert.equal(onPhone.edited, onLaptop.edited)
})

test(
  'a save that never gets an answer is given up after the time limit, the sync is free again, and the next try sends the edit',
  { timeout: 10_000 },
  async () => {
    const user = await app.signIn('u-hung')
    let hung = true
    const d = await device(user, {
      timeout: 500,
      before: () => (hung ? new Promise<void>(() => {}) : undefined),
    })
    await d.local.edit('a', 'typed while the connection hung', 1)
    const started = Date.now()
    assert.equal(await d.sync.flush(), false, 'the hung save counts as failed')
    assert.ok(Date.now() - started < 5_000)
    assert.equal((await d.local.pending()).length, 1, 'the edit still waits in the queue')
    hung = false
    assert.equal(await d.sync.flush(), true)
    assert.equal(await serverText(user, 'a'), 'typed while the connection hung')
    assert.equal((await d.local.pending()).length, 0)
  },
)

test(
  'a request that keeps sending pieces is not given up, however long it takes in all; one silent for the limit is',
  { timeout: 10_000 },
  async () => {
    const user = await app.signIn('u-slow')
    const local = await openLocal(`test-${process.pid}-slow`)
    await local.edit('slow', 'a save on a slow link', 1)
    // A send that reports a piece every 60 ms for 600 ms, then answers; the limit is 500 ms.
    const slow: Send = async (method, path, body, watch) => {
      for (let i = 0; i < 10; i++) {
        await new Promise((r) => setTimeout(r, 60))
        if (watch?.signal.aborted) return null
        watch?.alive()
      }
      const res = await answering(watch, () => app.post(user, body))
      return { status: res.status, body: res.json }
    }
    const sync = createSync({
      local,
      send: slow,
      clock: Date.now,
      lock: createLocalLock(),
      onEvent: () => {},
      timeout: 500,
    })
    assert.equal(await sync.flush(), true, 'the slow save went through')
    assert.equal(await serverText(user, 'slow'), 'a save on a slow link')
    // The same, silent after its third piece: given up, and its signal aborted.
    await local.edit('slow', 'a save on a link that stops', 2)
    let aborted = false
    const stalls: Send = async (method, path, body, watch) => {
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 60))
        watch?.alive()
      }
      await new Promise<void>((r) => watch?.signal.addEventListener('abort', () => r()))
      aborted = true
      return null
    }
    const stalled = createSync({
      local,
      send: stalls,
      clock: Date.now,
      lock: createLocalLock(),
      onEvent: () => {},
      timeout: 500,
    })
    assert.equal(await stalled.flush(), false)
    assert.ok(aborted, 'the request was aborted')
    assert.equal((await local.pending()).length, 1, 'the edit still waits in the queue')
  },
)

test('an edit is in the copy and the queue before anything is sent; typing on replaces the queued text', async () => {
  const user = await app.signIn('u-queue')
  const d = await device(user)
  await d.local.edit('a', 'h', 1)
  await d.local.edit('a', 'he', 2)
  await d.local.edit('a', 'hello', 3)
  assert.equal(d.posts.length, 0)
  assert.deepEqual(
    (await d.local.pending()).map((e) => [e.id, e.op, e.text, e.base]),
    [['a', 'save', 'hello', 0]],
  )
  assert.equal((await d.local.get('a'))?.text, 'hello')
  assert.equal(await d.sync.flush(), true)
  assert.equal(d.posts.length, 1)
  assert.equal(await serverText(user, 'a'), 'hello')
  assert.equal(await d.local.waiting(), 0)
  const note = await d.local.get('a')
  assert.ok(note!.base > 0, 'the base moves on to the answer')
  await d.local.edit('a', 'hello world', 4)
  assert.equal((await d.local.pending())[0]!.base, note!.base)
})

test('text typed while a save is on its way stays queued with the new base and is sent next', async () => {
  const user = await app.signIn('u-typing')
  let typed = false
  const d = await device(user, {
    before: async () => {
      if (!typed) {
        typed = true
        await d.local.edit('t', 'one two', 2)
      }
    },
  })
  await d.local.edit('t', 'one', 1)
  assert.equal(await d.sync.flush(), true)
  assert.deepEqual(
    d.posts.map((p) => p.text),
    ['one', 'one two'],
  )
  assert.equal(
    d.posts[1].base,
    (await app.call('GET', '/api/notes/revisions?id=t', { cookie: user })).json.revisions[1].edited,
  )
  assert.equal(await serverText(user, 't'), 'one two')
})

test('an edit made before the editor heard that its last save was taken goes on from that save, not into a copy of itself', async () => {
  const user = await app.signIn('u-quick')
  const d = await device(user)
  // The editor opened a new note (nothing on the server: base 0, no text) and typed "Second".
  await d.local.edit('q', 'Second', 1, { base: 0, text: '' })
  assert.equal(await d.sync.flush(), true)
  // The save's answer is in the copy, but the editor still thinks it edits from base 0.
  await d.local.edit('q', 'Second, edited', 2, { base: 0, text: 'Second' })
  assert.equal(await d.sync.flush(), true)
  assert.equal(await serverText(user, 'q'), 'Second, edited')
  assert.equal(d.events.filter((e) => e.kind === 'copy').length, 0, 'no conflicted copy')
  const listed = (await app.call('GET', '/api/notes/changes?since=0', { cookie: user })).json
  assert.deepEqual(
    listed.notes.map((n: { text: string }) => n.text),
    ['Second, edited'],
  )
})

test('an edit started from text another device has since changed keeps its older base, so the server merges it', async () => {
  const { user, phone, laptop } = await twoDevicesWith('u-older', 'o', 'a\nb\nc\n')
  const started = (await laptop.local.get('o'))!
  await phone.local.edit('o', 'A\nb\nc\n', 2)
  await phone.sync.flush()
  await laptop.sync.pull()
  // The laptop's editor still shows the text it started from when the person types.
  await laptop.local.edit('o', 'a\nb\nC\n', 3, { base: started.base, text: started.text })
  await laptop.sync.flush()
  assert.equal(await serverText(user, 'o'), 'A\nb\nC\n')
})

test('a merged answer replaces the copy, and typing since the save was sent is merged into it', async () => {
  const user = await app.signIn('u-merge')
  const phone = await device(user)
  await phone.local.edit('m', 'a\nb\nc\n', 1)
  await phone.sync.flush()
  let typed = false
  const laptop = await device(user, {
    before: async (body) => {
      if (!typed && body.text === 'a\nb\nC\n') {
        typed = true
        await laptop.local.edit('m', 'a\nb\nC\nd\n', 3)
      }
    },
  })
  await laptop.sync.pull()
  assert.equal((await laptop.local.get('m'))?.text, 'a\nb\nc\n')
  await phone.local.edit('m', 'A\nb\nc\n', 2)
  await phone.sync.flush()
  await laptop.local.edit('m', 'a\nb\nC\n', 2)
  await laptop.sync.flush()
  assert.equal(await serverText(user, 'm'), 'A\nb\nC\nd\n')
  assert.equal((await laptop.local.get('m'))?.text, 'A\nb\nC\nd\n')
  assert.ok(laptop.events.some((e) => e.kind === 'merged' && e.text === 'A\nb\nC\n'))
  await phone.sync.pull()
  assert.equal((await phone.local.get('m'))?.text, 'A\nb\nC\nd\n')
})

test('a copy answer keeps the stored text in the note and makes ours a conflicted copy', async () => {
  const { phone, laptop } = await twoDevicesWith('u-copy', 'c', 'blue\n')
  await phone.local.edit('c', 'green\n', 2)
  await phone.sync.flush()
  await laptop.local.edit('c', 'red\n', 3)
  await laptop.sync.flush()
  const copy = laptop.events.find((e) => e.kind === 'copy') as Extract<SyncEvent, { kind: 'copy' }>
  assert.ok(copy)
  assert.equal((await laptop.local.get('c'))?.text, 'green\n')
  const kept = await laptop.local.get(copy.copyId)
  assert.equal(kept?.text, 'red\n')
  assert.equal(kept?.conflictOf, 'c')
  assert.equal(kept?.conflictHere, true, "the copy holds this device's text")
  // The other device sees the copy as a conflicted copy of the note too, made elsewhere.
  await phone.sync.pull()
  assert.equal((await phone.local.get(copy.copyId))?.conflictOf, 'c')
  assert.equal((await phone.local.get(copy.copyId))?.conflictHere, undefined)
  // A newer text of the copy from elsewhere leaves it this device's copy.
  const edited = await phone.local.edit(copy.copyId, 'red\nand pink\n', 4)
  assert.equal(edited.conflictHere, undefined)
  await phone.sync.flush()
  await laptop.sync.pull()
  assert.equal((await laptop.local.get(copy.copyId))?.text, 'red\nand pink\n')
  assert.equal((await laptop.local.get(copy.copyId))?.conflictHere, true)
  await laptop.local.mark(copy.copyId, {})
  assert.equal(
    (await laptop.local.get(copy.copyId))?.conflictHere,
    undefined,
    'sorted out, an ordinary note',
  )
})

test('a delete waits out its Undo; Undo puts back the save it replaced', async () => {
  const user = await app.signIn('u-undo')
  const d = await device(user)
  await d.local.edit('x', 'keep me', 1)
  await d.local.remove('x', Date.now(), 60_000)
  assert.deepEqual(
    (await d.local.all()).map((n) => n.id),
    [],
  )
  assert.equal(await d.sync.flush(), false, 'the delete is not due yet')
  assert.equal(d.posts.length, 0)
  assert.equal(await d.local.undoRemove('x'), true)
  assert.deepEqual(
    (await d.local.pending()).map((e) => [e.op, e.text]),
    [['save', 'keep me']],
  )
  assert.equal(await d.sync.flush(), true)
  assert.equal(await serverText(user, 'x'), 'keep me')
  await d.local.remove('x', Date.now(), 0)
  assert.equal(await d.sync.flush(), true)
  assert.equal(await serverText(user, 'x'), null)
  assert.equal(await d.local.get('x'), undefined)
  assert.equal(await d.local.undoRemove('x'), false, 'a sent delete cannot be undone')
})

test('a delete of a note edited elsewhere is answered kept: the note comes back with the other text', async () => {
  const user = await app.signIn('u-kept')
  const phone = await device(user)
  const laptop = await device(user)
  await phone.local.edit('k', 'v1', 1)
  await phone.sync.flush()
  await laptop.sync.pull()
  await phone.local.edit('k', 'v2', 2)
  await phone.sync.flush()
  await laptop.local.remove('k', 0, 0)
  await laptop.sync.flush()
  assert.ok(laptop.events.some((e) => e.kind === 'kept' && e.id === 'k'))
  const back = await laptop.local.get('k')
  assert.equal(back?.text, 'v2')
  assert.equal(back?.deleted, undefined)
})

test('a pull brings new notes, drops deleted ones, and never overwrites an edit waiting to be sent', async () => {
  const user = await app.signIn('u-pull')
  const other = await device(user)
  for (const id of ['p1', 'p2', 'p3']) await other.local.edit(id, `text of ${id}`, 1)
  await other.sync.flush()
  const d = await device(user)
  assert.equal(await d.sync.pull(), true)
  assert.deepEqual((await d.local.all()).map((n) => n.text).sort(), [
    'text of p1',
    'text of p2',
    'text of p3',
  ])
  await d.local.edit('p2', 'mine', 2)
  await other.local.edit('p2', 'theirs', 2)
  await other.local.remove('p3', 0, 0)
  await other.sync.flush()
  await d.sync.pull()
  assert.equal((await d.local.get('p2'))?.text, 'mine')
  assert.equal(await d.local.get('p3'), undefined)
  const since = await d.local.getSince()
  await d.sync.pull()
  assert.equal(await d.local.getSince(), since)
})

/** Puts `count` notes of about 1 KB straight into the server's store for `cookie`'s user. */
async function fillServer(cookie: string, count: number): Promise<void> {
  const user = (await app.call('GET', '/api/me', { cookie })).json.user as string
  await app.sql`
    insert into notes (user_id, id, text, created, edited, gone)
    select ${user}, 'bulk-' || n, 'Bulk note ' || n || E'\n' || repeat('words ', 170), n, n, false
    from generate_series(1, ${count}) as n`
  await app.sql`insert into note_clocks (user_id, last_edited) values (${user}, ${count})`
}

test('a first sync of several pages keeps every note and hands the screen the notes of each page as written', async () => {
  const user = await app.signIn('u-first')
  await fillServer(user, 1_200)
  const d = await device(user)
  assert.equal(await d.sync.pull(), true)
  assert.equal((await d.local.all()).length, 1_200)
  const pages = d.events.filter(
    (e): e is Extract<SyncEvent, { kind: 'changed' }> => e.kind === 'changed',
  )
  assert.ok(pages.length >= 3, `one event a page of at most 500 notes (${pages.length})`)
  const told = pages.flatMap((e) => e.notes ?? [])
  assert.equal(told.length, 1_200)
  assert.deepEqual(
    told.find((n) => n.id === 'bulk-777'),
    await d.local.get('bulk-777'),
  )
  assert.deepEqual(
    pages.map((e) => e.ids.length),
    pages.map((e) => e.notes?.length),
  )
})

test('a first sync marks a conflicted copy whose note arrives in the same page', async () => {
  const user = await app.signIn('u-first-copy')
  const phone = await device(user)
  const laptop = await device(user)
  await phone.local.edit('c', 'blue\n', 1)
  await phone.sync.flush()
  await laptop.sync.pull()
  await phone.local.edit('c', 'green\n', 2)
  await phone.sync.flush()
  await laptop.local.edit('c', 'red\n', 3)
  await laptop.sync.flush()
  const copy = laptop.events.find((e) => e.kind === 'copy') as Extract<SyncEvent, { kind: 'copy' }>
  const fresh = await device(user)
  assert.equal(await fresh.sync.pull(), true)
  assert.equal((await fresh.local.get(copy.copyId))?.conflictOf, 'c')
  assert.equal((await fresh.local.get('c'))?.text, 'green\n')
})

test('the first screen reads the newest notes that are not deleted, and counts out the deleted ones', async () => {
  const user = await app.signIn('u-newest')
  const d = await device(user)
  for (let i = 1; i <= 30; i++) await d.local.edit(`n${i}`, `note ${i}`, 1_000 + i)
  await d.local.remove('n30', 2_000, 5_000)
  const { notes, count } = await d.local.newest(10)
  assert.deepEqual(
    notes.map((n) => n.text),
    [29, 28, 27, 26, 25, 24, 23, 22, 21, 20].map((i) => `note ${i}`),
  )
  assert.equal(count, 29)
})

test('a network failure keeps the queue and backs off, doubling up to 30 s; a 401 says signed out', async () => {
  const user = await app.signIn('u-net')
  const d = await device(user)
  await d.local.edit('n', 'x', 1)
  d.setOffline(true)
  assert.equal(await d.sync.flush(), false)
  assert.equal(d.sync.backoff, 1000)
  await d.sync.flush()
  await d.sync.flush()
  assert.equal(d.sync.backoff, 4000)
  for (let i = 0; i < 10; i++) await d.sync.flush()
  assert.equal(d.sync.backoff, 30_000)
  assert.equal(await d.local.waiting(), 1)
  d.setOffline(false)
  assert.equal(await d.sync.flush(), true)
  assert.equal(d.sync.backoff, 0)
  const gone = await device('notes_session=nobody', {})
  await gone.local.edit('z', 'y', 1)
  assert.equal(await gone.sync.flush(), false)
  assert.ok(gone.events.some((e) => e.kind === 'signed-out'))
  assert.equal(await gone.local.waiting(), 1)
})

test('two syncs on one copy (two tabs) sharing the lock send each entry once', async () => {
  const user = await app.signIn('u-tabs')
  const lock = createLocalLock()
  const first = await device(user, { lock })
  const second = await device(user, { lock, local: first.local })
  for (let i = 0; i < 5; i++) await first.local.edit(`t${i}`, `note ${i}`, i)
  await Promise.all([first.sync.flush(), second.sync.flush(), first.sync.run(), second.sync.run()])
  assert.deepEqual([...first.posts, ...second.posts].map((p) => p.text).sort(), [
    'note 0',
    'note 1',
    'note 2',
    'note 3',
    'note 4',
  ])
})

test('a refused save is kept, reported and not sent again by itself', async () => {
  const user = await app.signIn('u-refused')
  const d = await device(user)
  await d.local.edit('bad', 'nul \u0000 inside', 1)
  await d.sync.flush()
  assert.ok(d.events.some((e) => e.kind === 'refused' && /U\+0000/.test(e.error)))
  assert.equal(await d.local.waiting(), 1)
  await d.sync.flush()
  assert.equal(d.posts.length, 1)
})

/** How many records each store of the copy `name` holds. */
async function records(name: string): Promise<Record<string, number>> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(name)
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error!)
  })
  const counts: Record<string, number> = {}
  const tx = db.transaction(['notes', 'packs'])
  for (const store of ['notes', 'packs']) {
    counts[store] = await new Promise<number>((resolve) => {
      const req = tx.objectStore(store).count()
      req.onsuccess = () => resolve(req.result)
    })
  }
  db.close()
  return counts
}

test('a first sync keeps each page of new notes in one record; a packed note edited here or elsewhere, or deleted, is then kept once', async () => {
  const user = await app.signIn('u-packs')
  await fillServer(user, 1_200)
  const name = `test-${process.pid}-packs`
  const d = await device(user, { local: await openLocal(name) })
  const other = await device(user)
  assert.equal(await d.sync.pull(), true)
  assert.equal(await other.sync.pull(), true)
  assert.deepEqual(await records(name), { notes: 0, packs: 3 }, 'three pages of at most 500 notes')
  assert.deepEqual(
    (await d.local.newest(2)).notes.map((n) => n.id),
    ['bulk-1200', 'bulk-1199'],
  )

  await d.local.edit('bulk-10', 'edited here', 5_000)
  await d.local.remove('bulk-20', 5_001, 0)
  await other.local.edit('bulk-30', 'edited there', 5_002)
  await other.local.remove('bulk-40', 5_003, 0)
  assert.equal(await other.sync.flush(), true)
  assert.equal(await d.sync.run(), true)

  const all = await d.local.all()
  assert.equal(all.length, 1_198)
  assert.equal(new Set(all.map((n) => n.id)).size, 1_198, 'no note kept twice')
  assert.equal(await d.local.count(), 1_198)
  assert.equal((await d.local.get('bulk-10'))?.text, 'edited here')
  assert.equal((await d.local.get('bulk-30'))?.text, 'edited there')
  assert.equal(await d.local.get('bulk-20'), undefined)
  assert.equal(await d.local.get('bulk-40'), undefined)
  assert.equal(await serverText(user, 'bulk-20'), null)
  assert.deepEqual((await d.local.newest(3)).notes.map((n) => n.id).sort(), [
    'bulk-10',
    'bulk-1200',
    'bulk-30',
  ])
  assert.deepEqual(await records(name), { notes: 2, packs: 3 })
})

/** Makes the copy `name` as the app's version 2 kept it: notes one a record, no packs. */
async function versionTwoCopy(
  name: string,
  notes: object[],
  queue: object[],
  meta: Record<string, string | number>,
): Promise<void> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(name, 2)
    req.onupgradeneeded = () => {
      req.result.createObjectStore('notes', { keyPath: 'id' }).createIndex('edited', 'edited')
      req.result.createObjectStore('queue', { keyPath: 'id' })
      req.result.createObjectStore('meta')
    }
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error!)
  })
  await new Promise<void>((resolve, reject) => {
    const tx = db.transaction(['notes', 'queue', 'meta'], 'readwrite')
    for (const n of notes) tx.objectStore('notes').put(n)
    for (const e of queue) tx.objectStore('queue').put(e)
    for (const [key, value] of Object.entries(meta)) tx.objectStore('meta').put(value, key)
    tx.oncomplete = () => resolve()
    tx.onerror = () => reject(tx.error!)
  })
  db.close()
}

test('a copy kept by the version before the packs opens with every note, queued edit and setting, and syncs on', async () => {
  const user = await app.signIn('u-upgrade')
  const name = `test-${process.pid}-v2`
  await versionTwoCopy(
    name,
    [
      { id: 'old-1', text: 'written offline before the update', base: 0, edited: 10 },
      { id: 'old-2', text: 'a second one', base: 0, edited: 11 },
    ],
    [
      {
        id: 'old-1',
        op: 'save',
        text: 'written offline before the update',
        base: 0,
        at: 10,
        seq: 1,
      },
      { id: 'old-2', op: 'save', text: 'a second one', base: 0, at: 11, seq: 2 },
    ],
    { device: 'web-kept-device', since: 0, seq: 2 },
  )
  const local = await openLocal(name)
  assert.equal(await local.device(), 'web-kept-device')
  assert.deepEqual(
    (await local.all()).map((n) => n.text),
    ['written offline before the update', 'a second one'],
  )
  assert.deepEqual(
    (await local.pending()).map((e) => [e.id, e.op, e.text]),
    [
      ['old-1', 'save', 'written offline before the update'],
      ['old-2', 'save', 'a second one'],
    ],
  )
  assert.deepEqual(
    (await local.newest(5)).notes.map((n) => n.id),
    ['old-2', 'old-1'],
  )
  const d = await device(user, { local })
  assert.equal(await d.sync.run(), true)
  assert.equal(await serverText(user, 'old-1'), 'written offline before the update')
  assert.equal(await serverText(user, 'old-2'), 'a second one')
  assert.equal(await local.waiting(), 0)
  assert.deepEqual(await records(name), { notes: 2, packs: 0 })
})
