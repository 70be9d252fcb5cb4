/**
 * Room on the tickets' pages for their updates (sql/0013_tickets_room_for_updates.sql): a
 * comment moves a ticket's `updated`, which no index holds, so its new row version stays on
 * the ticket's page and no index takes a new entry, as long as the page has room.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const crowd = await app.project(alice, 'Crowd')

test('a comment keeps its ticket on the same page of the table, even when the tickets were written in bulk', async () => {
  await app.sql`
    insert into tickets (project_id, number, subject, summary, state, author_id, created, updated)
    select ${crowd.id}, n, 'Ticket ' || n || ' with a subject of some length', 'And a summary that says what happens and when.', 'open', ${alice.id}, n, n
    from generate_series(1, 400) n`
  const pageOf = async (ids: string[]) => {
    const rows = await app.sql<
      { id: string; page: string }[]
    >`select id, (ctid::text::point)[0]::text as page from tickets where id in ${app.sql(ids)}`
    return Object.fromEntries(rows.map((r) => [r.id, r.page]))
  }
  const picked = await app.sql<
    { id: string }[]
  >`select id from tickets where project_id = ${crowd.id} and number % 20 = 0 order by number`
  const ids = picked.map((r) => r.id)
  const before = await pageOf(ids)
  for (const id of ids) {
    const res = await app.call('POST', `/api/tickets/${id}/comments`, {
      token: alice.token,
      body: { text: 'Still happens.' },
    })
    assert.equal(res.status, 201, res.text)
  }
  assert.deepEqual(await pageOf(ids), before)
})
