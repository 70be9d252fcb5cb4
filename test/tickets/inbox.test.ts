import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const demo = await app.project(alice, 'Demo')
await app.member(alice, demo.slug, bob, 'edit')

test('the inbox needs a user token: 401 without one', async () => {
  expectJson(await app.call('GET', '/api/inbox'), 401, { error: 'a token is needed' })
})

test('the inbox lists my open and doing tickets as pending and my review tickets as review, newest change first', async () => {
  const open = await app.ticket(alice, demo.slug, { subject: 'open', assignee: 'bob' })
  app.clock.advance(10)
  const doing = await app.ticket(alice, demo.slug, { subject: 'doing', assignee: 'bob' })
  await app.call('POST', `/api/tickets/${doing.id}/state`, {
    token: bob.token,
    body: { state: 'doing' },
  })
  app.clock.advance(10)
  const done = await app.ticket(alice, demo.slug, { subject: 'done', assignee: 'bob' })
  await app.call('POST', `/api/tickets/${done.id}/state`, {
    token: bob.token,
    body: { state: 'done' },
  })
  await app.ticket(alice, demo.slug, { subject: 'not mine', assignee: 'alice' })
  const review = await app.ticket(bob, demo.slug, { subject: 'review', assignee: 'alice' })
  await app.call('POST', `/api/tickets/${review.id}/state`, {
    token: alice.token,
    body: { state: 'review' },
  })
  app.clock.advance(10)
  await app.call('POST', `/api/tickets/${open.id}/comments`, {
    token: alice.token,
    body: { text: 'bump' },
  })

  const got = await app.call('GET', '/api/inbox', { token: bob.token })
  expectJson(got, 200)
  assert.deepEqual(
    got.body.pending.map((t: { subject: string }) => t.subject),
    ['open', 'doing'],
  )
  assert.deepEqual(
    got.body.review.map((t: { subject: string }) => t.subject),
    ['review'],
  )
  const mine = await app.call('GET', '/api/inbox', { token: alice.token })
  assert.deepEqual(
    mine.body.pending.map((t: { subject: string }) => t.subject),
    ['not mine'],
  )
  assert.deepEqual(mine.body.review, [])
})
