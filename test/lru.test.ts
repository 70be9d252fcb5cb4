/** The bounded caches' eviction (src/lru.ts). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { lruMemo, lruSet } from '../src/lru.ts'

test('past the limit the entry set longest ago goes; an entry set again counts as new', () => {
  const map = new Map<string, number>()
  lruSet(map, 'a', 1, 2)
  lruSet(map, 'b', 2, 2)
  lruSet(map, 'a', 3, 2)
  lruSet(map, 'c', 4, 2)
  assert.deepEqual([...map], [['a', 3], ['c', 4]])
})

test('a memoised function answers from its cache only while every argument is the same', () => {
  let runs = 0
  const label = lruMemo((id: string, name: string, count: number) => `${id}:${name}:${++runs}:${count}`, 2)
  assert.equal(label('a', 'Ann', 1), 'a:Ann:1:1')
  assert.equal(label('a', 'Ann', 1), 'a:Ann:1:1', 'the same arguments: the cached answer')
  assert.equal(label('a', 'Anne', 1), 'a:Anne:2:1', 'a changed argument: computed again')
  assert.equal(label('a', 'Anne', 2), 'a:Anne:3:2')
  label('b', 'Bo', 1)
  label('c', 'Cy', 1)
  assert.equal(label('a', 'Anne', 2), 'a:Anne:6:2', 'past the limit the least recently used went')
})
