import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const web = await app.project(alice, 'Board web')

test('the board of a search shows its tickets in columns by state, with counts', async () => {
  await app.ticket(alice, web.slug, { subject: 'Mine', assignee: 'alice' })
  await app.ticket(alice, web.slug, { subject: 'Not mine' })
  const got = await app.call('GET', `/${web.slug}/board?q=assignee:alice`, {
    headers: { cookie: alice.cookie },
  })
  assert.equal(got.status, 200, got.text)
  assert.match(got.text, /Mine/)
  assert.doesNotMatch(got.text, /Not mine/)
})
