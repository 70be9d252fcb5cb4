/**
 * How the apps name the signed-in person and say a switch of person (src/auth/shown-name.ts,
 * docs/core.md "Login CSRF").
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { shownName, switchSentence } from '../src/auth/shown-name.ts'

test('shownName() puts the unique name beside a display name that reads differently, and nothing beside one that reads the same', () => {
  const cases: [string, unknown, string][] = [
    ['owner', 'bob', 'owner (bob)'],
    ['Bob', 'bob', 'Bob'],
    ['Ada Lovelace', 'ada', 'Ada Lovelace (ada)'],
    ['owner', undefined, 'owner'],
    ['owner', null, 'owner'],
    ['owner', '', 'owner'],
    ['owner', 42, 'owner'],
  ]
  for (const [name, login, shown] of cases)
    assert.equal(shownName(name, login), shown, `${name} / ${String(login)}`)
})

test('switchSentence() names both people, or says another account when the two read the same', () => {
  assert.equal(
    switchSentence('owner (bob)', 'owner'),
    'You are now signed in as owner (bob), no longer as owner.',
  )
  // An outside provider that sends no unique name: two people may both be "owner".
  assert.equal(
    switchSentence('owner', 'owner'),
    'You are now signed in as another account, also named owner.',
  )
  assert.equal(
    switchSentence('Owner', 'owner'),
    'You are now signed in as another account, also named Owner.',
  )
})
