import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

// The `postgres` driver 3.4.9 throws from a setImmediate callback when a connection is written
// to after its socket closed, which ends the whole process (porsager/postgres#1154, #1208).
// patches/postgres+3.4.9.patch, applied by `npm install` (postinstall: patch-package), guards it.

const run = promisify(execFile)
const FIXTURE = 'test/fixtures/reserved-after-cut.ts'
const DRIVER = 'node_modules/postgres'

async function useAfterCut(driverDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', FIXTURE, driverDir, process.env.DATABASE_URL!])
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
