// Test tier: faults: it starts processes of its own (test/run.ts).
// Test database: embedded: it starts its services on data directories of its own (test/run.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { startedDataDir } from './support/data-dir.ts'
import { startCommand } from './support/start-command.ts'

// One process per embedded data directory (docs/operations.md, "The data-directory lock").
// These start `src/main.ts` on a data directory of their own, whatever database the suite uses.

function start(dataDir: string, script = 'src/main.ts', args: string[] = []) {
  const child = spawn(process.execPath, startCommand(script, args), {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      NOTES_PORT: '0',
      TICKETS_PORT: '0',
      DEV_IDP_PORT: '0',
      SERVICES: 'notes',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (c) => (stderr += c))
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
  const listening = new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^notes: .*, open (\S+)$/.exec(line)
      if (m) done(m[1]!)
    })
    void exited.then((code) => fail(new Error(`exited ${code}: ${stderr}`)))
  })
  listening.catch(() => {})
  return { child, exited, listening, stderr: () => stderr }
}

test('a second process on the same data directory refuses to start, naming the directory and DATABASE_URL', async () => {
  const dataDir = await startedDataDir('lock-')
  const first = start(dataDir)
  await first.listening
  try {
    const second = start(dataDir)
    assert.equal(await second.exited, 1)
    assert.match(
      second.stderr(),
      new RegExp(
        `the data directory ${resolve(dataDir)} is in use by another process \\(pid ${first.child.pid}\\)`,
      ),
    )
    assert.match(
      second.stderr(),
      /set DATABASE_URL to a PostgreSQL server to run several processes/,
    )
    // The first one still serves.
    assert.equal((await fetch(`${await first.listening}/healthz`)).status, 200)
  } finally {
    first.child.kill('SIGTERM')
    assert.equal(await first.exited, 0)
  }
})

test('npm run import-tickets obeys the same lock', async () => {
  const dataDir = await startedDataDir('lock-')
  const first = start(dataDir)
  await first.listening
  try {
    const importer = start(dataDir, 'scripts/import-tickets.ts', ['package.json'])
    assert.equal(await importer.exited, 1)
    assert.match(importer.stderr(), /is in use by another process/)
  } finally {
    first.child.kill('SIGTERM')
    await first.exited
  }
})

test('the lock dies with its process: after kill -9 a new process starts on the directory at once', async () => {
  const dataDir = await startedDataDir('lock-')
  const first = start(dataDir)
  await first.listening
  first.child.kill('SIGKILL')
  await first.exited
  const second = start(dataDir)
  try {
    assert.equal((await fetch(`${await second.listening}/healthz`)).status, 200)
  } finally {
    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0)
  }
})
