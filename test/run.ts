/**
 * `npm test`: runs every `test/**\/*.test.ts` with node:test, each file in a process of its own,
 * two files at a time. The test files are bundled once for the run (esbuild, the project's
 * modules in chunks they share, see {@link bundleTests}) and each file's process runs its
 * bundle with plain node: loading some 300 modules one by one through a loader took a file of
 * the tickets service about 0.5 s more CPU. With `DATABASE_URL` unset, it first starts throw-away embedded databases
 * (PGlite, in memory), one per file running at a time, each in a process of its own on a local
 * port, so the suite runs on the embedded database; with `DATABASE_URL` set, on that server.
 * Each test file works in a schema of its own (test/support/db.ts). An embedded database is one
 * session whose `search_path` is shared by all its connections, so two files never share one.
 *
 * Tiers, chosen by `--tier=unit|browser|faults` (`npm run test:unit`, `test:browser`,
 * `test:faults`); `npm test` runs all three:
 * - browser: files named `*-browser.test.ts` (they drive Chromium);
 * - faults: files with a line `// Test tier: faults` among their first lines (they start
 *   processes of their own, cut connections or wait out timeouts);
 * - unit: every other file (no browser, no second process, no fault).
 *
 * A file with a line `// Test alone` among its first lines runs while no other file runs (it
 * needs the database server to itself: a vacuum that must reclaim rows, say).
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
 * and fails with its name and what it printed, so a hang costs minutes, not the whole CI run.
 * `TEST_JOBS` sets how many files run at a time (default 2).
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
/** How long a file of `tier` may run before it is killed (see above). */
const limitMsOf = (tier: Tier | undefined) =>
  Number(process.env.TEST_FILE_LIMIT ?? (tier === 'unit' ? 180 : 600)) * 1000

/** Whether a test file needs the database server to itself (see above). */
async function runsAlone(file: string): Promise<boolean> {
  return (await readFile(file, 'utf8'))
    .split('\n', 30)
    .some((line) => /^\/\/ Test alone\b/.test(line))
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

const env = { ...process.env }
// Where the first test file that needs an embedded data directory of its own makes one, for the
// others to copy (test/support/data-dir.ts).
const scratch = await mkdtemp(join(tmpdir(), 'test-run-'))
env.TEST_DATA_TEMPLATE = join(scratch, 'data')
const bundles = await bundleTests(queue, scratch)
const children = new Set<ChildProcess>()
const urls: string[] = []
/** The process of each embedded database, by its URL: its CPU time is counted to the file using it. */
const databases = new Map<string, number>()
if (!env.DATABASE_URL) {
  env.TEST_DATABASE_KIND = 'embedded'
  const started = await Promise.all(
    Array.from({ length: Math.min(jobs, queue.length) }, () => startDatabase()),
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
  urls.push(...Array.from({ length: jobs }, () => env.DATABASE_URL!))
  console.log(`# tests on the PostgreSQL server of DATABASE_URL, ${jobs} files at a time`)
  const browser = [...leftOut].filter((f) => tiers.get(f) === 'browser').length
  if (leftOut.size > 0)
    console.log(
      `# left out here (the embedded pass runs them; TEST_EVERY_FILE=1 runs them here too):` +
        ` the browser tier (${browser} files), which drives the pages, and the files that use` +
        ` embedded databases of their own: ${[...leftOut].filter((f) => tiers.get(f) !== 'browser').join(', ')}`,
    )
}

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
  children.add(child)
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

interface Outcome {
  file: string
  ok: boolean
  ms: number
  /** CPU seconds of the file's process and its children, and of its embedded database. */
  cpu: number | null
  databaseCpu: number | null
  why?: string
  /** The tests the file's reporter counted as passed and failed. */
  passed: number
  failed: number
  /** For a file that failed, what its reporter said of the failures (see failuresOf). */
  failures?: string
}

/** A count from the closing lines of node's test reporters (spec's `ℹ pass 3`, TAP's `# pass 3`). */
function counted(output: string, word: 'pass' | 'fail'): number {
  const match = new RegExp(`^(?:ℹ|#) ${word} (\\d+)$`, 'm').exec(output)
  return match ? Number(match[1]) : 0
}

/** Runs one test file in a process of its own; kills it after the limit. */
async function runFile(file: string, url: string, slot: string): Promise<Outcome> {
  const started = performance.now()
  const limitMs = limitMsOf(tiers.get(file))
  const database = databases.get(url)
  const databaseCpuBefore = cpuOf(database)
  const timing = timeCommand ? join(scratch, `time-${++timed}`) : null
  // --expose-gc as `npm start` runs node (src/base/collect.ts). The file's bundle is node's
  // entry, not run under `node --test`, whose parent process only relays what the file's process
  // reports (0.2 to 0.4 s of CPU a file). detached: its own process group, so a kill reaches the
  // processes it started as well.
  const bundle = bundles.get(file)
  if (bundle === undefined) throw new Error(`no bundle of ${file}`)
  const command = [process.execPath, '--expose-gc', '--enable-source-maps', ...flags, bundle]
  if (timing) command.unshift(timeCommand!, '--quiet', '-f', '%U %S', '-o', timing)
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, DATABASE_URL: url, TEST_SCHEMA_SLOT: slot },
    detached: true,
  })
  children.add(child)
  const output: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
  let timedOut = false
  const watchdog = setTimeout(() => {
    timedOut = true
    kill(child)
  }, limitMs)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, signal) => resolve([code, signal])),
  )
  clearTimeout(watchdog)
  children.delete(child)
  const ms = performance.now() - started
  const databaseCpu = database ? cpuOf(database) - databaseCpuBefore : null
  const cpu = timing ? await cpuFrom(timing) : null
  const why = timedOut
    ? `still running after ${limitMs / 1000} s: killed`
    : code !== 0
      ? `exit ${code ?? signal}`
      : undefined
  process.stdout.write(
    `\n# ${file} (${tiers.get(file)}, ${times({ ms, cpu, databaseCpu })})${why ? `: FAILED, ${why}` : ''}\n`,
  )
  const text = Buffer.concat(output).toString()
  process.stdout.write(text)
  return {
    file,
    ok: why === undefined,
    ms,
    cpu,
    databaseCpu,
    why,
    passed: counted(text, 'pass'),
    failed: counted(text, 'fail'),
    ...(why === undefined ? {} : { failures: failuresOf(text) }),
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
  for (const child of children) {
    if (child.spawnargs.includes('--test')) kill(child)
    else child.stdin?.end()
  }
}
process.on('SIGINT', () => {
  stopAll()
  process.exit(130)
})

