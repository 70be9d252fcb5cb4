// Test tier: faults: it starts processes of its own (test/run.ts).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { startCommand } from './support/start-command.ts'

const run = promisify(execFile)

test('the start script runs a TypeScript entry as plain JavaScript: its own arguments, each file its own address, stack traces naming the TypeScript', async () => {
  const { stdout } = await run(
    process.execPath,
    startCommand('test/fixtures/run-entry.ts', ['one', 'two words']),
  )
  const seen = JSON.parse(stdout) as {
    argv: string[]
    url: string
    other: string
    loaders: string[]
    stack: string
  }
  const entry = resolve('test/fixtures/run-entry.ts')
  assert.deepEqual(seen.argv, [entry, 'one', 'two words'])
  assert.equal(seen.url, pathToFileURL(entry).href)
  assert.equal(seen.other, resolve('test/fixtures/run-entry-other.ts'))
  assert.deepEqual(seen.loaders, [], 'no TypeScript loader in the process')
  assert.match(seen.stack.split('\n')[1]!, /test\/fixtures\/run-entry\.ts:6:/)
})

test('the start script refuses anything but a TypeScript file, saying how to call it', async () => {
  await assert.rejects(
    run(process.execPath, startCommand('README.md')),
    (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 2)
      assert.match(err.stderr, /usage: node scripts\/run.mjs <file.ts>/)
      return true
    },
  )
})
