/**
 * The app's controller (controller.ts) and the rescue of a closing page's text (rescue.ts) in
 * Node: what the screen would show (the list, the open note, a conflicted copy) after the
 * actions and syncs a person meets, with the copy on fake-indexeddb and the sync against the
 * real notes API handlers.
 */
import 'fake-indexeddb/auto'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  createAppState,
  createNotesController,
  LIST_LIMIT,
  type ArrivedCopy,
  type NotesController,
} from '../../../src/notes/app/controller.ts'
import { conflictWords } from '../../../src/notes/app/conflict-words.ts'
import { openLocal } from '../../../src/notes/app/local.ts'
import { applyRescue, keepRescue, type RescueStorage } from '../../../src/notes/app/rescue.ts'
import {
  createLocalLock,
  createSync,
  type Send,
  type SyncEvent,
} from '../../../src/notes/app/sync.ts'
import { notesService } from '../support.ts'

const app = await notesService()
let n = 0

/** A device of the user signed in with `cookie`: its copy, its controller on it, and a sync that feeds the controller as the page does. */
async function device(cookie: string, clock = Date.now) {
  const local = await openLocal(`controller-${process.pid}-${++n}`)
  const notes = createNotesController({ state: createAppState(), local, clock })
  const events: SyncEvent[] = []
  const told: ArrivedCopy[] = []
  const send: Send = async (method, path, body) => {
    const res =
      method === 'POST' ? await app.post(cookie, body) : await app.call('GET', path, { cookie })
    return { status: res.status, body: res.json }
  }
  const sync = createSync({
    local,
    send,
    clock,
    lock: createLocalLock(),
    onEvent: (e) => {
      events.push(e)
      if (e.kind === 'changed' && e.notes) told.push(...notes.applyStored(e.ids, e.notes))
    },
  })
  return { local, notes, sync, events, told }
}

/** What the list shows for the search `query`, sorted as the list view sorts before it draws. */
function listed(notes: NotesController, query: string) {
  notes.sort()
  return notes.listed(query)
}

/** The titles the list shows for the search `query`. */
function titles(notes: NotesController, query = ''): string[] {
  return listed(notes, query).notes.map((note) => note.text.split('\n')[0]!)
}

test('the list shows the notes newest first, and a search narrows it to the notes with its words', async () => {
  const d = await device(await app.signIn('c-list'))
  await d.local.edit('a', 'Shopping\nmilk', 1)
  await d.local.edit('b', 'Holiday plans\nbeach', 3)
  await d.local.edit('c', 'Recipes\nmilk bread', 2)
  await d.notes.readAll()
  assert.deepEqual(titles(d.notes), ['Holiday plans', 'Recipes', 'Shopping'])
  assert.deepEqual(titles(d.notes, 'milk'), ['Recipes', 'Shopping'])
  const none = listed(d.notes, 'nothing-has-this')
  assert.equal(none.matches, 0)
  assert.equal(none.empty, 'No note has these words.')
})

test('before every note is read the list counts the stored notes and says it is still looking; an empty copy says how to start', async () => {
  const d = await device(await app.signIn('c-first'))
  for (let i = 0; i < LIST_LIMIT + 5; i++) await d.local.edit(`n${i}`, `note ${i}`, i + 1)
  await d.notes.firstScreen()
  const first = listed(d.notes, '')
  assert.equal(first.notes.length, LIST_LIMIT)
  assert.equal(first.notes[0]!.text, `note ${LIST_LIMIT + 4}`, 'the newest first')
  assert.equal(first.matches, LIST_LIMIT + 5, 'the more-line counts every stored note')
  assert.equal(first.empty, 'Looking through every note…')

  const empty = await device(await app.signIn('c-empty'))
  await empty.notes.readAll()
  assert.deepEqual(listed(empty.notes, ''), {
    notes: [],
    matches: 0,
    empty: 'No notes yet. “New note” starts one.',
  })
})

