import assert from 'node:assert/strict'
import { test } from 'node:test'
import { strFromU8, unzipSync } from 'fflate'
import { combined, lineParts } from '../../../src/notes/app/diff-view.ts'
import { exportZip, fileNames, safeName } from '../../../src/notes/app/export.ts'
import {
  movedCaret,
  newNoteId,
  previewOf,
  statusText,
  titleOf,
} from '../../../src/notes/app/text.ts'

test('a note title is its first line with words, and the preview what follows', () => {
  assert.equal(titleOf('\n\n  Groceries  \nmilk'), 'Groceries')
  assert.equal(titleOf('   \n'), 'Untitled')
  assert.equal(previewOf('Groceries\nmilk\n\neggs'), 'milk eggs')
  assert.equal(previewOf('only a title'), '')
})

test('the status line says offline, waiting with a count, or saved', () => {
  assert.equal(statusText({ online: true, waiting: 0, problem: null }), 'Saved')
  assert.equal(statusText({ online: true, waiting: 3, problem: null }), 'Waiting to sync (3)')
  assert.equal(
    statusText({ online: false, waiting: 2, problem: null }),
    'Offline · Waiting to sync (2)',
  )
  assert.equal(
    statusText({ online: false, waiting: 0, problem: null }),
    'Offline · every change is on this device',
  )
  assert.equal(
    statusText({ online: true, waiting: 1, problem: 'Storage full' }),
    'Storage full · Waiting to sync (1)',
  )
})

test('the caret stays with its text when the text changes elsewhere', () => {
  // A change after the caret leaves it.
  assert.equal(movedCaret('abc def', 'abc DEF!', 2), 2)
  // A line added before it moves it by the added length.
  assert.equal(movedCaret('line\ncaret here', 'new\nline\ncaret here', 8), 12)
  // Text removed before it moves it back.
  assert.equal(movedCaret('xxxabc', 'abc', 5), 2)
  // Inside the changed part it stays within it.
  assert.equal(movedCaret('abcdef', 'abXYZf', 3), 3)
})

test('note ids made on the device differ and fit the API (at most 64 characters)', () => {
  const a = newNoteId(1700000000000)
  const b = newNoteId(1700000000000)
  assert.notEqual(a, b)
  assert.ok(a.length <= 64)
})

test('export file names are safe on every system and unique', () => {
  assert.equal(safeName('Report: Q3/Q4 *draft*?\nbody'), 'Report Q3 Q4 draft')
  assert.equal(safeName('# Heading'), 'Heading')
  assert.equal(safeName('\n\n'), 'Untitled')
  assert.equal(safeName('CON'), 'CON note')
  assert.equal(safeName('..'), 'Untitled')
  assert.equal(safeName('x'.repeat(200)).length, 60)
  assert.deepEqual(
    fileNames([
      { id: '1', text: 'A', edited: 1 },
      { id: '2', text: 'a', edited: 2 },
      { id: '3', text: 'A', edited: 3 },
    ]),
    ['A.txt', 'a (2).txt', 'A (3).txt'],
  )
})

test('the export zip holds every note and an index of ids and times', () => {
  const zip = exportZip(
    [
      { id: 'n1', text: 'One\n', edited: 1_700_000_000_000 },
      { id: 'n2', text: 'Two', edited: 1_700_000_001_000 },
    ],
    1_700_000_002_000,
  )
  const files = unzipSync(zip)
  assert.deepEqual(Object.keys(files).sort(), ['notes.json', 'notes/One.txt', 'notes/Two.txt'])
  assert.equal(strFromU8(files['notes/One.txt']!), 'One\n')
  const index = JSON.parse(strFromU8(files['notes.json']!))
  assert.deepEqual(index.notes[1], {
    id: 'n2',
    file: 'notes/Two.txt',
    edited: '2023-11-14T22:13:21.000Z',
    editedMs: 1_700_000_001_000,
  })
})

test('differences are marked by line, and "edit by hand" keeps both sides', () => {
  assert.deepEqual(lineParts('a\nb\n', 'a\nc\n'), [
    { kind: 'same', text: 'a\n' },
    { kind: 'removed', text: 'b\n' },
    { kind: 'added', text: 'c\n' },
  ])
  assert.equal(combined('Colour\ngreen\n', 'Colour\nred\n'), 'Colour\ngreen\nred\n')
  assert.equal(combined('x\ny', 'x\nz'), 'x\ny\nz')
})
