// Test tier: faults: it starts processes of its own (test/run.ts).
// Test database: embedded: it starts its services on data directories of its own (test/run.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { openDatabase } from '../src/db/client.ts'
import { migrate } from '../src/db/migrate.ts'
import { requestBackup } from '../src/db/data-dir-lock.ts'
import { startedDataDir } from './support/data-dir.ts'
import { CHUNK_BYTES, fileTable } from '../src/tickets/store/files.ts'

// `npm run backup` and `npm run restore` for the embedded database (docs/operations.md). These
// use data directories of their own, whatever database the suite runs on.

const run = promisify(execFile)

async function script(
  command: 'backup' | 'restore',
  dataDir: string,
  file: string,
  ...more: string[]
) {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', command, '--', file, ...more], {
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

test('a backup taken while 8 writers write, restored into a new data directory, holds every write acknowledged before it', async () => {
  const source = await startedDataDir('backup-live-')
  const db = await openDatabase({ databaseUrl: null, dataDir: source }, { max: 9 })
  const file = join(await mkdtemp(join(tmpdir(), 'backup-file-')), 'live.tar.gz')
  const WRITERS = 8
  const acked = Array.from({ length: WRITERS }, () => 0)
  let stop = false
  let slowestMs = 0
  try {
    await db.sql`create table writes (writer int, seq int, body text, primary key (writer, seq))`
    // Some bulk, so that the copy takes a while and the writers write during it.
    await db.sql`create table bulk (n int primary key, body text)`
    await db.sql`insert into bulk select n, repeat(md5(n::text), 30) from generate_series(1, 20000) n`
    const writers = acked.map(async (_, w) => {
      for (let seq = 1; !stop; seq++) {
        const started = performance.now()
        await db.sql`insert into writes values (${w}, ${seq}, ${'x'.repeat(200)})`
        slowestMs = Math.max(slowestMs, performance.now() - started)
        acked[w] = seq
      }
    })
    while (acked.some((n) => n < 5)) await new Promise((r) => setTimeout(r, 10))
    const before = [...acked]
    slowestMs = 0
    const backup = await script('backup', source, file)
    const after = [...acked]
    stop = true
    await Promise.all(writers)
    assert.equal(backup.code, 0, backup.stderr)
    assert.match(backup.stdout, /while the service ran/)
    const during = after.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0)
    assert.ok(during > 0, 'the writers wrote while the backup ran')
    console.log(
      `# ${during} writes during the backup; the slowest write took ${slowestMs.toFixed(0)} ms`,
    )

    const target = await mkdtemp(join(tmpdir(), 'backup-live-dst-'))
    const restore = await script('restore', target, file)
    assert.equal(restore.code, 0, restore.stderr)
    const restored = await openDatabase({ databaseUrl: null, dataDir: target })
    try {
      const rows = await restored.sql<{ writer: number; n: number; last: number }[]>`
        select writer, count(*)::int as n, max(seq) as last from writes group by writer order by writer`
      assert.equal(rows.length, WRITERS)
      for (const row of rows) {
        assert.equal(
          row.n,
          row.last,
          `writer ${row.writer}: its writes 1 to ${row.last}, none missing`,
        )
        assert.ok(
          row.last >= before[row.writer]!,
          `writer ${row.writer}: every write acknowledged before the backup`,
        )
        assert.ok(row.last <= after[row.writer]!)
      }
      assert.equal((await restored.sql`select count(*)::int as n from bulk`)[0]!.n, 20000)
    } finally {
      await restored.close()
    }
  } finally {
    stop = true
    await db.close()
  }
})

test('a restore refuses while the service runs, says what it would replace, and replaces it only with --yes, keeping it beside', async () => {
  const dir = await startedDataDir('restore-busy-')
  const db = await openDatabase({ databaseUrl: null, dataDir: dir })
  await db.sql`create table marker (what text)`
  await db.sql`insert into marker values ('before the backup')`
  const file = join(await mkdtemp(join(tmpdir(), 'backup-file-')), 'marker.tar.gz')
  try {
    assert.equal((await script('backup', dir, file)).code, 0)
    await db.sql`update marker set what = 'after the backup'`
    const busy = await script('restore', dir, file)
    assert.equal(busy.code, 1)
    assert.match(
      busy.stderr,
      new RegExp(
        `restore: the data directory ${resolve(dir)} is in use by another process \\(pid ${process.pid}\\).*stop the service first`,
      ),
    )
  } finally {
    await db.close()
  }
  const asked = await script('restore', dir, file)
  assert.equal(asked.code, 1)
  assert.match(
    asked.stdout,
    new RegExp(
      `restore: this replaces the database in ${resolve(dir)}/pglite \\([0-9.]+ MB, last written [0-9T:.-]+Z\\) with the backup ${file} \\(taken `,
    ),
  )
  assert.match(asked.stderr, /nothing replaced: run again with --yes/)
  const replaced = await script('restore', dir, file, '--yes')
  assert.equal(replaced.code, 0, replaced.stderr)
  const kept = (await readdir(dir)).filter((n) => n.startsWith('pglite.replaced-'))
  assert.equal(kept.length, 1, 'the replaced database is kept beside')
  const back = await openDatabase({ databaseUrl: null, dataDir: dir })
  try {
    assert.equal((await back.sql`select what from marker`)[0]!.what, 'before the backup')
  } finally {
    await back.close()
  }
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
    for await (const chunk of again.chunks(served.contentId)) pieces.push(chunk)
    assert.equal(Buffer.compare(Buffer.concat(pieces), bytes), 0)
  } finally {
    await restored.close()
  }
})

test('a backup whose reader goes away midway ends at the service: the next one works, and no slot keeps the log', async () => {
  const dir = await startedDataDir('backup-cut-')
  const db = await openDatabase({ databaseUrl: null, dataDir: dir })
  try {
    await db.sql`create table bulk (n int primary key, body text)`
    await db.sql`insert into bulk select n, repeat(md5(n::text), 30) from generate_series(1, 20000) n`
    const stream = await requestBackup(dir)
    assert.ok(stream, 'the service serves backups')
    // Read the first bytes, then hang up (leaving the loop destroys the stream).
    for await (const chunk of stream) {
      assert.ok((chunk as Buffer).length > 0)
      break
    }
    const file = join(await mkdtemp(join(tmpdir(), 'backup-file-')), 'after-cut.tar.gz')
    let again = await script('backup', dir, file)
    // The cut backup may still be ending ("a backup is already running"): asked again, it is over.
    for (let i = 0; i < 50 && again.code !== 0 && /already running/.test(again.stderr); i++) {
      await new Promise((r) => setTimeout(r, 200))
      again = await script('backup', dir, file)
    }
    assert.equal(again.code, 0, again.stderr)
    assert.deepEqual([...(await db.sql`select slot_name from pg_replication_slots`)], [])
  } finally {
    await db.close()
  }
})
