import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mentionAt, mentionText, suggestions } from '../../src/tickets/app/mention-picker.ts'

const members = [
  { id: 'a', name: 'Ann Lee' },
  { id: 'b', name: 'bob' },
  { id: 'c', name: 'Lena' },
]

test('the mention being typed is found right before the caret, not inside an address', () => {
  assert.deepEqual(mentionAt('Hi @An', 6), { start: 3, typed: 'An' })
  assert.deepEqual(mentionAt('@', 1), { start: 0, typed: '' })
  assert.equal(mentionAt('mail bob@exa', 12), null)
  assert.equal(mentionAt('@ann done', 9), null)
})

test('suggestions: names that start with what is typed first, then names with such a word', () => {
  assert.deepEqual(
    suggestions(members, 'l').map((m) => m.id),
    ['c', 'a'],
  )
  assert.deepEqual(
    suggestions(members, 'annl').map((m) => m.id),
    ['a'],
  )
  assert.deepEqual(
    suggestions(members, '').map((m) => m.id),
    ['a', 'b', 'c'],
  )
})

test('a chosen name is written without its spaces, so that it mentions that member alone', () => {
  assert.equal(mentionText({ id: 'a', name: 'Ann Lee' }), '@AnnLee ')
})
