/**
 * `npm test`: runs every `test/**\/*.test.ts` with node:test, in processes of its own. A process
 * of the unit tier runs up to 12 of its files one after the other (`TEST_FILES_PER_PROCESS`),
 * each in a suite of its own (test/support/batch.ts); a file of the other tiers, or one that
 * runs alone, has a process to itself. `TEST_JOBS` processes run at a time (default 2), and one
 * more that takes only the unit tier's files: a process of the unit tier keeps about one core
 * busy at most, its files and its database answering each other in turn (two kept 1.7 of this
 * machine's 2 cores busy), and beside the browser and faults tiers, which wait much of their
 * time, the unit files fill the gaps. The test files are bundled once for the run (esbuild,
 * the project's modules in chunks they share, see {@link bundleTests}) and each process runs
 * the bundles with plain node: loading some 300 modules one by one through a loader took a file
 * of the tickets service about 0.5 s more CPU, and starting node and loading the bundles again
 * for every file about two thirds of a typical unit file's CPU.
 *
 * With `DATABASE_URL` unset, it first starts throw-away embedded databases (PGlite, in memory),
 * one per process running at a time, each in a process of its own on a local port, so the suite
 * runs on the embedded database; with `DATABASE_URL` set, on that server. Each test file works
 * in a schema of its own (test/support/db.ts). An embedded database is one session whose
 * `search_path` is shared by all its connections, so no two files use one at the same time.
 *
 * Tiers, chosen by `--tier=unit|browser|faults` (`npm run test:unit`, `test:browser`,
 * `test:faults`); `npm test` runs all three:
 * - browser: files named `*-browser.test.ts` (they drive Chromium);
 * - faults: files with a line `// Test tier: faults` among their first lines (they start
 *   processes of their own, cut connections or wait out timeouts);
 * - unit: every other file (no browser, no second process, no fault).
 *
 * A file with a line `// Test alone` among its first lines runs while no other file runs (it
 * times how soon something happens, say); with `// Test alone on PostgreSQL`, only on the server
 * of `DATABASE_URL`, which the files running at a time share (a vacuum that must reclaim rows,
 * say): each embedded database has one file at a time.
 *
 * Which files run on which database: with `DATABASE_URL` unset, every file. With it set, the
 * files whose outcome can depend on the database server: not the browser tier, which drives the
 * pages and whose services' SQL the unit tier runs on both databases already, and not a file
 * with a line `// Test database: embedded` among its first lines, which starts its services on
 * embedded data directories of its own whatever `DATABASE_URL` says (a second pass would run the
 * very same thing). The runner names what it left out; `TEST_EVERY_FILE=1`, or naming the files,
 * runs them on that server too.
 *
 * A file that runs longer than `TEST_FILE_LIMIT` seconds (by default 180 for the unit tier,
 * whose slowest file takes under a minute on a loaded machine, and 600 for the others) is killed
 * with its process and fails with its name and what it printed, so a hang costs minutes, not the
 * whole CI run; a process that does not exit within that time of its last file (something left
 * open) is killed too, and its files fail. The files its process never started run in another.
 *
 * Arguments are passed to node's test runner; file arguments replace the default list:
 * `npm test -- test/router.test.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { build, stop } from 'esbuild'
import { connect } from '../src/db/client.ts'
import { nodeBundle } from '../scripts/node-bundle.mjs'

const TIERS = ['unit', 'browser', 'faults'] as const
type Tier = (typeof TIERS)[number]

const args = process.argv.slice(2)
const tierArg = args.find((a) => a.startsWith('--tier='))?.slice('--tier='.length)
if (tierArg !== undefined && !TIERS.includes(tierArg as Tier))
  throw new Error(`--tier must be one of ${TIERS.join(', ')}`)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
// As the project's root names them (`test/x.test.ts`), however they were written.
const files = args.filter((a) => a.endsWith('.ts')).map((a) => relative(ROOT, resolve(a)))
const flags = args.filter((a) => !a.endsWith('.ts') && !a.startsWith('--tier='))
if (!flags.some((f) => f.startsWith('--test-reporter'))) flags.push('--test-reporter=spec')
const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? 2))
const perProcess = Math.max(1, Number(process.env.TEST_FILES_PER_PROCESS ?? 12))
/** How long a file of `tier` may run before it is killed (see above). */
const limitMsOf = (tier: Tier | undefined) =>
  Number(process.env.TEST_FILE_LIMIT ?? (tier === 'unit' ? 180 : 600)) * 1000

