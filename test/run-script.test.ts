import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, open, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { startCommand, startOptions } from './support/start-command.ts'

const run = promisify(execFile)

test('the start script runs a TypeScript entry as plain JavaScript: its own arguments, each file its own address, stack traces naming the TypeScript', async () => {
  const { stdout } = await run(process.execPath, startCommand('test/fixtures/run-entry.ts', ['one', 'two words']))
  const seen = JSON.parse(stdout) as { argv: string[]; url: string; other: string; loaders: string[]; stack: string }
  const entry = resolve('test/fixtures/run-entry.ts')
  assert.deepEqual(seen.argv, [entry, 'one', 'two words'])
  assert.equal(seen.url, pathToFileURL(entry).href)
  assert.equal(seen.other, resolve('test/fixtures/run-entry-other.ts'))
  assert.deepEqual(seen.loaders, [], 'no TypeScript loader in the process')
  assert.match(seen.stack.split('\n')[1]!, /test\/fixtures\/run-entry\.ts:6:/)
})

test('the start script refuses anything but a TypeScript file, saying how to call it', async () => {
  await assert.rejects(run(process.execPath, startCommand('README.md')), (err: { code: number; stderr: string }) => {
    assert.equal(err.code, 2)
    assert.match(err.stderr, /usage: node scripts\/run.mjs <file.ts>/)
    return true
  })
})

/**
 * The state V8 keeps for each key of node's tick record literal, from the `%DebugPrint` of
 * `process.nextTick` that test/fixtures/run-ticks.ts prints when run with `args`. V8 prints with
 * C's stdio, and through a pipe to this process part of it was lost: it goes to a file.
 */
async function tickKeys(args: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'run-ticks-'))
  try {
    const out = await open(join(dir, 'out'), 'w')
    const child = spawn(process.execPath, args, { stdio: ['ignore', out.fd, 'inherit'] })
    const code = await new Promise((resolve) => child.on('exit', resolve))
    await out.close()
    assert.equal(code, 0)
    const printed = await readFile(join(dir, 'out'), 'utf8')
    return [...printed.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

test("the start script keeps node's tick records on V8's fast path through full collections (scripts/tick-shape.mjs)", async () => {
  const natives = ['--expose-gc', '--allow-natives-syntax']
  const started = await tickKeys(startCommand('test/fixtures/run-ticks.ts', [], [...natives, ...startOptions()]))
  assert.deepEqual(started, ['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC'])
  // The same entry without the start script: the collections drop the records' hidden classes
  // and V8 gives up on three of the four keys for the life of the process.
  const bare = await tickKeys([...natives, '--import', 'tsx', 'test/fixtures/run-ticks.ts'])
  assert.deepEqual(bare, ['MONOMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC'])
})
