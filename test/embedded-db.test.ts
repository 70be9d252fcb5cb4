// Test database: embedded: it opens embedded databases of its own (test/run.ts).
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, stat } from 'node:fs/promises'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { startEmbedded } from '../src/db/embedded.ts'

const server = await startEmbedded('memory://')
const client = (max: number) =>
  postgres({
    path: server.socketPath!,
    username: 'postgres',
    database: 'postgres',
    max,
    onnotice: () => {},
  })
after(() => server.stop())

test('parameterised queries from many connections at once each get their own answer', async () => {
  // pglite-socket's own queue interleaved these and failed with `portal "" does not exist`.
  const a = client(4)
  const b = client(4)
  try {
    const answers = await Promise.all(
      Array.from(
        { length: 200 },
        (_, i) => (i % 2 ? a : b)`select ${i}::int as n, ${'v' + i}::text as v`,
      ),
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

test('the statements a connection prepared go with it: connections that come and go leave none behind', async () => {
  const watcher = client(1)
  const count = async () =>
    (await watcher.unsafe('select count(*)::int as n from pg_prepared_statements'))[0]!.n as number
  try {
    const before = await count()
    for (let i = 0; i < 5; i++) {
      const sql = client(2)
      await Promise.all([sql`select ${i}::int as a`, sql`select ${i}::int as b, now() as c`])
      assert.ok((await count()) > before, 'the connection prepared its statements')
      await sql.end()
    }
    // The statements are dropped between the other connections' messages, soon after the close.
    for (let tries = 0; (await count()) !== before && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    assert.equal(await count(), before)
  } finally {
    await watcher.end()
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

test('a statement of several megabytes, arriving in many pieces, reaches the database whole, and so does its answer', async () => {
  const sql = client(2)
  try {
    const text = randomBytes(3 * 1024 * 1024).toString('base64')
    const [row] = await sql<{ digest: string; back: string }[]>`
      select md5(${text}::text) as digest, ${text}::text as back`
    assert.equal(row!.digest, createHash('md5').update(text).digest('hex'))
    assert.equal(row!.back, text)
  } finally {
    await sql.end()
  }
})

test('a client that asks for encryption is told the socket has none and is then served', async () => {
  const sql = postgres({
    path: server.socketPath!,
    username: 'postgres',
    database: 'postgres',
    ssl: 'prefer',
    max: 1,
    onnotice: () => {},
  })
  try {
    assert.deepEqual([...(await sql`select 1 as one`)], [{ one: 1 }])
  } finally {
    await sql.end()
  }
})

test('a connection that sends what is not a message of the protocol is closed, and others go on', async () => {
  const sql = client(1)
  try {
    const socket = createConnection(server.socketPath!)
    await new Promise((resolve) => socket.once('connect', resolve))
    // A start-up message whose length (2) cannot hold its own header.
    socket.write(Buffer.from([0, 0, 0, 2, 0, 3, 0, 0]))
    await new Promise((resolve) => socket.once('close', resolve))
    assert.deepEqual([...(await sql`select 2 as two`)], [{ two: 2 }])
  } finally {
    await sql.end()
  }
})

test('the empty database a first start unpacks is there for the installed PGlite version (npm run pglite-template makes it)', async () => {
  const { PGLITE_VERSION, TEMPLATE } = await import('../src/db/embedded.ts')
  assert.match(TEMPLATE, new RegExp(`pglite-${PGLITE_VERSION.replace(/\./g, '\\.')}\\.tar\\.gz$`))
  assert.ok(
    (await stat(TEMPLATE)).size > 1_000_000,
    `${TEMPLATE} is missing: run npm run pglite-template after upgrading PGlite`,
  )
})

test('a first start on an empty directory unpacks that database: it answers, takes writes and keeps them across a restart', async () => {
  const dir = join(await mkdtemp(join(tmpdir(), 'embedded-first-')), 'pglite')
  const first = await startEmbedded(dir, { tcp: true })
  const sql = postgres({
    host: '127.0.0.1',
    port: first.port!,
    username: 'postgres',
    database: 'postgres',
    max: 1,
    onnotice: () => {},
  })
  await sql`create table kept (n int)`
  await sql`insert into kept values (7)`
  assert.equal((await sql`select current_setting('shared_buffers') as b`)[0]!.b, '16MB')
  await sql.end()
  await first.stop()
  const second = await startEmbedded(dir, { tcp: true })
  const again = postgres({
    host: '127.0.0.1',
    port: second.port!,
    username: 'postgres',
    database: 'postgres',
    max: 1,
    onnotice: () => {},
  })
  try {
    assert.deepEqual(
      (await again`select n from kept`).map((r) => r.n),
      [7],
    )
  } finally {
    await again.end()
    await second.stop()
  }
})
