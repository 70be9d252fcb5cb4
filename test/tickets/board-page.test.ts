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

test('a column with more cards than it shows links to the rest in the list', async () => {
  const big = await app.project(alice, 'Board big')
  await app.sql`
    insert into tickets (project_id, number, subject, assignee_id, created, updated)
    select ${big.id}, n, 'many ' || n, ${alice.id}, n, n from generate_series(1, 130) as n`
  await app.sql`update projects set next_number = 131 where id = ${big.id}`
  const got = await app.call('GET', `/${big.slug}/board?q=assignee:alice`, {
    headers: { cookie: alice.cookie },
  })
  assert.equal(got.status, 200, got.text)
  assert.match(got.text, /80 more in the list/)
  assert.equal(got.text.match(/class="ticket-card"/g)?.length, 50)
})