test('reading every note keeps a note saved and a draft made while it read', async () => {
  const d = await device(await app.signIn('c-read'))
  await d.local.edit('a', 'old text', 1)
  await d.notes.firstScreen()
  const reading = d.notes.readAll()
  const draft = d.notes.addDraft()
  await d.notes.keepEdit('a', 'typed while reading', { base: 0, text: 'old text' })
  await reading
  assert.equal(d.notes.state.loaded, true)
  assert.equal(d.notes.state.notes.get('a')?.text, 'typed while reading')
  assert.equal(d.notes.state.notes.get(draft)?.draft, true)
})

test('a note written on another device is in the list after a sync, and one deleted there leaves it', async () => {
  const user = await app.signIn('c-sync')
  const phone = await device(user)
  const laptop = await device(user)
  await laptop.notes.readAll()
  await phone.local.edit('p', 'From the phone\nhello', 5)
  await phone.local.edit('q', 'Second note', 6)
  await phone.sync.flush()
  await laptop.sync.pull()
  assert.deepEqual(titles(laptop.notes), ['Second note', 'From the phone'])
  await phone.local.remove('q', 7, 0)
  await phone.sync.flush()
  await laptop.sync.pull()
  assert.deepEqual(titles(laptop.notes), ['From the phone'])
})

test('a new note opens empty, is forgotten when left without a word, and kept once written to', async () => {
  const d = await device(await app.signIn('c-draft'))
  await d.notes.readAll()
  const id = d.notes.addDraft()
  assert.equal(d.notes.open(id)?.draft, true)
  assert.equal(d.notes.state.openId, id)
  assert.equal(d.notes.state.editorText, '')
  assert.equal(d.notes.dropEmptyDraft(''), true)
  assert.equal(listed(d.notes, '').notes.length, 0, 'the empty draft is gone from the list')

  const written = d.notes.addDraft()
  d.notes.open(written)
  assert.equal(d.notes.dropEmptyDraft('Groceries'), false)
  await d.notes.keepEdit(written, 'Groceries', d.notes.editStart())
  assert.deepEqual(titles(d.notes), ['Groceries'])
  assert.equal(d.notes.state.notes.get(written)?.draft, undefined, 'stored, no longer a draft')
  assert.equal((await d.local.get(written))?.text, 'Groceries')
  assert.equal(d.notes.state.editorText, 'Groceries', 'the editor now matches the copy')
})

test('a deleted note closes and leaves the list; the copy queues its delete', async () => {
  const d = await device(await app.signIn('c-delete'))
  await d.local.edit('a', 'to delete', 1)
  await d.local.edit('b', 'to keep', 2)
  await d.notes.readAll()
  d.notes.open('a')
  await d.notes.remove('a', 5_000)
  assert.equal(d.notes.state.openId, null)
  assert.deepEqual(titles(d.notes), ['to keep'])
  assert.ok((await d.local.pending()).some((p) => p.id === 'a' && p.op === 'delete'))
})

test("a conflicted copy made by another device's save is told on this device, with the words of this side", async () => {
  const user = await app.signIn('c-copy')
  const phone = await device(user)
  const laptop = await device(user)
  await phone.local.edit('c', 'Plan\nblue\n', 1)
  await phone.sync.flush()
  await laptop.sync.pull()
  await laptop.notes.readAll()
  await phone.local.edit('c', 'Plan\ngreen\n', 2)
  await phone.sync.flush()
  await laptop.local.edit('c', 'Plan\nred\n', 3)
  await laptop.sync.flush()
  const made = laptop.events.find((e) => e.kind === 'copy') as Extract<SyncEvent, { kind: 'copy' }>
  assert.ok(made, "the laptop's save became a copy")

  await phone.notes.readAll()
  await phone.sync.pull()
  assert.deepEqual(
    phone.told.map((t) => [t.noteId, t.copyId]),
    [['c', made.copyId]],
  )
  assert.equal(phone.told[0]!.notice, conflictWords(false).notice('Plan'))
  assert.notEqual(
    conflictWords(false).notice('Plan'),
    conflictWords(true).notice('Plan'),
    'the other side has its own words',
  )
  const copy = phone.notes.state.notes.get(made.copyId)
  assert.equal(copy?.conflictOf, 'c')
  assert.equal(copy?.text, 'Plan\nred\n')
})

