/**
 * Importing notes (src/notes/app/import.ts): Markdown and text files alone or zipped, this app's
 * own export, Simplenote's and Standard Notes' JSON exports, and what is passed over and why.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { strToU8, zipSync } from 'fflate'
import { exportZip } from '../../../src/notes/app/export.ts'
import { importFiles } from '../../../src/notes/app/import.ts'

const file = (path: string, text: string) => ({ path, bytes: strToU8(text) })
const texts = (files: { path: string; bytes: Uint8Array }[]) =>
  importFiles(files).notes.map((n) => n.text)

test('Markdown and text files become notes as they are; a byte-order mark goes, an empty file and other files are passed over', () => {
  const result = importFiles([
    file('Trip.md', '# Trip\n\nTrain at 7:40\n'),
    file('notes/list.txt', '\uFEFFmilk\r\neggs\r\n'),
    file('empty.txt', '  \n'),
    file('photo.png', 'PNG'),
    file('folder/.DS_Store', 'x'),
  ])
  assert.deepEqual(
    result.notes.map((n) => n.text),
    ['# Trip\n\nTrain at 7:40\n', 'milk\r\neggs\r\n'],
  )
  assert.deepEqual(result.skipped, [
    { path: 'empty.txt', why: 'no words in it' },
    { path: 'photo.png', why: 'not a text, Markdown, zip or JSON file' },
  ])
})

test("a zip of Markdown files in folders is read, and this app's own export gives back its notes and nothing of its index", () => {
  const zip = zipSync({
    'a/one.md': strToU8('One\n'),
    'a/b/two.markdown': strToU8('Two\n'),
    '__MACOSX/a/._one.md': strToU8('junk'),
  })
  assert.deepEqual(texts([{ path: 'mine.zip', bytes: zip }]), ['One\n', 'Two\n'])
  const own = exportZip(
    [
      { id: 'x', text: 'Groceries\nmilk', edited: 1 },
      { id: 'y', text: 'Groceries\neggs', edited: 2 },
    ],
    Date.UTC(2026, 11, 6),
  )
  assert.deepEqual(texts([{ path: 'notes-2026-12-06.zip', bytes: own }]), [
    'Groceries\nmilk',
    'Groceries\neggs',
  ])
  assert.deepEqual(importFiles([{ path: 'broken.zip', bytes: strToU8('not a zip') }]).skipped, [
    { path: 'broken.zip', why: 'not a zip that can be read' },
  ])
})

test('a Simplenote export gives its active notes, with their tags written as #tags', () => {
  const exported = {
    activeNotes: [
      {
        id: '1',
        content: 'Recipes\nflour',
        tags: ['cooking', 'Family Stuff', '1bad'],
        creationDate: '2020-01-01T00:00:00Z',
      },
      { id: '2', content: 'Tagged already #work', tags: ['work'] },
      { id: '3', content: '' },
    ],
    trashedNotes: [{ id: '4', content: 'Old' }],
  }
  assert.deepEqual(texts([file('notes.json', JSON.stringify(exported))]), [
    'Recipes\nflour\n\n#cooking #family-stuff\n',
    'Tagged already #work',
  ])
})

test('a Standard Notes backup gives its notes with title and text and their tags; trashed notes and an encrypted backup are passed over', () => {
  const backup = {
    version: '004',
    items: [
      {
        uuid: 'n1',
        content_type: 'Note',
        content: { title: 'Plans', text: 'move the desk', references: [] },
      },
      { uuid: 'n2', content_type: 'Note', content: { title: '', text: 'No title here' } },
      { uuid: 'n3', content_type: 'Note', content: { title: 'Binned', text: 'x', trashed: true } },
      { uuid: 'n4', content_type: 'Note', deleted: true, content: { title: 'Gone', text: 'x' } },
      {
        uuid: 't1',
        content_type: 'Tag',
        content: { title: 'home', references: [{ uuid: 'n1', content_type: 'Note' }] },
      },
      { uuid: 'c', content_type: 'SN|Component', content: { name: 'editor' } },
    ],
  }
  assert.deepEqual(texts([file('Standard Notes Backup.txt.json', JSON.stringify(backup))]), [
    'Plans\nmove the desk\n\n#home\n',
    'No title here',
  ])
  const encrypted = {
    version: '004',
    items: [{ uuid: 'n1', content_type: 'Note', content: '004:abc:def' }],
  }
  assert.deepEqual(importFiles([file('backup.json', JSON.stringify(encrypted))]).skipped, [
    { path: 'backup.json', why: 'an encrypted Standard Notes backup: export a decrypted one' },
  ])
  assert.deepEqual(
    importFiles([file('other.json', '{"hello":1}'), file('bad.json', '{')]).skipped,
    [
      { path: 'other.json', why: 'not a Simplenote or Standard Notes export' },
      { path: 'bad.json', why: 'not valid JSON' },
    ],
  )
})
