import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { connect, isDatabaseUnavailable } from '../src/db/client.ts'
import { CONNECTION_ATTEMPTS, transaction } from '../src/db/transaction.ts'
import { testDatabase } from './support/db.ts'
import { startTcpProxy } from './support/tcp-proxy.ts'

const db = await testDatabase()
const sql = db.sql
await sql`create table kept (n int not null)`

async function kept(): Promise<number[]> {
  return (await sql<{ n: number }[]>`select n from kept order by n`).map((r) => r.n)
}

test('transaction() commits what its function and its last statement wrote, and answers the value', async () => {
  await sql`delete from kept`
  const value = await transaction(
    sql,
    async (tx) => {
      await tx`insert into kept values (1)`
      await tx`insert into kept values (2)`
      return 'done'
    },
    (tx, v) => (v === 'done' ? tx`insert into kept values (3)` : null),
  )
  assert.equal(value, 'done')
  assert.deepEqual(await kept(), [1, 2, 3])
})

test('transaction() rolls back everything when its function throws, and throws the same', async () => {
  await sql`delete from kept`
  const failure = new Error('refused')
  await assert.rejects(
    transaction(sql, async (tx) => {
      await tx`insert into kept values (1)`
      throw failure
    }),
    (err) => err === failure,
  )
  assert.deepEqual(await kept(), [])
})

test('transaction() rolls back everything when a statement fails, the first one included', async () => {
  await sql`delete from kept`
  await assert.rejects(
    transaction(sql, async (tx) => {
      await tx`insert into kept values (null)`
    }),
    /null value/,
  )
  await assert.rejects(
    transaction(sql, async (tx) => {
      await tx`insert into kept values (1)`
      await tx`insert into kept values (null)`
    }),
    /null value/,
  )
  assert.deepEqual(await kept(), [])
})

test('transaction() rolls back what its function wrote when the last statement, sent with the commit, fails', async () => {
  await sql`delete from kept`
  await assert.rejects(
    transaction(
      sql,
      async (tx) => {
        await tx`insert into kept values (1)`
      },
      (tx) => tx`insert into kept values (null)`,
    ),
    /null value/,
  )
  assert.deepEqual(await kept(), [])
  // The connection went back to the pool out of any transaction: the next write is kept.
  await transaction(sql, async (tx) => void (await tx`insert into kept values (4)`))
  assert.deepEqual(await kept(), [4])
})

test('transaction() runs the last statement inside the transaction, before the commit', async () => {
  // txid_current() is the same inside one transaction and differs between two.
  let inside = 0
  await transaction(
    sql,
    async (tx) => {
      inside = (await tx<{ id: number }[]>`select txid_current()::int as id`)[0]!.id
    },
    (tx) => tx`insert into kept select txid_current()::int`,
  )
  const last = (await sql<{ n: number }[]>`select n from kept order by n desc limit 1`)[0]!.n
  assert.equal(last, inside)
})

// A connection that fails mid-transaction (docs/operations.md, "When the database is
// unreachable"): through a TCP proxy the test cuts.

async function throughProxy(t: TestContext) {
  const target = new URL(db.url)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const url = new URL(db.url)
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  const cut = connect(url.href, { max: 2, schema: db.schema })
  t.after(async () => {
    await cut.end({ timeout: 1 })
    await proxy.close()
  })
  return { sql: cut, proxy }
}

test('transaction() whose connection is cut before its commit was sent runs once more, on another connection, and commits once', async (t) => {
  await sql`delete from kept`
  const { sql: cut, proxy } = await throughProxy(t)
  let runs = 0
  const value = await transaction(cut, async (tx) => {
    runs++
    await tx`insert into kept values (${runs})`
    if (runs === 1) {
      proxy.cut()
      await tx`select 1`
    }
    return runs
  })
  assert.equal(runs, 2)
  assert.equal(value, 2)
  assert.deepEqual(await kept(), [2], 'the first run left nothing behind')
})

test('transaction() whose connection fails while its commit is on its way throws the failure and does not run again: whether it was kept is unknown', async (t) => {
  await sql`delete from kept`
  const { sql: cut, proxy } = await throughProxy(t)
  let runs = 0
  await assert.rejects(
    transaction(
      cut,
      async (tx) => {
        runs++
        await tx`insert into kept values (${runs})`
      },
      () => {
        // Called just before the commit is sent, in the same tick.
        proxy.cut()
        return null
      },
    ),
    (err) => isDatabaseUnavailable(err),
  )
  assert.equal(runs, 1)
})

test('transaction() runs at most twice: a second connection failure before the commit is thrown', async (t) => {
  await sql`delete from kept`
  const { sql: cut, proxy } = await throughProxy(t)
  let runs = 0
  await assert.rejects(
    transaction(cut, async (tx) => {
      runs++
      await tx`insert into kept values (${runs})`
      proxy.cut()
      await tx`select 1`
    }),
    (err) => isDatabaseUnavailable(err),
  )
  assert.equal(runs, CONNECTION_ATTEMPTS)
  assert.deepEqual(await kept(), [])
})

test('transaction() that gets no connection (the database down) throws at once, without a second try', async (t) => {
  const { sql: cut, proxy } = await throughProxy(t)
  await cut`select 1`
  await proxy.down()
  await new Promise((resolve) => setTimeout(resolve, 100))
  let reserves = 0
  const counting = { reserve: () => (reserves++, cut.reserve()) } as unknown as typeof cut
  await assert.rejects(
    transaction(counting, async () => {}),
    (err) => isDatabaseUnavailable(err),
  )
  assert.equal(reserves, 1)
})