/** Whether a test file needs the database server to itself, or the machine (see above). */
async function runsAlone(file: string): Promise<boolean> {
  return (await readFile(file, 'utf8'))
    .split('\n', 30)
    .some(
      (line) =>
        /^\/\/ Test alone\b/.test(line) &&
        (process.env.DATABASE_URL !== undefined || !/^\/\/ Test alone on PostgreSQL\b/.test(line)),
    )
}

/** Whether a test file starts its services on embedded databases only (see above). */
async function embeddedOnly(file: string): Promise<boolean> {
  return (await readFile(file, 'utf8'))
    .split('\n', 30)
    .some((line) => /^\/\/ Test database: embedded\b/.test(line))
}

/** The tier a test file is in: by its name, or by the line it declares (see above). */
async function tierOf(file: string): Promise<Tier> {
  if (file.endsWith('-browser.test.ts')) return 'browser'
  const head = (await readFile(file, 'utf8')).split('\n', 30)
  return head.some((line) => /^\/\/ Test tier: faults\b/.test(line)) ? 'faults' : 'unit'
}

const named = files.length > 0
if (!named) {
  const all = await readdir(new URL('.', import.meta.url), { recursive: true })
  files.push(
    ...all
      .filter((f) => f.endsWith('.test.ts'))
      .sort()
      .map((f) => `test/${f}`),
  )
}
const tiers = new Map(await Promise.all(files.map(async (f) => [f, await tierOf(f)] as const)))
const alone = new Set(
  (await Promise.all(files.map(async (f) => ((await runsAlone(f)) ? f : null)))).filter(
    (f) => f !== null,
  ),
)
// On a server of DATABASE_URL, the files this pass would add nothing to stay out (see above).
const leftOut = new Set(
  process.env.DATABASE_URL && !named && process.env.TEST_EVERY_FILE !== '1'
    ? (
        await Promise.all(
          files.map(async (f) =>
            tiers.get(f) === 'browser' || (await embeddedOnly(f)) ? f : null,
          ),
        )
      ).filter((f) => f !== null)
    : [],
)
// The slow tiers first, and in a tier the larger files first (the size of a file says roughly
// how long it runs), so that the many short files fill the gaps at the end and no long one is
// left to run alone.
const order: Tier[] = ['faults', 'browser', 'unit']
const sizes = new Map(files.map((f) => [f, statSync(f).size]))
const queue = files
  .filter((f) => tierArg === undefined || tiers.get(f) === tierArg)
  .filter((f) => !leftOut.has(f))
  .sort((a, b) => sizes.get(b)! - sizes.get(a)!)
  .sort((a, b) => order.indexOf(tiers.get(a)!) - order.indexOf(tiers.get(b)!))
  // Files that run alone first, while the others wait.
  .sort((a, b) => Number(alone.has(b)) - Number(alone.has(a)))

/** Whether `file` runs among other files of the unit tier in a process (test/support/batch.ts). */
function batched(file: string | undefined): boolean {
  return file !== undefined && tiers.get(file) === 'unit' && !alone.has(file)
}
/** Processes at a time: `TEST_JOBS`, and one more for the unit tier's files when there are any. */
const processes = jobs + (queue.some(batched) ? 1 : 0)

