import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readUnsubscribeToken, unsubscribeToken } from '../../src/tickets/rules/unsubscribe.ts'

const KEY = 'a key of the tracker'

test('an unsubscribe token names its person and kind, and opens only under its own key', () => {
  const token = unsubscribeToken(KEY, 'abc123def456', 'watching')
  assert.deepEqual(readUnsubscribeToken(KEY, token), { userId: 'abc123def456', kind: 'watching' })
  assert.equal(readUnsubscribeToken('another key', token), null)
})

test('a token changed in any part, or not shaped as one, opens nothing', () => {
  const token = unsubscribeToken(KEY, 'abc123def456', 'mentioned')
  const [user, , mac] = token.split('.')
  for (const bad of [
    `${user}.assigned.${mac}`,
    `zzz123def456.mentioned.${mac}`,
    `${token}x`,
    `${token}.more`,
    token.replace(/.$/, 'é'),
    '',
    'constructor',
    `${user}.__proto__.${mac}`,
  ])
    assert.equal(readUnsubscribeToken(KEY, bad), null, bad)
})
