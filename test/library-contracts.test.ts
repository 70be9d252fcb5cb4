/**
 * What our workarounds of libraries' internals rely on, checked so that an upgrade that changes
 * it fails here rather than in production:
 *
 * - patches/postgres+<version>.patch: the `postgres` driver pinned to exactly that version
 *   (its behaviour: test/postgres-driver.test.ts);
 * - src/db/transaction.ts: postgres.js writes a query made on a reserved connection together
 *   with the ones made in the same turn, so `begin` travels with the first statement;
 * - src/db/client.ts's plannedEachTime(): the query's `options.prepare` (checked by
 *   test/tickets/search.test.ts, "a search for words is sent unprepared").
 */
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { connect as tcpConnect, type Socket } from 'node:net'
import { test } from 'node:test'
import postgres from 'postgres'
import { transaction } from '../src/db/transaction.ts'

test('the postgres driver is pinned to exactly the version its patch is for, and that version is installed', async () => {
  const patches = (await readdir('patches')).filter((f) => f.startsWith('postgres+'))
  assert.equal(patches.length, 1)
  const version = /^postgres\+(.+)\.patch$/.exec(patches[0]!)![1]
  const pkg = JSON.parse(await readFile('package.json', 'utf8')) as {
    dependencies: Record<string, string>
  }
  assert.equal(pkg.dependencies.postgres, version, 'package.json names the exact version, no range')
  const installed = JSON.parse(await readFile('node_modules/postgres/package.json', 'utf8')) as {
    version: string
  }
  assert.equal(installed.version, version)
})

test('transaction() sends begin in the same write as its first statement, and commit in the same write as its last', async () => {
  const writes: string[] = []
  const url = new URL(process.env.DATABASE_URL!)
  // `socket` is in the driver's README but not in its types.
  const options = {
    max: 1,
    onnotice: () => {},
    // The driver's documented hook for a socket of our own: this one records what is written.
    socket: () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = tcpConnect(Number(url.port || 5432), url.hostname)
        const write = socket.write.bind(socket) as (
          chunk: Uint8Array,
          ...rest: unknown[]
        ) => boolean
        socket.write = (chunk: Uint8Array, ...rest: unknown[]) => {
          writes.push(Buffer.from(chunk).toString('latin1'))
          return write(chunk, ...rest)
        }
        socket.once('connect', () => resolve(socket)).once('error', reject)
      }),
  }
  const sql = postgres(url.href, options as postgres.Options<Record<string, never>>)
  try {
    await sql`select 1`
    const value = await transaction(
      sql as never,
      async (tx) => (await tx`select 4242::int as n`)[0]!.n as number,
      (tx) => tx`select 4343::int as n`,
    )
    assert.equal(value, 4242)
    const first = writes.find((w) => w.includes('select 4242'))
    assert.ok(first?.includes('begin'), 'begin and the first statement in one write')
    const last = writes.find((w) => w.includes('select 4343'))
    assert.ok(last?.includes('commit'), 'the last statement and commit in one write')
  } finally {
    await sql.end({ timeout: 5 })
  }
})
