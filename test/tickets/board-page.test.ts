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

/** The subjects of a column's cards, in the page's order. */
function cardsOf(page: string, state: string): string[] {
  const section = new RegExp(`data-cards="${state}"[^>]*>([\\s\\S]*?)</ul>`).exec(page)
  assert.ok(section, `no ${state} column`)
  return [...section[1]!.matchAll(/class="subject"[^>]*>([^<]*)</g)].map((m) => m[1]!)
}

test('a board sorted by due day shows each column’s soonest due first, those without one last', async () => {
  const due = await app.project(alice, 'Board due')
  await app.sql`
    insert into tickets (project_id, number, subject, state, assignee_id, due, created, updated)
    values (${due.id}, 1, 'no day', 'open', ${alice.id}, null, 1, 1),
      (${due.id}, 2, 'late', 'open', ${alice.id}, '2030-05-01', 2, 2),
      (${due.id}, 3, 'soon', 'open', ${alice.id}, '2030-01-01', 3, 3),
      (${due.id}, 4, 'doing soon', 'doing', ${alice.id}, '2030-02-01', 4, 4)`
  await app.sql`update projects set next_number = 5 where id = ${due.id}`
  const got = await app.call(
    'GET',
    `/${due.slug}/board?q=${encodeURIComponent('assignee:alice sort:due')}`,
    {
      headers: { cookie: alice.cookie },
    },
  )
  assert.equal(got.status, 200, got.text)
  assert.deepEqual(cardsOf(got.text, 'open'), ['soon', 'late', 'no day'])
  assert.deepEqual(cardsOf(got.text, 'doing'), ['doing soon'])
})

test('a search finding more than the board counts fills each column newest first and says there are more', async () => {
  const huge = await app.project(alice, 'Board huge')
  await app.sql`
    insert into tickets (project_id, number, subject, state, created, updated)
    select ${huge.id}, n, 'huge ' || n, (array['open', 'doing', 'review', 'done', 'dropped'])[1 + n % 5], n, n
    from generate_series(1, 10100) as n`
  await app.sql`update projects set next_number = 10101 where id = ${huge.id}`
  const got = await app.call('GET', `/${huge.slug}/board?q=huge`, {
    headers: { cookie: alice.cookie },
  })
  assert.equal(got.status, 200, got.text)
  // 10,100 is 0 mod 5: the open column holds 10,100, 10,095, …
  const open = cardsOf(got.text, 'open')
  assert.equal(open.length, 50)
  assert.deepEqual(open.slice(0, 3), ['huge 10100', 'huge 10095', 'huge 10090'])
  assert.deepEqual(cardsOf(got.text, 'doing').slice(0, 2), ['huge 10096', 'huge 10091'])
  assert.equal(got.text.match(/More in the list/g)?.length, 5)
})

test('a board read again shows what was written since, whichever way it was written', async () => {
  const again = await app.project(alice, 'Board again')
  const made = await app.ticket(alice, again.slug, { subject: 'Before', assignee: 'alice' })
  const board = () =>
    app.call('GET', `/${again.slug}/board?q=assignee:alice`, {
      headers: { cookie: alice.cookie },
    })
  const first = await board()
  assert.deepEqual(cardsOf(first.text, 'open'), ['Before'])
  assert.deepEqual(cardsOf((await board()).text, 'open'), ['Before'])
  // Straight in the database, past every write path of the service.
  await app.sql`update tickets set subject = 'After' where id = ${made.id}`
  assert.deepEqual(cardsOf((await board()).text, 'open'), ['After'])
  const moved = await app.call('POST', `/api/projects/${again.slug}/tickets/${made.number}/state`, {
    token: alice.token,
    body: { state: 'doing' },
  })
  assert.equal(moved.status, 201, moved.text)
  const last = await board()
  assert.deepEqual(cardsOf(last.text, 'open'), [])
  assert.deepEqual(cardsOf(last.text, 'doing'), ['After'])
})

test('boards of `assignee:me` read one after the other show each person their own tickets', async () => {
  const bob = await app.login('bob')
  const shared = await app.project(alice, 'Board me')
  await app.member(alice, shared.slug, bob, 'edit')
  await app.ticket(alice, shared.slug, { subject: 'For alice', assignee: 'alice' })
  await app.ticket(alice, shared.slug, { subject: 'For bob', assignee: 'bob' })
  const mine = (person: { cookie: string }) =>
    app.call('GET', `/${shared.slug}/board?q=assignee:me`, { headers: { cookie: person.cookie } })
  assert.deepEqual(cardsOf((await mine(alice)).text, 'open'), ['For alice'])
  assert.deepEqual(cardsOf((await mine(bob)).text, 'open'), ['For bob'])
  assert.deepEqual(cardsOf((await mine(alice)).text, 'open'), ['For alice'])
})
