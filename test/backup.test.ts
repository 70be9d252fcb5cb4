// Test tier: faults: it starts processes of its own (test/run.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { openDatabase } from '../src/db/client.ts'
import { lockDataDir } from '../src/db/data-dir-lock.ts'
import { migrate } from '../src/db/migrate.ts'
import { startedDataDir } from './support/data-dir.ts'
import { CHUNK_BYTES, fileTable } from '../src/tickets/store/files.ts'

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
  const migrations = (await db.sql`select name from schema_migrations order by name`).map(
    (r) => r.name,
  )
  await db.close()

  const file = join(await mkdtemp(join(tmpdir(), 'backup-file-')), 'data.tar.gz')
  const backup = await script('backup', source, file)
  assert.equal(backup.code, 0, backup.stderr)
  const target = await mkdtemp(join(tmpdir(), 'backup-dst-'))
  const restore = await script('restore', target, file)
  assert.equal(restore.code, 0, restore.stderr)

  const restored = await openDatabase({ databaseUrl: null, dataDir: target })
  try {
    const [row] =
      await restored.sql`select count(*)::int as n, sum(n)::int as total, max(text) as last from kept`
    assert.deepEqual({ ...row }, { n: 500, total: 125250, last: 'row 99' })
    assert.deepEqual(
      (await restored.sql`select name from schema_migrations order by name`).map((r) => r.name),
      migrations,
    )
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
    assert.match(
      busy.stderr,
      new RegExp(
        `backup: the data directory ${resolve(dir)} is in use by another process \\(pid ${process.pid}\\)`,
      ),
    )
  } finally {
    await db.close()
  }
  const taken = await script('restore', dir, file)
  assert.equal(taken.code, 1)
  assert.match(taken.stderr, /already holds a database: move it away/)
  // The lock was released by the refusing restore.
  await (await lockDataDir(dir)).release()
})

test('a backup carries attached files: restored, their bytes come back whole', async () => {
  const source = await startedDataDir('backup-files-')
  const db = await openDatabase({ databaseUrl: null, dataDir: source })
  const files = fileTable(db.sql)
  const bytes = Buffer.alloc(2 * CHUNK_BYTES + 123)
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 256
  await db.sql`insert into users (id, idp_id, name, created) values ('backupuser01', 'idp-b', 'Bea', 1)`
  await db.sql`insert into projects (id, slug, title, created) values ('backupproj01', 'kept', 'Kept', 1)`
  const contentId = await files.begin('backupproj01', 1)
  for (let seq = 0; seq * CHUNK_BYTES < bytes.length; seq++)
    await files.addChunk(contentId, seq, bytes.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES))
  const actor = { user: { id: 'backupuser01', name: 'Bea' }, app: null, now: 1 }
  const done = await files.finish(actor, {
    projectId: 'backupproj01',
    contentId,
    sha256: createHash('sha256').update(bytes).digest(),
    size: bytes.length,
    name: 'kept.bin',
    type: 'application/octet-stream',
    image: null,
    projectMax: 1e9,
  })
  assert.ok(done.ok)
  await db.close()

  const file = join(await mkdtemp(join(tmpdir(), 'backup-file-')), 'data.tar.gz')
  assert.equal((await script('backup', source, file)).code, 0)
  const target = await mkdtemp(join(tmpdir(), 'backup-dst-'))
  assert.equal((await script('restore', target, file)).code, 0)

  const restored = await openDatabase({ databaseUrl: null, dataDir: target })
  try {
    const again = fileTable(restored.sql)
    const served = await again.served(done.file.id)
    assert.equal(served?.name, 'kept.bin')
    const pieces: Uint8Array[] = []
    for await (const chunk of again.chunks(served!.contentId)) pieces.push(chunk)
    assert.equal(Buffer.compare(Buffer.concat(pieces), bytes), 0)
  } finally {
    await restored.close()
  }
})
