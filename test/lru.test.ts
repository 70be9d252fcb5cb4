/** The bounded caches' eviction (src/base/lru.ts). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { lruSet } from '../src/base/lru.ts'

test('past the limit the entry set longest ago goes; an entry set again counts as new', () => {
  const map = new Map<string, number>()
  lruSet(map, 'a', 1, 2)
  lruSet(map, 'b', 2, 2)
  lruSet(map, 'a', 3, 2)
  lruSet(map, 'c', 4, 2)
  assert.deepEqual(
    [...map],
    [
      ['a', 3],
      ['c', 4],
    ],
  )
})
