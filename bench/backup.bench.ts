// How long an online backup of the embedded database holds writes (docs/operations.md, "Backups and
// restores"; docs/performance.md, "Online backups").
// Run: tsx bench/backup.bench.ts   (BACKUP_BENCH_MB sizes the data directory, 200 unless told;
// the embedded database only: PostgreSQL's backups are pg_dump's)
//
// 8 writers insert one row each at a time, as fast as they can, first for a baseline of
// BASELINE_SECONDS without a backup, then while a backup is taken through the data directory's
// lock, as `npm run backup` asks for one. Each write's time is measured from its send to its
// answer; the figures are the slowest write and the 99th percentile in each phase, and how long
// the backup took.

import { createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { openDatabase } from '../src/db/client.ts'
import { requestBackup } from '../src/db/data-dir-lock.ts'

if (process.env.DATABASE_URL) {
  console.log('backup bench: the embedded database only (unset DATABASE_URL)')
  process.exit(0)
}

const MB = Number(process.env.BACKUP_BENCH_MB ?? 200)
const WRITERS = 8
const BASELINE_SECONDS = 5

const dir = await mkdtemp(join(tmpdir(), 'backup-bench-'))
const db = await openDatabase({ databaseUrl: null, dataDir: dir }, { max: WRITERS + 1 })
const { sql } = db
try {
  await sql`create table bulk (n bigint primary key, body text)`
  await sql`create table writes (writer int, seq int, body text, primary key (writer, seq))`
  // Rows of about 1 kB whose text compresses about as ordinary text does (hex digits).
  const rowsPerBatch = 20_000
  const filling = performance.now()
  for (let n = 0; (await dirBytes()) < MB * 1e6; n += rowsPerBatch)
    await sql`insert into bulk select n, repeat(md5(n::text || random()::text), 32) from generate_series(${n + 1}::bigint, ${n + rowsPerBatch}::bigint) n`
  await sql`checkpoint`
  console.log(
    `data directory: ${((await dirBytes()) / 1e6) | 0} MB, filled in ${((performance.now() - filling) / 1000).toFixed(0)} s`,
  )

  const baseline = await writing(async () => {
    await new Promise((r) => setTimeout(r, BASELINE_SECONDS * 1000))
  })
  report('no backup (baseline)', baseline)
  const file = join(dir, 'bench.tar.gz')
  let backupMs = 0
  const during = await writing(async () => {
    const started = performance.now()
    const stream = await requestBackup(dir)
    if (stream === null) throw new Error('the lock served no backup')
    await pipeline(stream, createWriteStream(file))
    backupMs = performance.now() - started
  })
  report('during the backup', during)
  console.log(
    `backup: ${(backupMs / 1000).toFixed(1)} s, ${((await stat(file)).size / 1e6).toFixed(0)} MB compressed`,
  )
} finally {
  await db.close()
  await rm(dir, { recursive: true, force: true })
}

/** The data directory's size in bytes (the database's relations, as PostgreSQL counts them). */
async function dirBytes(): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select pg_database_size(current_database())::bigint as n`
  return Number(row!.n)
}

/** Runs the 8 writers while `phase` runs: each write's time in milliseconds. */
async function writing(phase: () => Promise<void>): Promise<number[]> {
  const times: number[] = []
  let stop = false
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let seq = 1; !stop; seq++) {
      const started = performance.now()
      await sql`insert into writes values (${w}, ${seq}, ${'x'.repeat(200)}) on conflict do nothing`
      times.push(performance.now() - started)
    }
  })
  try {
    await phase()
  } finally {
    stop = true
    await Promise.all(writers)
  }
  await sql`truncate writes`
  return times
}

function report(what: string, times: number[]): void {
  const sorted = [...times].sort((a, b) => a - b)
  const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? 0
  console.log(
    `${what}: ${times.length} writes, p99 ${p99.toFixed(1)} ms, slowest ${(sorted.at(-1) ?? 0).toFixed(0)} ms`,
  )
}
