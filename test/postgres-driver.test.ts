// Test tier: faults: it breaks connections or servers and waits out the results (test/run.ts).
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { connect, isDatabaseUnavailable } from '../src/db/client.ts'
import { startTcpProxy } from './support/tcp-proxy.ts'

// The `postgres` driver 3.4.9 throws from a setImmediate callback when a connection is written
// to after its socket closed, which ends the whole process (porsager/postgres#1154, #1208).
// patches/postgres+3.4.9.patch, applied by `npm install` (postinstall: patch-package), guards it.

const run = promisify(execFile)
const FIXTURE = 'test/fixtures/reserved-after-cut.ts'
const DRIVER = 'node_modules/postgres'

async function useAfterCut(
  driverDir: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [
      '--import',
      'tsx',
      FIXTURE,
      driverDir,
      process.env.DATABASE_URL!,
    ])
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

test('a connection the database dropped fails its next query with CONNECTION_CLOSED, and the process lives on', async () => {
  const result = await useAfterCut(DRIVER)
  assert.equal(result.stdout.trim(), 'rejected CONNECTION_CLOSED', result.stderr)
  assert.equal(result.code, 0)
})

test('without the patch the same use of the driver ends the process (the defect the patch carries a fix for)', async () => {
  const unpatched = join(await mkdtemp(join(tmpdir(), 'postgres-unpatched-')), 'postgres')
  await cp(DRIVER, unpatched, { recursive: true })
  const patch = await readFile('patches/postgres+3.4.9.patch', 'utf8')
  const reverse = run('patch', ['-R', '-p3', '-d', unpatched])
  reverse.child.stdin!.end(patch)
  await reverse
  const result = await useAfterCut(unpatched)
  assert.notEqual(result.code, 0)
  assert.match(result.stderr, /TypeError: Cannot read properties of null \(reading 'write'\)/)
})

// What the patch adds for a database that comes back (docs/operations.md, "The `postgres`
// driver patch"): the pool must hand out only connections that work once the server answers
// again. Each test talks to the test database through a TCP proxy that it cuts or silences.

/** A pool of `max` connections through a fresh proxy to the test database. */
async function pooled(t: TestContext, max: number, options: { answerTimeout?: number } = {}) {
  const target = new URL(process.env.DATABASE_URL!)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const url = new URL(target.href)
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  const sql = connect(url.href, { max, ...options })
  t.after(async () => {
    await sql.end({ timeout: 1 })
    await proxy.close()
  })
  return { sql, proxy }
}

