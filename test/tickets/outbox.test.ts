/**
 * Live events are written to the outbox in the same transaction as their write, and the
 * service's wake-up is pinged once that transaction has committed.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const demo = await app.project(alice, 'Demo')

/** Counts the wake-up's pings while `run` runs. */
async function pingsDuring(run: () => Promise<unknown>): Promise<number> {
  const wake = app.service.wake
  const ping = wake.ping
  let pings = 0
  wake.ping = () => {
    pings++
    ping()
  }
  try {
    await run()
  } finally {
    wake.ping = ping
  }
  return pings
}

test('a write that emits events pings the wake-up once, after it commits', async () => {
  const t = await app.ticket(alice, demo.slug)
  const pings = await pingsDuring(() =>
    app.call('POST', `/api/tickets/${t.id}/state`, {
      token: alice.token,
      body: { state: 'doing' },
    }),
  )
  assert.equal(pings, 1, 'three events in one transaction, one ping')
})

test('a refused write and a write without events do not ping', async () => {
  const pings = await pingsDuring(async () => {
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: alice.token,
      body: { subject: 'x', assignee: 'nobody' },
    })
    await app.call('POST', '/api/projects', { token: alice.token, body: { title: 'No events' } })
  })
  assert.equal(pings, 0)
})

test('events record the project id, and an event is never stored for a refused write', async () => {
  const before = (await app.events()).length
  await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
    token: alice.token,
    body: { subject: 'x', assignee: 'nobody' },
  })
  assert.equal((await app.events()).length, before)
  const t = await app.ticket(alice, demo.slug)
  const last = (await app.events()).at(-1)!
  assert.equal(last.project_id, demo.id)
  assert.equal((last.args[0] as { id: string }).id, t.id)
})