const env = { ...process.env }
// Where the first test file that needs an embedded data directory of its own makes one, for the
// others to copy (test/support/data-dir.ts).
const scratch = await mkdtemp(join(tmpdir(), 'test-run-'))
env.TEST_DATA_TEMPLATE = join(scratch, 'data')
const BATCH_ENTRY = 'test/support/batch.ts'
// The bundles are made while the embedded databases start.
const bundling = bundleTests([...queue, BATCH_ENTRY], scratch)
/** The test processes running, and the embedded databases' processes. */
const testProcesses = new Set<ChildProcess>()
const databaseProcesses = new Set<ChildProcess>()
const urls: string[] = []
/** The process of each embedded database, by its URL: its CPU time is counted to the file using it. */
const databases = new Map<string, number>()
if (!env.DATABASE_URL) {
  env.TEST_DATABASE_KIND = 'embedded'
  const started = await Promise.all(
    Array.from({ length: Math.min(processes, queue.length) }, () => startDatabase()),
  )
  const ports = started.map((s) => s.port)
  for (const { port, pid } of started) {
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`
    urls.push(url)
    databases.set(url, pid)
  }
  console.log(
    `# tests on the embedded database (PGlite), ${urls.length} at a time, at 127.0.0.1:${ports.join(', ')}`,
  )
} else {
  env.TEST_DATABASE_KIND = 'postgres'
  urls.push(...Array.from({ length: processes }, () => env.DATABASE_URL!))
  console.log(`# tests on the PostgreSQL server of DATABASE_URL, ${processes} processes at a time`)
  const browser = [...leftOut].filter((f) => tiers.get(f) === 'browser').length
  if (leftOut.size > 0)
    console.log(
      `# left out here (the embedded pass runs them; TEST_EVERY_FILE=1 runs them here too):` +
        ` the browser tier (${browser} files), which drives the pages, and the files that use` +
        ` embedded databases of their own: ${[...leftOut].filter((f) => tiers.get(f) !== 'browser').join(', ')}`,
    )
}

const bundles = await bundling
const batchEntry = bundles.get(BATCH_ENTRY)!

/**
 * Bundles the test files `files` into `out`, once for the run: each file's own code in one
 * module, what they import from the project in chunks they share (esbuild's `splitting`), the
 * packages left to node (found through a link to the project's `node_modules`), as `npm start`
 * bundles the services (scripts/node-bundle.mjs). Answers each file's bundle.
 */
async function bundleTests(files: string[], out: string): Promise<Map<string, string>> {
  await symlink(join(ROOT, 'node_modules'), join(out, 'node_modules'))
  const result = await build({
    ...nodeBundle,
    entryPoints: files,
    absWorkingDir: ROOT,
    outdir: join(out, 'bundles'),
    outbase: '.',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  })
  // esbuild's service process is not needed again this run.
  await stop()
  const bundles = new Map<string, string>()
  for (const [output, { entryPoint }] of Object.entries(result.metafile.outputs))
    if (entryPoint !== undefined) bundles.set(entryPoint, resolve(ROOT, output))
  return bundles
}

/** Starts test/support/embedded-server.ts; answers its port. It stops when this process ends. */
async function startDatabase(): Promise<{ port: number; pid: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/embedded-server.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  databaseProcesses.add(child)
  const lines = createInterface({ input: child.stdout })
  for await (const line of lines) return { port: Number(line), pid: child.pid! }
  throw new Error('the embedded database did not start')
}

