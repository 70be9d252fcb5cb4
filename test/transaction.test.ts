import assert from 'node:assert/strict'
import { test } from 'node:test'
import { transaction } from '../src/transaction.ts'
import { testDatabase } from './support/db.ts'

const db = await testDatabase()
const sql = db.sql
await sql`create table kept (n int not null)`

async function kept(): Promise<number[]> {
  return (await sql<{ n: number }[]>`select n from kept order by n`).map((r) => r.n)
}

test('transaction() commits what its function and its last statement wrote, and answers the value', async () => {
  await sql`delete from kept`
  const value = await transaction(sql, async (tx) => {
    await tx`insert into kept values (1)`
    await tx`insert into kept values (2)`
    return 'done'
  }, (tx, v) => (v === 'done' ? tx`insert into kept values (3)` : null))
  assert.equal(value, 'done')
  assert.deepEqual(await kept(), [1, 2, 3])
})

test('transaction() rolls back everything when its function throws, and throws the same', async () => {
  await sql`delete from kept`
  const failure = new Error('refused')
  await assert.rejects(transaction(sql, async (tx) => {
    await tx`insert into kept values (1)`
    throw failure
  }), (err) => err === failure)
  assert.deepEqual(await kept(), [])
})

test('transaction() rolls back everything when a statement fails, the first one included', async () => {
  await sql`delete from kept`
  await assert.rejects(transaction(sql, async (tx) => {
    await tx`insert into kept values (null)`
  }), /null value/)
  await assert.rejects(transaction(sql, async (tx) => {
    await tx`insert into kept values (1)`
    await tx`insert into kept values (null)`
  }), /null value/)
  assert.deepEqual(await kept(), [])
})

test('transaction() rolls back what its function wrote when the last statement, sent with the commit, fails', async () => {
  await sql`delete from kept`
  await assert.rejects(transaction(sql, async (tx) => {
    await tx`insert into kept values (1)`
  }, (tx) => tx`insert into kept values (null)`), /null value/)
  assert.deepEqual(await kept(), [])
  // The connection went back to the pool out of any transaction: the next write is kept.
  await transaction(sql, async (tx) => void (await tx`insert into kept values (4)`))
  assert.deepEqual(await kept(), [4])
})

test('transaction() runs the last statement inside the transaction, before the commit', async () => {
  // txid_current() is the same inside one transaction and differs between two.
  let inside = 0
  let last = 0
  await transaction(sql, async (tx) => {
    inside = (await tx<{ id: number }[]>`select txid_current()::int as id`)[0]!.id
  }, (tx) => tx`insert into kept select txid_current()::int`)
  last = (await sql<{ n: number }[]>`select n from kept order by n desc limit 1`)[0]!.n
  assert.equal(last, inside)
})
