import assert from 'node:assert/strict'
import { test } from 'node:test'
import { carriedTo, columnName } from '../../src/tickets/app/board.ts'
import { changedWords, rangeSelect } from '../../src/tickets/app/bulk.ts'
import { withTabStates } from '../../src/tickets/pages/project-page.ts'
import { parseNumbers } from '../../src/tickets/api/bulk.ts'
import { selectAllWords } from '../../src/tickets/text/page-words.ts'

test('a card is carried to the next column by ArrowRight and the previous by ArrowLeft, and no further than the ends', () => {
  assert.equal(carriedTo('open', 'ArrowRight'), 'doing')
  assert.equal(carriedTo('review', 'ArrowLeft'), 'doing')
  assert.equal(carriedTo('open', 'ArrowLeft'), null)
  assert.equal(carriedTo('dropped', 'ArrowRight'), null)
  assert.equal(carriedTo('open', 'ArrowUp'), null)
  assert.equal(columnName('review'), 'Review')
})

test('Shift-click selects the range from the last box clicked, to the clicked box’s state', () => {
  const f = false
  const t = true
  assert.deepEqual(rangeSelect([t, f, f, t, f], 0, 3, true), [t, t, t, t, f])
  assert.deepEqual(rangeSelect([f, f, t, f, f], 4, 2, true), [f, f, t, t, t])
  // Unchecking with Shift unchecks the range.
  assert.deepEqual(rangeSelect([t, t, f, t], 0, 2, true), [f, f, f, t])
  // Without Shift, or without an earlier click, only the clicked box changed.
  assert.deepEqual(rangeSelect([t, f, t], 0, 2, false), [t, f, t])
  assert.deepEqual(rangeSelect([f, f, t], null, 2, true), [f, f, t])
})

test('the bulk notice says what changed', () => {
  assert.equal(changedWords(3, 'state', 'done'), 'Set 3 tickets to done.')
  assert.equal(changedWords(1, 'assignee', 'bob'), 'Assigned 1 ticket to bob.')
  assert.equal(changedWords(1200, 'assignee', 'Nobody'), 'Unassigned 1,200 tickets.')
  assert.equal(changedWords(0, 'state', 'done'), 'Nothing changed: the tickets already had that.')
  assert.equal(changedWords(2, 'addLabel', 'bug'), 'Added the label bug to 2 tickets.')
  assert.equal(changedWords(2, 'removeLabel', 'bug'), 'Took the label bug off 2 tickets.')
  assert.equal(changedWords(2, 'milestone', 'v1.0'), 'Put 2 tickets in v1.0.')
  assert.equal(changedWords(1, 'milestone', ''), 'Took 1 ticket out of their milestone.')
})

test('a list’s tab is part of the search a bulk change of all matching sends', () => {
  assert.equal(withTabStates('login', { states: null }, null), 'login')
  assert.equal(withTabStates('login', { states: null }, ['done']), 'login state:done')
  assert.equal(withTabStates('', { states: null }, ['open', 'doing']), 'state:open,doing')
  assert.equal(withTabStates('state:review', { states: ['review'] }, ['done']), 'state:review')
})

test('a bulk change’s numbers are whole numbers separated by commas, at most 1,000', () => {
  assert.deepEqual(parseNumbers('12,13,12'), [12, 13])
  assert.equal(parseNumbers('12, 13'), null)
  assert.equal(parseNumbers(''), null)
  assert.equal(parseNumbers('-1'), null)
  assert.equal(parseNumbers(Array.from({ length: 1001 }, (_, i) => i + 1).join(',')), null)
  assert.equal(parseNumbers(Array.from({ length: 1000 }, (_, i) => i + 1).join(','))?.length, 1000)
})

test('the bulk bar offers Select all N matching, and past 1,000 says to narrow the search', () => {
  assert.deepEqual(selectAllWords({ count: 60, more: false }), {
    text: 'Select all 60 matching',
    tooMany: false,
  })
  assert.deepEqual(selectAllWords({ count: 1000, more: false }), {
    text: 'Select all 1,000 matching',
    tooMany: false,
  })
  assert.deepEqual(selectAllWords({ count: 1000, more: true }), {
    text: 'More than 1,000 match: narrow the search to change them all',
    tooMany: true,
  })
})
