import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createTicketStore, TRANSACT_ATTEMPTS } from '../../src/tickets/store/ticket-store.ts'
import { refuse } from '../../src/tickets/refusal.ts'
import { testDatabase } from '../support/db.ts'

// A write the database breaks off to resolve a deadlock is run again instead of answering 500
// (seen with 8 writers at once in the growth bench: "deadlock detected").

const db = await testDatabase()
const store = createTicketStore({ sql: db.sql, clock: Date.now })
const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' })

test('a transaction the database broke off with a deadlock is run again, and only the last run is kept', async () => {
  let runs = 0
  const result = await store.transact(async () => {
    runs++
    if (runs < 3) throw deadlock()
    return 'done'
  })
  assert.equal(result, 'done')
  assert.equal(runs, 3)
})

test('after a few deadlocks in a row the error is answered, and other errors are not retried', async () => {
  let runs = 0
  await assert.rejects(store.transact(async () => {
    runs++
    throw deadlock()
  }), /deadlock detected/)
  assert.equal(runs, TRANSACT_ATTEMPTS)
  runs = 0
  await assert.rejects(store.transact(async () => {
    runs++
    throw new Error('something else')
  }), /something else/)
  assert.equal(runs, 1)
})

test('a refusal is answered as it is, not retried', async () => {
  let runs = 0
  const refusal = refuse(400, 'no')
  assert.equal(await store.transact(async () => (runs++, refusal)), refusal)
  assert.equal(runs, 1)
})
