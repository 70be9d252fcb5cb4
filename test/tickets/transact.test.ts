import assert from 'node:assert/strict'
import { test } from 'node:test'
import { connect } from '../../src/db/client.ts'
import { createTicketStore, TRANSACT_ATTEMPTS } from '../../src/tickets/store/ticket-store.ts'
import { reason, refuse } from '../../src/http/refusal.ts'
import { testDatabase } from '../support/db.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'

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
  await assert.rejects(
    store.transact(async () => {
      runs++
      throw deadlock()
    }),
    /deadlock detected/,
  )
  assert.equal(runs, TRANSACT_ATTEMPTS)
  runs = 0
  await assert.rejects(
    store.transact(async () => {
      runs++
      throw new Error('something else')
    }),
    /something else/,
  )
  assert.equal(runs, 1)
})

test('a refusal is answered as it is, not retried', async () => {
  let runs = 0
  const refusal = refuse(400, reason('bad_field', 'no'))
  assert.equal(await store.transact(async () => (runs++, refusal)), refusal)
  assert.equal(runs, 1)
})

test('a write whose connection is cut before its commit is run again on another connection, and its live events are stored once', async (t) => {
  const target = new URL(db.url)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const url = new URL(db.url)
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  const sql = connect(url.href, { max: 2, schema: db.schema })
  t.after(async () => {
    await sql.end({ timeout: 1 })
    await proxy.close()
  })
  let pings = 0
  const cutStore = createTicketStore({
    sql,
    clock: Date.now,
    wake: { ping: () => void pings++, next: () => new Promise(() => {}) },
  })
  let runs = 0
  const result = await cutStore.transact(async (tx) => {
    runs++
    await tx.emit('p-cut', 'ticketCreated', [{ run: runs }])
    if (runs === 1) {
      proxy.cut()
      await tx.projects.byId('p-cut')
    }
    return 'done'
  })
  assert.equal(result, 'done')
  assert.equal(runs, 2)
  const events = await db.sql<
    { args: unknown }[]
  >`select args from events where project_id = 'p-cut'`
  assert.deepEqual(
    events.map((e) => e.args),
    [[{ run: 2 }]],
  )
  assert.equal(pings, 1)
})