/** CPU seconds (user + system) a running process has used so far, from Linux's /proc; else 0. */
function cpuOf(pid: number | undefined): number {
  try {
    // After the command's closing parenthesis: state is field 3, utime and stime 14 and 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

// GNU time reports the CPU time of a test file's process and of the processes it waited for
// (tsx's esbuild, say); where it is missing the figure is left out.
const timeCommand = existsSync('/usr/bin/time') ? '/usr/bin/time' : null

/** How one test file went. */
interface Outcome {
  file: string
  ok: boolean
  ms: number
  /**
   * CPU seconds of the file: in a process of its own, of that process and the processes it
   * waited for; among others, of its own time in their process. And of its embedded database.
   */
  cpu: number | null
  databaseCpu: number | null
  why?: string
}

/** How one test process went: its files, and its tests as its reporter counted them. */
interface Ran {
  outcomes: Outcome[]
  /** Files it never started (it crashed or hung before them): they run again in another. */
  unrun: string[]
  passed: number
  failed: number
  /** CPU seconds of the process and the processes it waited for; null where unmeasured. */
  cpu: number | null
  /** When a file failed, what the reporter said of the failures (see failuresOf). */
  failures?: string
}

/** A count from the closing lines of node's test reporters (spec's `ℹ pass 3`, TAP's `# pass 3`). */
function counted(output: string, word: 'pass' | 'fail'): number {
  const match = new RegExp(`^(?:ℹ|#) ${word} (\\d+)$`, 'm').exec(output)
  return match ? Number(match[1]) : 0
}

/** The files among `files` whose suite the spec reporter marked failed (`✖ <file> (…)`). */
function failedSuites(output: string, files: string[]): Set<string> {
  const named = new Set(files)
  const failed = new Set<string>()
  for (const line of output.split('\n')) {
    const file = /^✖ (\S+) \(/.exec(line)?.[1]
    if (file !== undefined && named.has(file)) failed.add(file)
  }
  return failed
}

/**
 * Runs test files one after another in one process (test/support/batch.ts); kills it when a
 * file runs past the limit, or when it does not exit within the limit after its last file.
 */
async function runBatch(files: string[], url: string, slot: string): Promise<Ran> {
  const limitMs = limitMsOf(tiers.get(files[0]!))
  const database = databases.get(url)
  const timing = timeCommand ? join(scratch, `time-${++timed}`) : null
  // --expose-gc as `npm start` runs node (src/base/collect.ts). The bundle is node's entry, not
  // run under `node --test`, whose parent process only relays what the file's process reports
  // (0.2 to 0.4 s of CPU a process). detached: its own process group, so a kill reaches the
  // processes it started as well.
  const command = [process.execPath, '--expose-gc', '--enable-source-maps', ...flags, batchEntry]
  if (timing) command.unshift(timeCommand!, '--quiet', '-f', '%U %S', '-o', timing)
  const batch = files.map((file) => [file, bundles.get(file)])
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...env, DATABASE_URL: url, TEST_SCHEMA_SLOT: slot, TEST_BATCH: JSON.stringify(batch) },
    detached: true,
  })
  testProcesses.add(child)
  const output: Buffer[] = []
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk))
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk))
  let timedOut = false
  let watchdog: NodeJS.Timeout | undefined
  const watch = () => {
    clearTimeout(watchdog)
    watchdog = setTimeout(() => {
      timedOut = true
      kill(child)
    }, limitMs)
  }
  watch()
  const outcomes: Outcome[] = []
  /** The file running now: since when, and its database's CPU then. */
  const inProgress: { file: string; at: number; databaseCpu: number }[] = []
  createInterface({ input: child.stdio[3] as Readable }).on('line', (line) => {
    const [word = '', file = '', cpu] = line.split(' ')
    if (word === 'start')
      inProgress.push({ file, at: performance.now(), databaseCpu: cpuOf(database) })
    else if (word === 'end' && inProgress[0]?.file === file) {
      const { at, databaseCpu } = inProgress.pop()!
      outcomes.push({
        file,
        ok: true,
        ms: performance.now() - at,
        cpu: Number(cpu),
        databaseCpu: database ? cpuOf(database) - databaseCpu : null,
      })
    }
    watch()
  })
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, signal) => resolve([code, signal])),
  )
  clearTimeout(watchdog)
  testProcesses.delete(child)
  const text = Buffer.concat(output).toString()
  const cpu = timing ? await cpuFrom(timing) : null
  // A file alone in its process is charged the whole process, the processes it started included.
  if (files.length === 1 && outcomes[0]) outcomes[0].cpu = cpu
  const failed = failedSuites(text, files)
  const exit = `exit ${code ?? signal}`
  for (const o of outcomes) if (failed.has(o.file)) Object.assign(o, { ok: false, why: exit })
  const current = inProgress[0]
  if (current) {
    const ms = performance.now() - current.at
    const why = timedOut
      ? `still running after ${limitMs / 1000} s: killed`
      : `${exit} while it ran`
    outcomes.push({ file: current.file, ok: false, ms, cpu: null, databaseCpu: null, why })
  } else if (outcomes.length === 0) {
    // It failed before its first file started: all of them fail, rather than run again.
    for (const file of files)
      outcomes.push({
        file,
        ok: false,
        ms: 0,
        cpu: null,
        databaseCpu: null,
        why: `${exit} before its first file started`,
      })
  } else if (code !== 0 && failed.size === 0) {
    // Every file ended and none failed, yet the process did not end well: it would not exit
    // (something left open), or it failed after its files. Which file is not known here.
    const why = timedOut
      ? `did not exit within ${limitMs / 1000} s of its last file (something was left open); ` +
        `run its files one at a time to see which: ${files.join(' ')}`
      : `${exit} after its files ended`
    for (const o of outcomes) Object.assign(o, { ok: false, why })
  }
  const unrun = files.filter((f) => !outcomes.some((o) => o.file === f))
  for (const o of outcomes)
    process.stdout.write(
      `\n# ${o.file} (${tiers.get(o.file)}, ${times(o)})${o.ok ? '' : `: FAILED, ${o.why}`}\n`,
    )
  if (files.length > 1)
    process.stdout.write(
      `# ran in one process${cpu === null ? '' : `, ${cpu.toFixed(1)} s CPU in all`}\n`,
    )
  process.stdout.write(text)
  const ok = outcomes.every((o) => o.ok)
  return {
    outcomes,
    unrun,
    passed: counted(text, 'pass'),
    failed: counted(text, 'fail'),
    cpu,
    ...(ok ? {} : { failures: failuresOf(text) }),
  }
}

