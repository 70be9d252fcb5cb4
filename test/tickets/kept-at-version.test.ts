/**
 * Answers kept with the lists' version they were read at (src/tickets/store/kept-at-version.ts):
 * given back only at that version, dropped when a later one is kept, never replaced by an older.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keptAtVersion } from '../../src/tickets/store/kept-at-version.ts'

test('an answer is given back only when asked for at the version it was read at', () => {
  const kept = keptAtVersion<string>(10)
  kept.set(3, 'board', 'read at 3')
  assert.equal(kept.get(3, 'board'), 'read at 3')
  assert.equal(kept.get(4, 'board'), undefined)
  assert.equal(kept.get(2, 'board'), undefined)
  assert.equal(kept.get(3, 'another board'), undefined)
})

test('an answer of a later version drops everything kept before it', () => {
  const kept = keptAtVersion<string>(10)
  kept.set(3, 'a', 'a at 3')
  kept.set(3, 'b', 'b at 3')
  kept.set(4, 'a', 'a at 4')
  assert.equal(kept.get(4, 'a'), 'a at 4')
  assert.equal(kept.get(4, 'b'), undefined)
  assert.equal(kept.get(3, 'b'), undefined)
})

test('an answer read before the one kept last is not kept, and drops nothing', () => {
  const kept = keptAtVersion<string>(10)
  kept.set(5, 'a', 'a at 5')
  kept.set(4, 'b', 'b at 4')
  assert.equal(kept.get(4, 'b'), undefined)
  assert.equal(kept.get(5, 'a'), 'a at 5')
})

test('past its limit the answer used longest ago goes, and a limit of 0 keeps nothing', () => {
  const kept = keptAtVersion<string>(2)
  kept.set(1, 'a', 'A')
  kept.set(1, 'b', 'B')
  assert.equal(kept.get(1, 'a'), 'A')
  kept.set(1, 'c', 'C')
  assert.equal(kept.get(1, 'b'), undefined)
  assert.equal(kept.get(1, 'a'), 'A')
  assert.equal(kept.get(1, 'c'), 'C')
  const none = keptAtVersion<string>(0)
  none.set(1, 'a', 'A')
  assert.equal(none.get(1, 'a'), undefined)
})
