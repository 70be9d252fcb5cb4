/**
 * Rules for the test files themselves, which node:test does not enforce.
 */
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { test } from 'node:test'

const dir = new URL('.', import.meta.url)
const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.test.ts')).sort()

// node:test (20 and 24 alike) runs the file's top-level `after` hooks as soon as the tests
// declared so far have ended. A file that declares a test, then awaits its set-up at the top
// level (which registers `after` hooks: ending services, dropping the schema), has those hooks
// run before the set-up is done: its services were never ended, a webhook worker went on
// taking connections after the pool had ended, and the file's process never exited.
test('no test file declares a test before its top-level set-up has been awaited', async () => {
  const late: string[] = []
  for (const file of files) {
    const lines = (await readFile(new URL(file, dir), 'utf8')).split('\n')
    const first = lines.findIndex((line) => /^(test|describe|it)(\.\w+)?\(/.test(line))
    if (first === -1) continue
    const awaited = lines.findIndex(
      (line, i) => i > first && /^(export )?((const|let|var) [^=]+= )?await /.test(line),
    )
    if (awaited !== -1) late.push(`test/${file}:${awaited + 1}`)
  }
  assert.deepEqual(late, [])
})

// test/run.ts leaves a file that says `// Test database: embedded` out of the pass on a server
// of DATABASE_URL; that is only right while the file never uses that server.
test('a file marked "Test database: embedded" never uses the database of DATABASE_URL', async () => {
  const wrong: string[] = []
  for (const file of files) {
    const text = await readFile(new URL(file, dir), 'utf8')
    if (!text.split('\n', 30).some((line) => /^\/\/ Test database: embedded\b/.test(line))) continue
    // Reading the variable, or handing the whole environment on to a process it starts.
    const uses = /process\.env\.DATABASE_URL|\.\.\.process\.env\b|env: process\.env\b/
    if (uses.test(text) || /testDatabase\(|fullApp\(|ticketsApp\(|notesService\(/.test(text))
      wrong.push(`test/${file}`)
  }
  assert.deepEqual(wrong, [])
})
