/**
 * `npm test`: runs every `test/**\/*.test.ts` with node:test. With `DATABASE_URL` unset, it first
 * starts one throw-away embedded database (PGlite, in memory) on a local port and points the
 * test files at it, so the suite runs on the embedded database; with `DATABASE_URL` set, on
 * that server. Each test file works in a schema of its own (test/support/db.ts).
 *
 * Arguments are passed to node's test runner; file arguments replace the default list:
 * `npm test -- test/router.test.ts`.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmbedded } from '../src/db/embedded.ts'

const args = process.argv.slice(2)
const files = args.filter((a) => a.endsWith('.ts'))
const flags = args.filter((a) => !a.endsWith('.ts'))
if (files.length === 0) {
  const all = await readdir(new URL('.', import.meta.url), { recursive: true })
  files.push(...all.filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`))
}

const env = { ...process.env }
// Where the first test file that needs an embedded data directory of its own makes one, for the
// others to copy (test/support/data-dir.ts).
const scratch = await mkdtemp(join(tmpdir(), 'test-run-'))
env.TEST_DATA_TEMPLATE = join(scratch, 'data')
let embedded: Awaited<ReturnType<typeof startEmbedded>> | null = null
if (!env.DATABASE_URL) {
  embedded = await startEmbedded('memory://', { tcp: true })
  env.DATABASE_URL = `postgres://postgres@127.0.0.1:${embedded.port}/postgres`
  env.TEST_DATABASE_KIND = 'embedded'
  console.log(`# tests on the embedded database (PGlite) at 127.0.0.1:${embedded.port}`)
} else {
  env.TEST_DATABASE_KIND = 'postgres'
  console.log(`# tests on the PostgreSQL server of DATABASE_URL`)
}

// --expose-gc as `npm start` runs node (src/base/collect.ts).
const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--test', '--test-concurrency=1', ...flags, ...files], { stdio: 'inherit', env })
const code: number = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))))
await embedded?.stop()
await rm(scratch, { recursive: true, force: true })
process.exit(code)
