import assert from 'node:assert/strict'
import { test } from 'node:test'
import { moveTo, SEARCH_BOX } from '../../../src/notes/app/list-keys.ts'

test('Down goes from the search box to the first result and through the results, stopping at the last', () => {
  assert.equal(moveTo('ArrowDown', SEARCH_BOX, 3), 0)
  assert.equal(moveTo('ArrowDown', 0, 3), 1)
  assert.equal(moveTo('ArrowDown', 2, 3), 2)
})

test('Up goes back through the results and from the first to the search box', () => {
  assert.equal(moveTo('ArrowUp', 2, 3), 1)
  assert.equal(moveTo('ArrowUp', 0, 3), SEARCH_BOX)
})

test('Home and End go to the first and last result; other keys, and keys in an empty list, are left alone', () => {
  assert.equal(moveTo('Home', 2, 3), 0)
  assert.equal(moveTo('End', 0, 3), 2)
  assert.equal(moveTo('ArrowUp', SEARCH_BOX, 3), null, 'Up in the box moves its caret')
  assert.equal(moveTo('Home', SEARCH_BOX, 3), null)
  assert.equal(moveTo('a', 1, 3), null)
  assert.equal(moveTo('ArrowDown', SEARCH_BOX, 0), null)
})