for (const [how, opened, texts] of [
  ['both', 'copy', ['Plan\ngreen\n', 'Plan\nred\n']],
  ['this', 'copy', ['Plan\nred\n']],
  ['hand', 'note', ['Plan\ngreen\nred\n']],
] as const) {
  test(`sorting out a conflicted copy with "${how}" opens the ${opened} and leaves ${texts.length} note(s) in the list`, async () => {
    const user = await app.signIn(`c-resolve-${how}`)
    const phone = await device(user)
    const laptop = await device(user)
    await phone.local.edit('c', 'Plan\nblue\n', 1)
    await phone.sync.flush()
    await laptop.sync.pull()
    await phone.local.edit('c', 'Plan\ngreen\n', 2)
    await phone.sync.flush()
    await laptop.local.edit('c', 'Plan\nred\n', 3)
    await laptop.sync.flush()
    const made = laptop.events.find((e) => e.kind === 'copy') as Extract<
      SyncEvent,
      { kind: 'copy' }
    >
    await laptop.notes.readAll()
    laptop.notes.state.conflictNotice = { ids: ['c', made.copyId], text: 'told' }
    laptop.notes.open(made.copyId)
    const done = await laptop.notes.resolveConflict(made.copyId, how)
    assert.ok(done)
    await laptop.notes.reloadIds(done.changed)
    assert.equal(done.open, opened === 'copy' ? made.copyId : 'c')
    assert.deepEqual(
      listed(laptop.notes, '')
        .notes.map((note) => note.text)
        .sort(),
      [...texts].sort(),
    )
    assert.ok(
      listed(laptop.notes, '').notes.every((note) => !note.conflictOf),
      'no conflicted copy is left',
    )
    assert.equal(laptop.notes.state.conflictNotice, null, 'its notice is no longer shown')
  })
}

test('resolving a note that is not a conflicted copy does nothing', async () => {
  const d = await device(await app.signIn('c-not-copy'))
  await d.local.edit('a', 'plain', 1)
  await d.notes.readAll()
  assert.equal(await d.notes.resolveConflict('a', 'hand'), null)
  assert.deepEqual(titles(d.notes), ['plain'])
})

/** A localStorage of one test. */
function memoryStorage(): RescueStorage & { map: Map<string, string> } {
  const map = new Map<string, string>()
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  }
}

test('the text a closing page kept is in the note at the next start, and then forgotten', async () => {
  const d = await device(await app.signIn('c-rescue'))
  await d.local.edit('a', 'before', 1)
  const storage = memoryStorage()
  assert.equal(
    keepRescue(
      'u1',
      { id: 'a', text: 'before and the last words', at: 2, base: 0, from: 'before' },
      storage,
    ),
    true,
  )
  await applyRescue(d.local, 'u1', storage)
  assert.equal((await d.local.get('a'))?.text, 'before and the last words')
  assert.equal(storage.map.size, 0)
  // Kept for another user: not this one's.
  keepRescue('u2', { id: 'a', text: 'not mine', at: 3, base: 0 }, storage)
  await applyRescue(d.local, 'u1', storage)
  assert.equal((await d.local.get('a'))?.text, 'before and the last words')
})

test("a rescue that is not JSON or not a note's text is ignored", async () => {
  const d = await device(await app.signIn('c-rescue-bad'))
  const storage = memoryStorage()
  for (const kept of ['{not json', '{"id":1,"text":"x"}', 'null']) {
    storage.map.set('notes-rescue-u1', kept)
    await applyRescue(d.local, 'u1', storage)
  }
  assert.deepEqual(await d.local.all(), [])
})

