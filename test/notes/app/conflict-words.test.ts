import assert from 'node:assert/strict'
import { test } from 'node:test'
import { conflictWords } from '../../../src/notes/app/conflict-words.ts'

test('a conflicted copy names "this device" and "the other device" from the side of the device that shows it', () => {
  const here = conflictWords(true)
  assert.equal(here.noteSide, "The other device's version")
  assert.equal(here.copySide, "This device's version (conflicted copy)")
  assert.equal(here.keepCopy, "Keep only this device's version")
  assert.match(
    here.notice('Colour'),
    /^Conflict in “Colour”: the other device changed the same lines while you edited them here\./,
  )
  const there = conflictWords(false)
  assert.equal(there.noteSide, "This device's version")
  assert.equal(there.copySide, "The other device's version (conflicted copy)")
  assert.equal(there.keepCopy, "Keep only the other device's version")
  assert.match(there.notice('Colour'), /the other device's is the conflicted copy\.$/)
  assert.doesNotMatch(here.hint + there.hint, /saved on another device/)
})

test('the hint says which version the note holds and which the copy, from each side', () => {
  assert.match(
    conflictWords(true).hint,
    /^The note holds the other device's version; this conflicted copy holds yours\./,
  )
  assert.match(
    conflictWords(false).hint,
    /^The note holds this device's version; this conflicted copy holds the other device's\./,
  )
})
