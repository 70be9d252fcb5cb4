import assert from 'node:assert/strict'
import { test } from 'node:test'
import { importTickets } from '../../src/tickets/importer/import.ts'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')

const FILE = {
  project: { slug: 'legacy', title: 'Legacy tracker', description: 'from the old tool', admin: 'alice' },
  tickets: [
    { number: 1041, subject: 'Second', state: 'done', author: 'alice', assignee: 'alice', created: '2020-01-02T03:04:05Z', parent: 1000,
      comments: [{ author: 'ghost', text: 'old comment', created: 1577934245000 }] },
    { number: 1000, subject: 'First', summary: 'the summary', source: 'old:1000', author: 'Old Person', blockedBy: [1041] },
  ],
}

test('an import creates the project, numbers tickets by old number and keeps the old numbers', async () => {
  const result = await importTickets(app.sql, FILE, app.clock.now())
  assert.deepEqual(result, {
    ok: true,
    report: { project: 'legacy', imported: 2, skipped: 0, warnings: ["'Old Person' has not logged in here: kept as a name", "'ghost' has not logged in here: kept as a name"] },
  })
  const first = await app.call('GET', '/api/tickets/1000')
  expectJson(first, 200)
  assert.equal(first.body.ticket.ref, 'legacy#1')
  assert.equal(first.body.ticket.oldNumber, 1000)
  assert.deepEqual(first.body.ticket.author, { id: null, name: 'Old Person' })
  assert.equal(first.body.ticket.summary, 'the summary')
  const second = await app.call('GET', '/api/tickets/1041')
  assert.equal(second.body.ticket.ref, 'legacy#2')
  assert.equal(second.body.ticket.state, 'done')
  assert.equal(second.body.ticket.created, Date.parse('2020-01-02T03:04:05Z'))
  assert.deepEqual(second.body.ticket.assignee, { id: alice.id, name: 'alice' })
  assert.deepEqual(second.body.ticket.parent, { id: first.body.ticket.id, ref: 'legacy#1' })
  assert.deepEqual(first.body.ticket.blockedBy, [{ id: second.body.ticket.id, ref: 'legacy#2' }])
  assert.deepEqual(second.body.events.map((e: { by: string; text: string }) => [e.by, e.text]), [['ghost', 'old comment']])
  const members = (await app.call('GET', '/api/projects/legacy')).body.members
  assert.deepEqual(members, [{ user: { id: alice.id, name: 'alice' }, role: 'admin' }])
})

test('after an import /tickets/<old number> redirects to the ticket page', async () => {
  const moved = await app.call('GET', '/tickets/1041')
  assert.equal(moved.status, 301)
  assert.equal(moved.headers.location, '/legacy/2')
})

test('new tickets in an imported project continue after the imported numbers', async () => {
  const t = await app.ticket(alice, 'legacy')
  assert.equal(t.number, 3)
})

test('importing the same file again skips what is there', async () => {
  const again = await importTickets(app.sql, FILE, app.clock.now())
  assert.ok(again.ok)
  assert.equal(again.report.imported, 0)
  assert.equal(again.report.skipped, 2)
  const [row] = await app.sql`select count(*)::int as n from tickets where old_number is not null`
  assert.equal(row!.n, 2)
})

test('a bad file is refused whole, naming the place, and imports nothing', async () => {
  const cases: [unknown, string][] = [
    [[], 'the file must hold a JSON object with project and tickets'],
    [{ project: {}, tickets: [] }, 'project.slug is required'],
    [{ project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 0, subject: 's' }] }, 'tickets[0].number must be a whole number from 1'],
    [{ project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 5 }] }, 'tickets[0].subject is required'],
    [{ project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 5, subject: 's', state: 'closed' }] }, 'tickets[0].state must be one of open, doing, review, done, dropped'],
    [{ project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 5, subject: 's' }, { number: 5, subject: 't' }] }, 'tickets[1].number 5 appears twice'],
    [{ project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 5, subject: 's', parent: 6 }] }, 'ticket 5 names old number 6, which is neither in the file nor imported'],
    [{ project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 5, subject: 's', parent: 6 }, { number: 6, subject: 't', parent: 5 }] }, 'the parents in the file make a cycle'],
    [{ project: { slug: 'x' }, tickets: [] }, "project 'x' does not exist: give project.admin, a person who has logged in, to create it"],
    [{ project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 1000, subject: 's' }] }, 'old number 1000 already belongs to a ticket of another project'],
    [{ project: { slug: 'api', admin: 'alice' }, tickets: [] }, "project.slug: 'api' is reserved"],
  ]
  for (const [file, error] of cases) {
    const got = await importTickets(app.sql, file, app.clock.now())
    assert.ok(!got.ok, error)
    assert.deepEqual({ status: got.status, code: got.code, error: got.message }, { status: 400, code: 'bad_import', error })
  }
  const [row] = await app.sql`select count(*)::int as n from projects where slug = 'x'`
  assert.equal(row!.n, 0)
})
