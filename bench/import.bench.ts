/**
 * The importer (issue 41): `npm run import-tickets` as a migrating team runs it, on files of
 * IMPORT_BENCH_SIZES tickets (20,000 and 80,000 unless set) with one comment each
 * (test/support/import-file.ts), each into a project of its own. Budgets: at least 2,000 tickets
 * a second; the largest file in under 4.5 times the time of one a quarter its size; the import
 * process's peak resident memory (VmHWM) under 300 MB whatever the file's size.
 *
 * The baseline, in the same run and right before each import: the database alone writing the
 * same rows (as many tickets, one comment each, in one transaction, `insert ... select` on the
 * server, with every index and trigger of the real tables), rolled back. The import's time over
 * the baseline's is what the importer adds to what the server must do anyway, a figure the
 * machine's load moves far less than the times.
 *
 * Runs on DATABASE_URL (in a schema of its own), else on an embedded database in a process of its
 * own reached over TCP (as the import script would reach a server).
 */
import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { migrate } from '../src/db/migrate.ts'
import { writeImportFile } from '../test/support/import-file.ts'
import { fillBase, userId } from './scale/fill.ts'
import { budgetVerdict, fmt, serviceDatabase } from './support.ts'

const SIZES = (process.env.IMPORT_BENCH_SIZES ?? '20000,80000').split(',').map(Number)
const RATE = 2_000
const GROWTH = 4.5
const MEMORY_MB = 300
const ROOT = fileURLToPath(new URL('..', import.meta.url))

const database = await serviceDatabase('import', { answerTimeout: null })
const { sql } = database
const dir = await mkdtemp(join(tmpdir(), 'import-bench-'))
const load = loadavg()[0]!

class RolledBack extends Error {}

/** The database alone: `n` tickets and a comment each in one transaction, rolled back; ms. */
async function baseline(n: number): Promise<number> {
  const t = performance.now()
  await sql
    .begin(async (tx) => {
      await tx`insert into projects (id, slug, title, created) values ('pbaseline001', 'baseline', 'Baseline', 1)`
      await tx`
        insert into tickets (project_id, number, old_number, subject, summary, state, author_id, created, updated)
        select 'pbaseline001', i, 1900000000 + i, 'Imported ticket ' || i || ' about something that needs doing',
          'Steps to see it, what was expected, what was seen. Steps to',
          (array['open', 'doing', 'review', 'done', 'dropped'])[1 + i % 5], ${userId(1)}, 1500000000000 + i, 1500000000000 + i
        from generate_series(1, ${n}::int) i`
      await tx`
        insert into ticket_events (ticket_id, kind, user_id, by, data, created)
        select t.id, 'comment', null, 'Old Person', jsonb_build_object('text', 'Comment 0 on ticket ' || t.number), t.created
        from tickets t where t.project_id = 'pbaseline001'`
      throw new RolledBack()
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err
    })
  return performance.now() - t
}

/** `npm run import-tickets` on `path` in a process of its own: its time (ms) and peak resident memory (MB). */
async function importScript(path: string): Promise<{ ms: number; mb: number }> {
  const t = performance.now()
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/import-tickets.ts'), path],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  let peak = 0
  const sample = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
      if (hwm) peak = Math.max(peak, Number(hwm[1]) / 1024)
    } catch {
      // The process has ended.
    }
  }, 100)
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  clearInterval(sample)
  if (code !== 0 || !/tickets imported/.test(output))
    throw new Error(`the import exited with ${code}: ${output.slice(-500)}`)
  return { ms: performance.now() - t, mb: peak }
}

try {
  await migrate(sql)
  await fillBase(sql)
  console.log(
    `import bench (${database.kind}): files of ${SIZES.map((n) => fmt(n)).join(' and ')} tickets, one comment each; load average ${fmt(load, 1)} on ${cpus().length} cores`,
  )
  const results: { n: number; ms: number; mb: number; base: number }[] = []
  let first = 1_000_000
  for (const n of SIZES) {
    const path = join(dir, `import-${n}.json`)
    await writeImportFile(path, {
      slug: `import-${n}`,
      admin: userId(1),
      tickets: n,
      firstNumber: first,
    })
    first += n
    const base = await baseline(n)
    const run = await importScript(path)
    results.push({ n, ...run, base })
    const rate = n / (run.ms / 1000)
    console.log(
      `  ${fmt(n).padStart(7)} tickets (${fmt(statSync(path).size / 1024 / 1024, 1)} MB of file): ${fmt(run.ms / 1000, 1)} s, ${fmt(rate)} tickets/s ${budgetVerdict(rate, RATE, 'at least').text}; peak resident ${fmt(run.mb)} MB ${budgetVerdict(run.mb, MEMORY_MB, 'at most', ' MB').text}; the database alone ${fmt(base / 1000, 1)} s (import / database alone ${fmt(run.ms / base, 2)})`,
    )
    await sql`delete from projects where slug = ${`import-${n}`}`
    await rm(path, { force: true })
  }
  const small = results.find((r) => results.some((s) => s.n === r.n * 4))
  if (small) {
    const large = results.find((r) => r.n === small.n * 4)!
    const growth = large.ms / small.ms
    console.log(
      `  ${fmt(large.n)} tickets over ${fmt(small.n)}: ${fmt(growth, 2)} times the time ${budgetVerdict(growth, GROWTH, 'at most').text} (the database alone: ${fmt(large.base / small.base, 2)})`,
    )
  }
  console.log(`  load average at the end: ${fmt(loadavg()[0]!, 1)}`)
} finally {
  await rm(dir, { recursive: true, force: true })
  await database.close()
}
