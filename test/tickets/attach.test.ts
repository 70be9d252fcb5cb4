import assert from 'node:assert/strict'
import { test } from 'node:test'
import { insertLink, refusalOf, tooLarge } from '../../src/tickets/app/attach.ts'

test('an image goes in on a line of its own at the cursor, and the cursor after it', () => {
  assert.deepEqual(insertLink('See:', 4, 4, '![a](/files/x/a.png)', true), {
    text: 'See:\n![a](/files/x/a.png)\n',
    cursor: 26,
  })
  assert.deepEqual(insertLink('', 0, 0, '![a](/f)', true), { text: '![a](/f)\n', cursor: 9 })
  assert.deepEqual(insertLink('a\nb', 2, 2, '![a](/f)', true), {
    text: 'a\n![a](/f)\nb',
    cursor: 11,
  })
})

test('a link to another file goes in inside the sentence, replacing a selection', () => {
  assert.deepEqual(insertLink('the log', 7, 7, '[l (1 B)](/f)', false), {
    text: 'the log [l (1 B)](/f)',
    cursor: 21,
  })
  assert.deepEqual(insertLink('see HERE now', 4, 8, '[l](/f)', false), {
    text: 'see [l](/f) now',
    cursor: 11,
  })
  assert.deepEqual(insertLink('xy', 1, 1, '[l](/f)', false), { text: 'x [l](/f) y', cursor: 10 })
})

test('a refused upload is said in words, by its status and code', () => {
  assert.equal(
    refusalOf(0, null, null),
    'Could not reach the server, so the file was not attached. Try again.',
  )
  assert.equal(
    refusalOf(413, 'file_too_large', {
      error: 'a file may be at most 25 MB (UPLOAD_MAX_MB)',
      field: 'body',
    }),
    'A file may be at most 25 MB (UPLOAD_MAX_MB).',
  )
  assert.match(refusalOf(401, 'token_needed', { error: 'a token is needed' }), /signed out/)
  assert.equal(
    refusalOf(502, null, null),
    'The server answered 502, so the file was not attached. Try again.',
  )
  assert.equal(
    tooLarge('dump.zip', 30 * 1024 * 1024, 25),
    'dump.zip is 30 MB: a file may be at most 25 MB.',
  )
})