test('a full storage keeps no rescue and says so', () => {
  const full: RescueStorage = {
    getItem: () => null,
    setItem: () => {
      throw new Error('QuotaExceededError')
    },
    removeItem: () => {},
  }
  assert.equal(keepRescue('u1', { id: 'a', text: 'x', at: 1, base: 0 }, full), false)
})

test('opening a note starts the editor from its text, a conflicted copy leaves that to the compare view, and a kept edit clears "Storage full"', async () => {
  const d = await device(await app.signIn('c-open'))
  await d.local.edit('a', 'first note', 1)
  await d.local.edit('copy', 'a copy', 2)
  await d.local.mark('copy', { conflictOf: 'a' })
  await d.notes.readAll()
  d.notes.open('a')
  assert.deepEqual(d.notes.editStart(), { base: 0, text: 'first note' })
  assert.equal(d.notes.open('copy')?.conflictOf, 'a')
  assert.equal(d.notes.state.openId, 'copy')
  assert.deepEqual(
    d.notes.editStart(),
    { base: 0, text: 'first note' },
    "the editor start is not the copy's",
  )
  assert.equal(d.notes.open('no-such-note'), undefined)
  assert.equal(d.notes.state.openId, 'copy', 'a note that is not there does not open')

  d.notes.open('a')
  d.notes.state.problem = 'Storage full: the last edit is not kept on this device'
  await d.notes.keepEdit('a', 'first note, more', d.notes.editStart())
  assert.equal(d.notes.state.problem, null)
  d.notes.close()
  assert.equal(d.notes.state.openId, null)
})

test('the tag list counts the notes in memory, and a tag filters the list', async () => {
  const d = await device(await app.signIn('c-tags'))
  await d.local.edit('a', 'Plans\n#work/plans', 1)
  await d.local.edit('b', 'Standup #work', 2)
  await d.local.edit('c', 'Milk #home', 3)
  await d.notes.readAll()
  d.notes.sort()
  assert.deepEqual(
    d.notes.state.tags.map((t) => `${t.tag} ${t.count} [${t.children.map((c) => c.tag).join()}]`),
    ['home 1 []', 'work 2 [work/plans]'],
  )
  assert.deepEqual(titles(d.notes, '#work'), ['Standup #work', 'Plans'])
  assert.equal(listed(d.notes, '#garden').empty, 'No note has this tag.')
})

test("renaming a tag is an ordinary edit of each note: another device's offline edit of another line merges with it on the server", async () => {
  const user = await app.signIn('c-rename')
  const laptop = await device(user)
  const phone = await device(user)
  await laptop.local.edit('a', 'Budget\nNumbers for #work/plans\n', 1)
  await laptop.local.edit('b', 'Standup #work\n', 2)
  await laptop.local.edit('c', 'Milk #home\n', 3)
  await laptop.sync.flush()
  await phone.sync.pull()
  await phone.notes.readAll()
  // The phone edits the first line of "Budget" offline (nothing sent yet).
  await phone.notes.keepEdit(
    'a',
    'Budget for 2027\nNumbers for #work/plans\n',
    phone.notes.state.notes.get('a')!,
  )

  await laptop.notes.readAll()
  assert.deepEqual((await laptop.notes.renameTag('work', 'Job')).sort(), ['a', 'b'])
  assert.deepEqual(titles(laptop.notes, '#job').sort(), ['Budget', 'Standup #Job'])
  assert.equal(await laptop.local.waiting(), 2, 'two saves queued, like typing')
  await laptop.sync.flush()
  await phone.sync.flush()
  await laptop.sync.pull()
  assert.equal(
    laptop.notes.state.notes.get('a')?.text,
    'Budget for 2027\nNumbers for #Job/plans\n',
    'both edits kept',
  )
  assert.equal(laptop.notes.state.notes.get('c')?.text, 'Milk #home\n')
  assert.equal(laptop.notes.state.notes.size, 3, 'no conflicted copy')
})

