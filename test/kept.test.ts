/** The bounded caches' eviction (src/kept.ts). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keepNewest } from '../src/kept.ts'

test('past the limit the entry set longest ago goes; an entry set again counts as new', () => {
  const map = new Map<string, number>()
  keepNewest(map, 'a', 1, 2)
  keepNewest(map, 'b', 2, 2)
  keepNewest(map, 'a', 3, 2)
  keepNewest(map, 'c', 4, 2)
  assert.deepEqual([...map], [['a', 3], ['c', 4]])
})
