// Test tier: faults: it starts processes of its own (test/run.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { openDatabase } from '../src/db/client.ts'
import { lockDataDir } from '../src/db/data-dir-lock.ts'
import { migrate } from '../src/db/migrate.ts'
import { startedDataDir } from './support/data-dir.ts'

// `npm run backup` and `npm run restore` for the embedded database (docs/operations.md). These
// use data directories of their own, whatever database the suite runs on.

const run = promisify(execFile)

async function script(command: 'backup' | 'restore', dataDir: string, file: string) {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', command, '--', file], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

test('a backup restored into a fresh data directory holds every row, the schema and its migrations', async () => {
  const source = await startedDataDir('backup-src-')
  const db = await openDatabase({ databaseUrl: null, dataDir: source })
  await db.sql`create table kept (n int primary key, text text)`
  await db.sql`insert into kept select n, 'row ' || n from generate_series(1, 500) n`
  const migrations = (await db.sql`select name from schema_migrations order by name`).map((r) => r.name)
  await db.close()

  const file = join(await mkdtemp(join(tmpdir(), 'backup-file-')), 'data.tar.gz')
  const backup = await script('backup', source, file)
  assert.equal(backup.code, 0, backup.stderr)
  const target = await mkdtemp(join(tmpdir(), 'backup-dst-'))
  const restore = await script('restore', target, file)
  assert.equal(restore.code, 0, restore.stderr)

  const restored = await openDatabase({ databaseUrl: null, dataDir: target })
  try {
    const [row] = await restored.sql`select count(*)::int as n, sum(n)::int as total, max(text) as last from kept`
    assert.deepEqual({ ...row }, { n: 500, total: 125250, last: 'row 99' })
    assert.deepEqual((await restored.sql`select name from schema_migrations order by name`).map((r) => r.name), migrations)
    assert.deepEqual(await migrate(restored.sql), [])
  } finally {
    await restored.close()
  }
})

test('backup refuses while a process holds the data directory, and restore refuses a directory that holds a database', async () => {
  const dir = await startedDataDir('backup-busy-')
  const db = await openDatabase({ databaseUrl: null, dataDir: dir })
  await db.sql`select 1`
  const file = join(dir, 'never.tar.gz')
  try {
    const busy = await script('backup', dir, file)
    assert.equal(busy.code, 1)
    assert.match(busy.stderr, new RegExp(`backup: the data directory ${resolve(dir)} is in use by another process \\(pid ${process.pid}\\)`))
  } finally {
    await db.close()
  }
  const taken = await script('restore', dir, file)
  assert.equal(taken.code, 1)
  assert.match(taken.stderr, /already holds a database: move it away/)
  // The lock was released by the refusing restore.
  await (await lockDataDir(dir)).release()
})