/** `promise`, or a rejection naming `what` after `ms`: a query the pool lost would wait for ever. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout
  const late = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  )
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

const codeOf = (err: unknown) => (err as { code?: string }).code

test('a reserved connection the database dropped, once released, leaves the pool answering (porsager/postgres#1199)', async (t) => {
  const { sql, proxy } = await pooled(t, 1)
  const reserved = await sql.reserve()
  await reserved`select 1`
  proxy.cut()
  await assert.rejects(reserved`select 2`, (err) => codeOf(err) === 'CONNECTION_CLOSED')
  reserved.release()
  // The pool's one connection reconnects; before, release() put the dead one back in the pool
  // and every query on it failed at once, for the life of the process.
  for (let i = 0; i < 5; i++)
    assert.equal((await within(5000, `query ${i}`, sql`select ${i}::int as n`))[0]!.n, i)
})

test('a reserved connection used after the database dropped it is refused, and the connection it had serves others', async (t) => {
  const { sql, proxy } = await pooled(t, 1)
  const reserved = await sql.reserve()
  await reserved`select 1`
  proxy.cut()
  await assert.rejects(reserved`select 2`, (err) => codeOf(err) === 'CONNECTION_CLOSED')
  // The pool reconnects its connection for another query while the old handle is still held.
  const other = sql`select 3::int as n`
  await assert.rejects(reserved`select 4`, (err) => codeOf(err) === 'CONNECTION_CLOSED')
  assert.equal((await within(5000, 'the other query', other))[0]!.n, 3)
  reserved.release()
  assert.equal((await within(5000, 'a query after release', sql`select 5::int as n`))[0]!.n, 5)
})

test('a reserve waiting for the connection the database dropped gets the reconnected one (porsager/postgres#1195)', async (t) => {
  const { sql, proxy } = await pooled(t, 1)
  // The pool's connection made first, so that the sleep below is on the wire when the cut comes
  // (a query still waiting for its connection to open is sent again on the next one instead).
  await sql`select 1`
  // Long enough to be still running when the connection is cut, however late the timer fires.
  const busy = sql`select pg_sleep(2)`.catch((err: unknown) => err)
  await new Promise((resolve) => setTimeout(resolve, 50))
  const waiting = sql.reserve()
  proxy.cut()
  const reserved = await within(5000, 'the waiting reserve', waiting)
  assert.ok(isDatabaseUnavailable(await busy))
  assert.equal((await reserved`select 1::int as n`)[0]!.n, 1)
  reserved.release()
  assert.equal((await within(5000, 'a query after release', sql`select 2::int as n`))[0]!.n, 2)
})

test('a reserve refused while the database is down leaves no connection behind when it is back', async (t) => {
  const { sql, proxy } = await pooled(t, 1)
  await sql`select 1`
  await proxy.down()
  // The pool has heard of the cut.
  await new Promise((resolve) => setTimeout(resolve, 100))
  await assert.rejects(sql.reserve(), (err) => codeOf(err) === 'ECONNREFUSED')
  await proxy.up()
  // Before, the refused reserve stayed queued: the next connection was handed to it, nobody
  // released it, and the pool of one answered nothing again.
  assert.equal((await within(5000, 'a query once back', sql`select 2::int as n`))[0]!.n, 2)
  const reserved = await within(5000, 'a reserve once back', sql.reserve())
  reserved.release()
})

test('sql.begin whose connection the database dropped rolls back on nothing and leaves the pool answering', async (t) => {
  const { sql, proxy } = await pooled(t, 1)
  await sql`select 1`
  await assert.rejects(
    sql.begin(async (tx) => {
      await tx`select 1`
      proxy.cut()
      await tx`select 2`
    }),
    (err) => codeOf(err) === 'CONNECTION_CLOSED',
  )
  for (let i = 0; i < 3; i++)
    assert.equal((await within(5000, `query ${i}`, sql`select ${i}::int as n`))[0]!.n, i)
})

test('queries on a connection that went silent fail after answer_timeout, and the pool connects again', async (t) => {
  const { sql, proxy } = await pooled(t, 2, { answerTimeout: 1 })
  await Promise.all([sql`select 1`, sql`select 2`])
  proxy.silence()
  const started = performance.now()
  const lost = await Promise.all(
    [sql`select 3`, sql`select 4`, sql`select 5`].map((q) => q.then(() => 'answered', codeOf)),
  )
  const waited = performance.now() - started
  assert.deepEqual(lost, ['CONNECTION_CLOSED', 'CONNECTION_CLOSED', 'CONNECTION_CLOSED'])
  assert.ok(waited >= 900 && waited < 4000, `failed after ${Math.round(waited)} ms`)
  assert.equal((await within(5000, 'a query after', sql`select 6::int as n`))[0]!.n, 6)
})

test('a statement that sends nothing for longer than answer_timeout is cut as well: the deadline must stay above every statement', async (t) => {
  const { sql } = await pooled(t, 1, { answerTimeout: 1 })
  // A statement answers nothing until it is done, so the deadline cannot tell a slow one from a
  // dead peer: the services' deadline (src/db/client.ts) is far above any statement of theirs.
  assert.equal(await sql`select pg_sleep(1.5)`.then(() => 'answered', codeOf), 'CONNECTION_CLOSED')
  assert.equal((await within(5000, 'a query after', sql`select 1::int as n`))[0]!.n, 1)
})