const started = performance.now()
const outcomes: Outcome[] = []
let running = 0
let exclusive: Promise<unknown> | null = null
/** Each slot's schemas (test/support/db.ts): the next file in the slot empties them, not makes them. */
const slots = urls.map((_, i) => `test_run${process.pid}_${i}`)
await Promise.all(
  urls.map(async (url, i) => {
    const slot = slots[i]!
    for (let file = queue.shift(); file; file = queue.shift()) {
      while (exclusive) await exclusive
      if (alone.has(file)) {
        const run = (async () => {
          while (running > 0) await new Promise((resolve) => setTimeout(resolve, 100))
          outcomes.push(await runFile(file, url, slot))
        })()
        exclusive = run
        await run
        exclusive = null
        continue
      }
      running++
      outcomes.push(await runFile(file, url, slot))
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
const cpuTotal = outcomes.reduce((sum, o) => sum + (o.cpu ?? 0) + (o.databaseCpu ?? 0), 0)
console.log(
  `\n# ${outcomes.length} files in ${((performance.now() - started) / 1000).toFixed(0)} s, ${jobs} at a time` +
    `${cpuTotal > 0 ? `, ${cpuTotal.toFixed(0)} s CPU in all` : ''}; slowest:`,
)
for (const o of slowest) console.log(`#   ${times(o).padEnd(40)}  ${o.file}`)
if (failed.length) {
  for (const o of failed) console.log(`\n# ${o.file} failed; it said:\n${o.failures ?? ''}`)
  console.log(`# FAILED:\n${failed.map((o) => `#   ${o.file}: ${o.why}`).join('\n')}`)
}
// The plain closing line CI reads: every test of every file, and a file that failed without a
// failing test (a crash, a hang) counts as one failure.
const passed = outcomes.reduce((sum, o) => sum + o.passed, 0)
const failures = outcomes.reduce((sum, o) => sum + (o.ok ? o.failed : Math.max(o.failed, 1)), 0)
console.log(`tests: ${passed} passed, ${failures} failed`)
process.exit(failed.length ? 1 : 0)
