import assert from 'node:assert/strict'
import { test } from 'node:test'
import { combined, lineParts } from '../../src/tickets/text/text-diff.ts'

test('lineParts() marks only the appended line when the old last line had no newline', () => {
  assert.deepEqual(lineParts('milk\nbutter', 'milk\nbutter\neggs'), [
    { kind: 'same', text: 'milk\nbutter\n' },
    { kind: 'added', text: 'eggs\n' },
  ])
})

test('lineParts() shows a replaced line as removed then added', () => {
  assert.deepEqual(lineParts('Version from tab 1', 'Version from tab 2'), [
    { kind: 'removed', text: 'Version from tab 1\n' },
    { kind: 'added', text: 'Version from tab 2\n' },
  ])
})

test("combined() keeps every line of both texts, shared lines once, the first text's first", () => {
  assert.equal(combined('one\ntwo\nthree', 'one\n2\nthree'), 'one\ntwo\n2\nthree')
  assert.equal(combined('same', 'same'), 'same')
  assert.equal(combined('a\n', 'b\n'), 'a\nb\n')
  assert.equal(combined('', 'new'), 'new')
})
