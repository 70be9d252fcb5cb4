import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import postgres from 'postgres'
import { startEmbedded } from '../src/embedded-db.ts'

const server = await startEmbedded('memory://')
const client = (max: number) => postgres({ path: server.socketPath!, username: 'postgres', database: 'postgres', max, onnotice: () => {} })
after(() => server.stop())

test('parameterised queries from many connections at once each get their own answer', async () => {
  // pglite-socket's own queue interleaved these and failed with `portal "" does not exist`.
  const a = client(4)
  const b = client(4)
  try {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b)`select ${i}::int as n, ${'v' + i}::text as v`),
    )
    answers.forEach((rows, i) => assert.deepEqual([...rows], [{ n: i, v: 'v' + i }]))
  } finally {
    await Promise.all([a.end(), b.end()])
  }
})

test('a transaction holds the database: concurrent read-modify-write loses no update', async () => {
  const sql = client(5)
  try {
    await sql`create table counter (id int primary key, n int not null)`
    await sql`insert into counter values (1, 0)`
    await Promise.all(
      Array.from({ length: 25 }, () =>
        sql.begin(async (tx) => {
          const [row] = await tx`select n from counter where id = 1 for update`
          await new Promise((r) => setImmediate(r))
          await tx`update counter set n = ${(row!.n as number) + 1} where id = 1`
        }),
      ),
    )
    const [row] = await sql`select n from counter where id = 1`
    assert.equal(row!.n, 25)
  } finally {
    await sql.end()
  }
})

test('a connection that closes inside a transaction has it rolled back and frees the database', async () => {
  const sql = client(2)
  const quitter = client(1)
  try {
    await sql`create table kept (v text)`
    const reserved = await quitter.reserve()
    await reserved`begin`
    await reserved`insert into kept values ('never committed')`
    const ended = quitter.end({ timeout: 0 })
    reserved.release()
    await ended
    // If the open transaction had not been rolled back, this would wait for ever.
    assert.deepEqual([...(await sql`select v from kept`)], [])
  } finally {
    await sql.end()
  }
})

test('an error inside a batch leaves the connection usable', async () => {
  const sql = client(2)
  try {
    await assert.rejects(sql`select 1 / ${0}::int`, /division by zero/)
    const [row] = await sql`select ${'still here'}::text as ok`
    assert.equal(row!.ok, 'still here')
  } finally {
    await sql.end()
  }
})
