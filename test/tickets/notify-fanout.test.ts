import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ticketsApp, type Person } from './support.ts'

const app = await ticketsApp()
const { call, sql } = app
const ann = await app.login('ann')
const bob = await app.login('bob')
const cid = await app.login('Cid Moreau')
const dee = await app.login('dee')
const web = await app.project(ann, 'Web')
await app.member(ann, web.slug, bob, 'edit')
await app.member(ann, web.slug, cid, 'use')

/** Runs the fan-out to the end of the outbox. */
async function fanOut(): Promise<void> {
  app.service.notify.poke()
  await app.service.notify.settled()
}

interface Row {
  user_id: string
  reason: string
  kind: string
  actor: string
  in_app: boolean
  mail_state: string
}

/** The notifications of one ticket, by person name, as "name:reason:kind". */
async function toldOf(ticketId: string, since = 0): Promise<string[]> {
  await fanOut()
  const rows = await sql<(Row & { name: string })[]>`
    select u.name, n.reason, n.kind from notifications n join users u on u.id = n.user_id
    where n.ticket_id = ${ticketId} and n.id > ${since} order by n.id`
  return rows.map((r) => `${r.name}:${r.reason}:${r.kind}`)
}

/** The newest notification's id, once everything written so far is fanned out. */
async function lastId(): Promise<number> {
  await fanOut()
  const [row] = await sql<{ id: number | null }[]>`select max(id) as id from notifications`
  return row?.id ?? 0
}

async function comment(person: Person, t: { number: number }, text: string) {
  const made = await call('POST', `/api/projects/${web.slug}/tickets/${t.number}/comments`, {
    token: person.token,
    body: { text },
  })
  assert.equal(made.status, 201, made.text)
}

test('a ticket created assigned to someone tells them, and nobody is told of their own creation', async () => {
  const t = await app.ticket(ann, web.slug, { assignee: 'bob' })
  assert.deepEqual(await toldOf(t.id), ['bob:assigned:created'])
})

test('a mention by display name or by the name without spaces tells that member', async () => {
  const t = await app.ticket(ann, web.slug)
  const since = await lastId()
  await comment(ann, t, 'Could @bob and @CidMoreau look? Not `@dee`, mail bob@example.com')
  assert.deepEqual(await toldOf(t.id, since), [
    'bob:mentioned:comment',
    'Cid Moreau:mentioned:comment',
  ])
})

test('a mention of someone who is not a member tells nobody', async () => {
  const t = await app.ticket(ann, web.slug)
  await comment(ann, t, '@dee please')
  assert.deepEqual(await toldOf(t.id), [])
})

test('the mentioned, the author and commenters watch the ticket afterwards', async () => {
  const t = await app.ticket(ann, web.slug)
  await comment(bob, t, 'Me too, @Cid Moreau')
  const since = await lastId()
  await comment(cid, t, 'Looking')
  assert.deepEqual((await toldOf(t.id, since)).sort(), [
    'ann:watching:comment',
    'bob:watching:comment',
  ])
})

test('assigning tells the new assignee and the one it was taken from', async () => {
  const t = await app.ticket(ann, web.slug, { assignee: 'bob' })
  const since = await lastId()
  const moved = await call('POST', `/api/projects/${web.slug}/tickets/${t.number}/assign`, {
    token: ann.token,
    body: { assignee: 'Cid Moreau' },
  })
  assert.equal(moved.status, 201, moved.text)
  assert.deepEqual((await toldOf(t.id, since)).sort(), [
    'Cid Moreau:assigned:assign',
    'bob:assigned:assign',
  ])
})

test('an Unwatch holds against later events, and Watch all tells of every ticket of the project', async () => {
  await sql`insert into project_watches (project_id, user_id, at) values (${web.id}, ${dee.id}, 0)`
  const t = await app.ticket(ann, web.slug)
  assert.deepEqual(await toldOf(t.id), ['dee:watching:created'])
  await sql`insert into watches (ticket_id, user_id, watching, at) values (${t.id}, ${dee.id}, false, 1)`
  const since = await lastId()
  await comment(ann, t, 'Anyone?')
  assert.deepEqual(await toldOf(t.id, since), [])
  await sql`delete from project_watches where user_id = ${dee.id}`
})

test('a person who wants neither app nor mail for a reason gets no row', async () => {
  await sql`insert into notification_prefs (user_id, reason, app, mail) values (${bob.id}, 'mentioned', false, false)`
  const t = await app.ticket(ann, web.slug)
  await comment(ann, t, 'Hey @bob')
  assert.deepEqual(await toldOf(t.id), [])
  await sql`delete from notification_prefs where user_id = ${bob.id}`
})

test('without SMTP_URL no row waits for mail', async () => {
  const rows = await sql<Row[]>`select mail_state from notifications where mail_state <> 'none'`
  assert.equal(rows.length, 0)
})

test('a change of the due date tells the watchers', async () => {
  const t = await app.ticket(bob, web.slug)
  const since = await lastId()
  const due = await call('POST', `/api/projects/${web.slug}/tickets/${t.number}/due`, {
    token: ann.token,
    body: { due: '2030-01-31' },
  })
  assert.equal(due.status, 201, due.text)
  assert.deepEqual(await toldOf(t.id, since), ['bob:watching:due'])
})

test('read notifications older than 90 days are swept; unread and newer ones stay', async () => {
  const t = await app.ticket(ann, web.slug)
  await comment(ann, t, '@bob old and read')
  await comment(ann, t, '@Cid Moreau old and unread')
  await fanOut()
  // Bob's: the mention, and the second comment, of a ticket he now watches.
  const read =
    await sql`update notifications set read_at = at where ticket_id = ${t.id} and user_id = ${bob.id} returning 1`
  assert.equal(read.length, 2)
  app.clock.advance(90 * 24 * 60 * 60 * 1000 - 1000)
  assert.equal(await app.service.notify.sweep(), 0, 'not yet 90 days old')
  app.clock.advance(2000)
  assert.equal(await app.service.notify.sweep(), 2)
  assert.deepEqual(await toldOf(t.id), ['Cid Moreau:mentioned:comment'])
})
