/** A note's Read and Pin choices in this browser (src/notes/app/note-prefs.ts). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createNotePrefs, type PrefsStorage } from '../../../src/notes/app/note-prefs.ts'

function memoryStorage(): PrefsStorage & { items: Map<string, string> } {
  const items = new Map<string, string>()
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  }
}

test('a choice is kept per note and per person, and read back by the next page', () => {
  const storage = memoryStorage()
  const ana = createNotePrefs('ana', storage)
  ana.set('reading', 'n1', true)
  ana.set('pinned', 'n2', true)
  ana.set('pinned', 'n3', true)
  ana.set('pinned', 'n3', false)
  const again = createNotePrefs('ana', storage)
  assert.equal(again.has('reading', 'n1'), true)
  assert.equal(again.has('reading', 'n2'), false)
  assert.deepEqual([...again.all('pinned')], ['n2'])
  assert.equal(
    createNotePrefs('bob', storage).has('reading', 'n1'),
    false,
    "another person's choices are their own",
  )
  again.forget()
  assert.equal(storage.items.size, 0)
})

test('a stored value that is not a list of ids is ignored, and a full storage says so', () => {
  const storage = memoryStorage()
  storage.items.set('notes-reading-ana', '{not json')
  storage.items.set('notes-pinned-ana', '[1, "n1", null]')
  const prefs = createNotePrefs('ana', storage)
  assert.equal(prefs.all('reading').size, 0)
  assert.deepEqual([...prefs.all('pinned')], ['n1'])
  const full = {
    ...storage,
    setItem: () => {
      throw new DOMException('full', 'QuotaExceededError')
    },
  }
  const onFull = createNotePrefs('ana', full)
  assert.equal(onFull.set('reading', 'n2', true), false)
  assert.equal(onFull.has('reading', 'n2'), true, 'the choice holds until a reload')
})
