// Test tier: faults: it starts processes of its own (test/run.ts).
// Test database: embedded: it starts its services on data directories of its own (test/run.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { emptyDataDir, startedDataDir } from './support/data-dir.ts'
import { startCommand } from './support/start-command.ts'
import { until } from './support/wait.ts'

/**
 * Runs `src/main.ts` as `npm start` does, with the given environment, until it has listened;
 * `through: 'npm'` runs `npm start` itself.
 */
async function startMain(env: NodeJS.ProcessEnv, through: 'node' | 'npm' = 'node') {
  const [command, args] =
    through === 'npm' ? ['npm', ['start']] : [process.execPath, startCommand()]
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NOTES_PORT: '0',
      TICKETS_PORT: '0',
      DEV_IDP_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const urls: Record<string, string> = {}
  let stderr = ''
  child.stderr.on('data', (c) => (stderr += c))
  const expected = (env.SERVICES ?? 'notes,tickets').split(',').length
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line)
      const m =
        /^(notes|tickets): .*, open (\S+)$/.exec(line) ?? /^dev-idp: .* at (\S+):/.exec(line)
      if (m) urls[m.length === 3 ? m[1]! : 'devIdp'] = m.length === 3 ? m[2]! : m[1]!
      if (Object.keys(urls).filter((k) => k !== 'devIdp').length === expected) resolve()
    })
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)))
  })
  const stop = async () => {
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    return exit
  }
  return { urls, lines, stop }
}

test('npm start serves both services and the development provider on a fresh embedded database, and SIGTERM exits 0', async () => {
  const dataDir = await emptyDataDir('app-data-')
  const app = await startMain({ DATA_DIR: dataDir, DEV_SIGNIN: '1' })
  try {
    for (const name of ['notes', 'tickets']) {
      const res = await fetch(`${app.urls[name]}/healthz`)
      assert.equal(res.status, 200, name)
      assert.deepEqual(await res.json(), { ok: true })
    }
    assert.ok(app.lines.some((l) => l.includes('DEVELOPMENT ONLY')))
    const idpPort = new URL(app.urls.devIdp!).port
    const page = await fetch(
      `http://127.0.0.1:${idpPort}/login?key=dev-key&return=http://localhost/`,
    )
    assert.equal(page.status, 200)
    assert.match(await page.text(), /Development only/)
  } finally {
    assert.equal(await app.stop(), 0)
  }
})

test('npm start runs the built-in accounts by default, and its log says where to go and that the first person creates the owner account', async () => {
  const dataDir = await emptyDataDir('app-data-')
  const app = await startMain({ DATA_DIR: dataDir })
  try {
    const line = app.lines.find((l) => l.startsWith('idp: sign-in with built-in accounts at '))
    assert.ok(line, app.lines.join('\n'))
    assert.ok(!app.lines.some((l) => l.includes('DEVELOPMENT ONLY')))
    assert.ok(
      app.lines.some(
        (l) =>
          l ===
          'idp: no account yet: the first person to press Sign in in either app creates the owner account',
      ),
    )
    const idp = line.slice('idp: sign-in with built-in accounts at '.length)
    const page = await fetch(
      `${idp}/login?key=dev-key&return=${encodeURIComponent(`${app.urls.notes}/login/callback`)}`,
    )
    assert.equal(page.status, 200)
    assert.match(await page.text(), /<h1>Create the owner account<\/h1>/)
    // The lines naming the addresses to open come last.
    assert.match(app.lines.at(-1)!, /^tickets: .*, open /)
  } finally {
    assert.equal(await app.stop(), 0)
  }
})

test('a SIGTERM sent to npm start reaches the server, which stops and frees its ports', async () => {
  const dataDir = await startedDataDir('app-data-')
  const app = await startMain({ DATA_DIR: dataDir }, 'npm')
  try {
    // Ready once its database has answered; a machine under load may take a moment after the
    // start line (a 503 until then is /healthz doing its work).
    await until(async () => (await fetch(`${app.urls.tickets}/healthz`)).status === 200)
  } finally {
    // Stopped whatever the answer: a server left running kept the file from exiting.
    assert.equal(await app.stop(), 0)
  }
  assert.ok(app.lines.some((l) => l.startsWith('SIGTERM: stopping')))
  await assert.rejects(fetch(`${app.urls.tickets}/healthz`))
})

test('the embedded database keeps its data across restarts', async () => {
  const dataDir = await emptyDataDir('app-data-')
  const first = await startMain({ DATA_DIR: dataDir, SERVICES: 'notes' })
  try {
    assert.ok(first.lines.some((l) => l.startsWith('database: applied 0001_core.sql')))
  } finally {
    assert.equal(await first.stop(), 0)
  }
  const second = await startMain({ DATA_DIR: dataDir, SERVICES: 'notes' })
  try {
    // Nothing left to apply: the schema (and the session secret with it) survived the restart.
    assert.ok(!second.lines.some((l) => l.startsWith('database: applied')))
    assert.equal((await fetch(`${second.urls.notes}/healthz`)).status, 200)
  } finally {
    assert.equal(await second.stop(), 0)
  }
})

test('a wrong setting stops the start with exit code 1 and a message', async () => {
  const child = spawn(process.execPath, startCommand(), {
    env: { PATH: process.env.PATH, NOTES_PORT: 'x' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (c) => (stderr += c))
  const code = await new Promise((resolve) => child.on('exit', resolve))
  assert.equal(code, 1)
  assert.match(stderr, /configuration: NOTES_PORT must be a port number/)
})

test('the start-up log ends with one line per service naming the one address to open, and signing in returns to it', async () => {
  const dataDir = await startedDataDir('app-data-')
  const app = await startMain({ DATA_DIR: dataDir })
  try {
    const last = app.lines.slice(-2)
    assert.match(
      last[0]!,
      /^notes: the notes sync service on the embedded database, open http:\/\/localhost:\d+$/,
    )
    assert.match(
      last[1]!,
      /^tickets: the ticket tracker on the embedded database, open http:\/\/localhost:\d+$/,
    )
    // One address per line: the bound one is not printed beside it.
    for (const line of last) assert.equal(line.match(/http:\/\//g)!.length, 1)
    const notes = app.urls.notes!
    // Ready once its database has answered, as above: in a CI run, beside backup.test.ts on the
    // 2 cores, the first /healthz after the start line was a 503 (its `select 1` had no answer
    // within its 2 s; the embedded database runs on the service's own thread).
    await until(async () => (await fetch(`${notes}/healthz`)).status === 200)
    const login = await fetch(`${notes}/login`, { redirect: 'manual' })
    const returnTo = new URL(new URL(login.headers.get('location')!).searchParams.get('return')!)
    assert.equal(returnTo.origin, notes)
  } finally {
    assert.equal(await app.stop(), 0)
  }
})

test('a port in use stops the start with a message naming the variable to set', async () => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  const port = (taken.address() as AddressInfo).port
  const dataDir = await startedDataDir('app-data-')
  try {
    const child = spawn(process.execPath, startCommand(), {
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        NOTES_PORT: '0',
        TICKETS_PORT: String(port),
        DEV_IDP_PORT: '0',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (c) => (stderr += c))
    assert.equal(await new Promise((resolve) => child.on('exit', resolve)), 1)
    assert.match(
      stderr,
      new RegExp(
        `port ${port} is already in use by another program: set TICKETS_PORT to a free port`,
      ),
    )
  } finally {
    taken.close()
  }
})