test('a note deleted here or on another device goes to the trash with its last text, and Restore brings it back through the server', async () => {
  const user = await app.signIn('c-trash')
  const phone = await device(user)
  const laptop = await device(user)
  await phone.local.edit('a', 'Plans\nmove the desk\n', 1)
  await phone.local.edit('b', 'Recipe\nflour\n', 2)
  await phone.sync.flush()
  await laptop.sync.pull()
  await laptop.notes.readAll()

  await phone.notes.readAll()
  await phone.notes.remove('a', 0)
  assert.deepEqual(
    (await phone.local.trash()).map((e) => [e.id, e.text]),
    [['a', 'Plans\nmove the desk\n']],
  )
  await phone.sync.flush()
  await laptop.sync.pull()
  const trashed = await laptop.local.trash()
  assert.deepEqual(
    trashed.map((e) => [e.id, e.text]),
    [['a', 'Plans\nmove the desk\n']],
    'the other device keeps the text it had',
  )

  // Restored on the laptop offline: queued like a save, the note back in the list at once.
  const back = await laptop.notes.restore('a')
  assert.equal(back?.text, 'Plans\nmove the desk\n')
  assert.deepEqual(titles(laptop.notes), ['Plans', 'Recipe'])
  assert.deepEqual(
    (await laptop.local.pending()).map((e) => [e.op, e.id]),
    [['save', 'a']],
  )
  assert.deepEqual(await laptop.local.trash(), [])
  assert.equal(await laptop.notes.restore('a'), null, 'nothing left to restore')
  await laptop.sync.flush()
  await phone.sync.pull()
  assert.deepEqual(titles(phone.notes), ['Plans', 'Recipe'])
  assert.deepEqual(
    await phone.local.trash(),
    [],
    'brought back elsewhere, it leaves this trash too',
  )
})

test("a delete not sent yet is taken back by Restore, and the server's trash replaces the copy's but for deletes still waiting", async () => {
  const d = await device(await app.signIn('c-trash-local'))
  await d.local.edit('a', 'One\n', 1)
  await d.local.edit('b', 'Two\n', 2)
  await d.notes.readAll()
  await d.notes.remove('a', 60_000)
  await d.local.replaceTrash([{ id: 'gone-elsewhere', text: 'Old\n', deleted: 5 }])
  assert.deepEqual((await d.local.trash()).map((e) => e.id).sort(), ['a', 'gone-elsewhere'])
  await d.notes.restore('a')
  assert.deepEqual(
    (await d.local.pending()).filter((e) => e.id === 'a').map((e) => [e.op, e.text]),
    [['save', 'One\n']],
    'the save waiting before the delete is back',
  )
  await d.notes.remove('b', 60_000)
  await d.local.replaceTrash([])
  assert.deepEqual(
    (await d.local.trash()).map((e) => e.id),
    ['b'],
    'a delete still waiting stays in the trash',
  )
  await d.notes.restore('b')
  await d.local.replaceTrash([])
  assert.deepEqual(await d.local.trash(), [])
})

test('imported notes are saved like typed ones: in the list at once, queued, and on the server after a sync', async () => {
  const user = await app.signIn('c-import')
  const d = await device(user)
  await d.notes.readAll()
  const ids = await d.notes.importNotes(['Imported one\nfrom a file\n', 'Imported two\n'])
  assert.equal(ids.length, 2)
  assert.deepEqual(titles(d.notes).sort(), ['Imported one', 'Imported two'])
  assert.equal(await d.local.waiting(), 2)
  await d.sync.flush()
  const other = await device(user)
  await other.sync.pull()
  await other.notes.readAll()
  assert.deepEqual(titles(other.notes).sort(), ['Imported one', 'Imported two'])
})