/**
 * What a failed file said of its failures, said again under the run's summary: CI shows the
 * end of a long run's output, and a file that ran early (a file that runs alone runs first)
 * had its failure far above it. The spec reporter's closing list of failing tests, or the end
 * of what the file printed when it has none (a crash, a hang), at most 4,000 characters.
 */
function failuresOf(text: string): string {
  const list = text.lastIndexOf('✖ failing tests:')
  const said = list >= 0 ? text.slice(list) : text.slice(-4_000)
  return said.length > 4_000 ? `${said.slice(0, 4_000)}\n…` : said
}
let timed = 0

/** The user and system seconds GNU time wrote, summed; null when it wrote none (a kill). */
async function cpuFrom(path: string): Promise<number | null> {
  const words = (await readFile(path, 'utf8').catch(() => '')).trim().split('\n').at(-1)
  const [user, system] = (words ?? '').split(' ').map(Number)
  return user === undefined || system === undefined || Number.isNaN(user + system)
    ? null
    : user + system
}

/** A file's wall time and, where measured, its CPU time and its database's. */
function times(o: Pick<Outcome, 'ms' | 'cpu' | 'databaseCpu'>): string {
  const parts = [`${(o.ms / 1000).toFixed(1)} s`]
  if (o.cpu !== null) parts.push(`${o.cpu.toFixed(1)} s CPU`)
  if (o.databaseCpu !== null) parts.push(`${o.databaseCpu.toFixed(1)} s database CPU`)
  return parts.join(', ')
}

function kill(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL')
  } catch {
    child.kill('SIGKILL')
  }
}

const stopAll = () => {
  for (const child of testProcesses) kill(child)
  for (const child of databaseProcesses) child.stdin?.end()
}
process.on('SIGINT', () => {
  stopAll()
  process.exit(130)
})

