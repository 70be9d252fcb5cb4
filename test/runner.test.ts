// Test tier: faults: it starts the test runner (test/run.ts), which starts processes of its own.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { test } from 'node:test'

/** Runs `npm test` on `files` (test/fixtures/runner/), one process at a time; answers what it printed. */
function runTests(
  files: string[],
  limitSeconds: number,
): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'test/run.ts', ...files.map((f) => `test/fixtures/runner/${f}`)],
      {
        // The fixtures use no database; the runner is pointed at this file's, and drops only
        // its own schemas there (none).
        env: { ...process.env, TEST_JOBS: '1', TEST_FILE_LIMIT: String(limitSeconds) },
        timeout: 60_000,
      },
      (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }),
    )
  })
}

/** The runner's line about `file`: its times, and why it failed if it did. */
function lineOf(stdout: string, file: string): string {
  const line = stdout.split('\n').find((l) => l.startsWith(`# test/fixtures/runner/${file} (`))
  assert.ok(line, `a line about ${file} in:\n${stdout}`)
  return line
}

test('files share a process; one that ends the process is named, the files it left are run in another, and a failing test is counted and said again', async () => {
  const { code, stdout } = await runTests(['passes.ts', 'fails.ts', 'exits.ts'], 60)
  assert.equal(code, 1)
  assert.match(lineOf(stdout, 'exits.ts'), /: FAILED, exit 3 while it ran$/)
  assert.match(lineOf(stdout, 'passes.ts'), /\(unit, [^)]+\)$/)
  assert.match(lineOf(stdout, 'fails.ts'), /: FAILED, exit 1$/)
  assert.match(stdout, /# ran in one process/, 'passes.ts and fails.ts ran together')
  assert.match(stdout, /# test\/fixtures\/runner\/fails\.ts failed; it said:\n[^]*one is not two/)
  assert.match(stdout, /^tests: 1 passed, 2 failed$/m)
})

test('a file still running after the limit is killed and named, and one that leaves something open is named once its process would not exit', async () => {
  const { code, stdout } = await runTests(['hangs.ts', 'leaves-open.ts'], 2)
  assert.equal(code, 1)
  assert.match(lineOf(stdout, 'hangs.ts'), /: FAILED, still running after 2 s: killed$/)
  assert.match(
    lineOf(stdout, 'leaves-open.ts'),
    /: FAILED, did not exit within 2 s of its last file \(something was left open\); run its files one at a time to see which: test\/fixtures\/runner\/leaves-open\.ts$/,
  )
  // Neither process got to its reporter's closing counts.
  assert.match(stdout, /^tests: 0 passed, 2 failed$/m)
})
