/**
 * Paging (src/http/paging.ts): the `limit` both services' lists read, the opaque cursors they
 * hand out and read back, and the live events' numeric cursor.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cursors, parseLimit, parseSequenceCursor } from '../src/http/paging.ts'

test("a limit is a whole number from 1 to the list's largest page", () => {
  assert.equal(parseLimit('1', 1000), 1)
  assert.equal(parseLimit('1000', 1000), 1000)
  assert.equal(parseLimit('0050', 1000), 50)
  for (const text of ['0', '1001', '', '-1', '1.5', '1e2', ' 5', '10000', 'abc'])
    assert.equal(parseLimit(text, 1000), null, text)
})

test('a cursor reads back the value it was written from, and nothing else reads', () => {
  const pages = cursors<number>(
    (n) => `n${n}`,
    (text) => (/^n[0-9]{1,16}$/.test(text) ? Number(text.slice(1)) : null),
    24,
  )
  const cursor = pages.write(42)
  assert.match(cursor, /^[A-Za-z0-9_-]+$/)
  assert.equal(pages.read(cursor), 42)
  // The same value written with a leading zero is not a cursor the list made.
  assert.equal(pages.read(Buffer.from('n042').toString('base64url')), null)
  for (const text of [
    '',
    'not a cursor',
    `${cursor}=`,
    'x'.repeat(25),
    Buffer.from('m42').toString('base64url'),
  ])
    assert.equal(pages.read(text), null, text)
})

test('a sequence cursor is a whole number from 0 without leading zeros that a double holds', () => {
  assert.equal(parseSequenceCursor('0'), 0)
  assert.equal(parseSequenceCursor('9007199254740991'), 9007199254740991)
  for (const text of ['', '01', '-1', '1.5', '1e3', '9007199254740993', '99999999999999999999'])
    assert.equal(parseSequenceCursor(text), null, text)
})