const started = performance.now()
const outcomes: Outcome[] = []
const counts = { passed: 0, failures: 0, cpu: 0 }
/** What each process that failed said of it, and its files that failed. */
const failures: { files: string[]; said: string }[] = []
/** Runs `files` in a process, counts what it did, and queues again the files it never started. */
async function runProcess(files: string[], url: string, slot: string): Promise<void> {
  const ran = await runBatch(files, url, slot)
  outcomes.push(...ran.outcomes)
  queue.unshift(...ran.unrun)
  const ok = ran.outcomes.every((o) => o.ok)
  // The plain closing line counts every test, and a process that failed without a failing test
  // (a crash, a hang) as one failure.
  counts.passed += ran.passed
  counts.failures += ok ? ran.failed : Math.max(ran.failed, 1)
  counts.cpu += (ran.cpu ?? 0) + ran.outcomes.reduce((sum, o) => sum + (o.databaseCpu ?? 0), 0)
  if (ran.failures !== undefined)
    failures.push({
      files: ran.outcomes.filter((o) => !o.ok).map((o) => o.file),
      said: ran.failures,
    })
}
let running = 0
let exclusive: Promise<unknown> | null = null
/** Each slot's schemas (test/support/db.ts): the next file in the slot empties them, not makes them. */
const slots = urls.map((_, i) => `test_run${process.pid}_${i}`)

/**
 * The files of a slot's next process, taken from the queue: a file of the browser or faults
 * tier, or one that runs alone, by itself; else up to `perProcess` files of the unit tier.
 * `unitOnly`: the slot takes unit files only (the one beyond `TEST_JOBS`, see above).
 */
function nextFiles(unitOnly: boolean): string[] {
  const at = unitOnly ? queue.findIndex(batched) : 0
  if (at < 0 || at >= queue.length) return []
  const files = queue.splice(at, 1)
  if (batched(files[0]))
    while (files.length < perProcess && batched(queue[at])) files.push(...queue.splice(at, 1))
  return files
}

await Promise.all(
  urls.map(async (url, i) => {
    const slot = slots[i]!
    const unitOnly = i >= jobs
    for (let files = nextFiles(unitOnly); files.length > 0; files = nextFiles(unitOnly)) {
      while (exclusive) await exclusive
      if (alone.has(files[0]!)) {
        const run = (async () => {
          while (running > 0) await new Promise((resolve) => setTimeout(resolve, 100))
          await runProcess(files, url, slot)
        })()
        exclusive = run
        await run
        exclusive = null
        continue
      }
      running++
      await runProcess(files, url, slot)
      running--
    }
  }),
)
stopAll()
await rm(scratch, { recursive: true, force: true })
if (env.TEST_DATABASE_KIND === 'postgres') await dropSlotSchemas(env.DATABASE_URL!)

/** Drops the slots' schemas the files left on the server (an embedded database ends with the run). */
async function dropSlotSchemas(url: string): Promise<void> {
  const sql = connect(url, { max: 1 })
  const schemas =
    await sql`select nspname from pg_namespace where nspname like ${`test_run${process.pid}\\_%`}`
  for (const { nspname } of schemas) await sql.unsafe(`drop schema ${nspname as string} cascade`)
  await sql.end({ timeout: 5 })
}

const failed = outcomes.filter((o) => !o.ok)
const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 10)
console.log(
  `\n# ${outcomes.length} files in ${((performance.now() - started) / 1000).toFixed(0)} s, ${processes} processes at a time` +
    `${counts.cpu > 0 ? `, ${counts.cpu.toFixed(0)} s CPU in all` : ''}; slowest:`,
)
for (const o of slowest) console.log(`#   ${times(o).padEnd(40)}  ${o.file}`)
if (failed.length) {
  for (const { files, said } of failures)
    console.log(`\n# ${files.join(', ')} failed; it said:\n${said}`)
  console.log(`# FAILED:\n${failed.map((o) => `#   ${o.file}: ${o.why}`).join('\n')}`)
}
// The plain closing line CI reads.
console.log(`tests: ${counts.passed} passed, ${counts.failures} failed`)
process.exit(failed.length ? 1 : 0)
