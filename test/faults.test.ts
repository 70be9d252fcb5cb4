// Test tier: faults: it breaks connections or servers and waits out the results (test/run.ts).
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { startedDataDir } from './support/data-dir.ts'
import { testDatabase } from './support/db.ts'
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts'
import { startCommand } from './support/start-command.ts'

// Faults of the database under a serving process (docs/operations.md, "When the database is
// unreachable"): the process talks to the database through a TCP proxy the test controls, so
// that cutting every connection stands for a server restart and a closed port for a stopped
// server. On the embedded database the proxy stands before the test runner's PGlite socket.

const db = await testDatabase()
const target = new URL(db.url)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Server {
  url: string
  child: ChildProcess
  exited: Promise<number | null>
  proxy: TcpProxy
}

async function startServer(env: Record<string, string> = {}): Promise<Server> {
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const url = new URL(db.url)
  url.port = String(proxy.port)
  url.hostname = '127.0.0.1'
  const child = spawn(process.execPath, startCommand('test/fixtures/fault-server.ts'), {
    env: { ...process.env, DATABASE_URL: url.href, FAULT_SCHEMA: db.schema, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  after(async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
    await proxy.close()
  })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve)
    void exited.then((code) => reject(new Error(`fault-server exited ${code}`)))
  })
  return { url: (JSON.parse(line) as { url: string }).url, child, exited, proxy }
}

interface Outcome {
  ms: number
  status?: number
  body?: unknown
  error?: string
}

let n = 0
/** One write; never throws: the answer, or the error code of a failed request. */
async function write(server: Server): Promise<Outcome & { id: string; began: number }> {
  const id = `w${++n}`
  const started = performance.now()
  try {
    const res = await fetch(`${server.url}/write`, {
      method: 'POST',
      body: JSON.stringify({ id }),
      signal: AbortSignal.timeout(20_000),
    })
    return {
      id,
      began: started,
      ms: performance.now() - started,
      status: res.status,
      body: await res.json(),
    }
  } catch (err) {
    const e = err as { name?: string; cause?: { code?: string } }
    return {
      id,
      began: started,
      ms: performance.now() - started,
      error: e.cause?.code ?? e.name ?? String(err),
    }
  }
}

/** `writers` loops of writes until `stop` resolves; every outcome. */
async function writeLoad(server: Server, writers: number, stop: Promise<unknown>) {
  let stopped = false
  void stop.then(() => (stopped = true))
  const outcomes: (Outcome & { id: string; began: number })[] = []
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (!stopped) {
        const outcome = await write(server)
        outcomes.push(outcome)
        if (outcome.error !== undefined) break
        if (outcome.status === 503) await sleep(50)
      }
    }),
  )
  return outcomes
}

async function stored(): Promise<Set<string>> {
  return new Set((await db.sql`select id from fault_writes`).map((r) => r.id as string))
}

function assertAcknowledgedStored(outcomes: (Outcome & { id: string })[], rows: Set<string>) {
  const acknowledged = outcomes.filter((o) => o.status === 200)
  assert.ok(acknowledged.length > 0)
  const lost = acknowledged.filter((o) => !rows.has(o.id)).map((o) => o.id)
  assert.deepEqual(lost, [], 'acknowledged writes missing after the fault')
}

test('the database restarted three times under 8 writers: the process lives, answers 200 or a JSON 503, and keeps every acknowledged write', async () => {
  const server = await startServer()
  const load = (async () => {
    for (let i = 0; i < 3; i++) {
      await sleep(700)
      server.proxy.cut()
    }
    await sleep(1500)
  })()
  const outcomes = await writeLoad(server, 8, load)
  assert.equal(server.child.exitCode, null, 'the process is still running')
  for (const o of outcomes) {
    if (o.status === 503) assert.deepEqual(o.body, { error: 'database unavailable' })
    else assert.equal(o.status, 200, JSON.stringify(o))
  }
  // Serving writes again by itself.
  assert.equal((await write(server)).status, 200)
  assertAcknowledgedStored(outcomes, await stored())
})

test('the database stopped for 30 s: quick JSON 503s and /healthz 503 meanwhile, writes again by themselves after, nothing acknowledged lost', async () => {
  const server = await startServer()
  const before = await writeLoad(server, 4, sleep(500))
  await server.proxy.down()
  const downAt = performance.now()
  const during: Outcome[] = []
  const health: Outcome[] = []
  while (performance.now() - downAt < 30_000) {
    const started = performance.now()
    const res = await fetch(`${server.url}/healthz`)
    health.push({ ms: performance.now() - started, status: res.status, body: await res.json() })
    during.push(await write(server))
    await sleep(2000)
  }
  for (const h of health) {
    assert.equal(h.status, 503)
    assert.deepEqual(h.body, { ok: false })
    assert.ok(h.ms < 3500, `/healthz took ${Math.round(h.ms)} ms`)
  }
  for (const o of during) {
    assert.equal(o.status, 503, JSON.stringify(o))
    assert.deepEqual(o.body, { error: 'database unavailable' })
    assert.ok(o.ms < 5000, `a write took ${Math.round(o.ms)} ms to fail`)
  }
  await server.proxy.up()
  const upAt = performance.now()
  let back = await write(server)
  while (back.status !== 200 && performance.now() - upAt < 10_000) {
    await sleep(200)
    back = await write(server)
  }
  assert.equal(back.status, 200, 'writes served again within 10 s of the database coming back')
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
  assert.equal(server.child.exitCode, null)
  assertAcknowledgedStored([...before, back], await stored())
})

test('every connection silenced under 8 writers (a NAT or a proxy that forgot them: no FIN, no RST, no answer): JSON 503s until the answer deadline replaces them, then every write succeeds, nothing acknowledged lost', async () => {
  // The services wait 30 s for an answer (src/db/client.ts); 2 s here keeps the test short.
  const deadlineMs = 2_000
  const server = await startServer({ FAULT_ANSWER_TIMEOUT: String(deadlineMs / 1000) })
  let silenced = 0
  const outcomes = await writeLoad(
    server,
    8,
    (async () => {
      await sleep(1_000)
      server.proxy.silence()
      silenced = performance.now()
      await sleep(deadlineMs + 4_000)
    })(),
  )
  assert.equal(server.child.exitCode, null, 'the process is still running')
  for (const o of outcomes) {
    if (o.status === 503) assert.deepEqual(o.body, { error: 'database unavailable' })
    else assert.equal(o.status, 200, JSON.stringify(o))
  }
  // The writes on the silenced connections waited for the deadline, and no longer.
  for (const o of outcomes)
    assert.ok(o.ms < deadlineMs + 2_000, `a write took ${Math.round(o.ms)} ms`)
  const late = outcomes.filter((o) => o.began >= silenced + deadlineMs + 2_000)
  assert.ok(late.length > 20, `writes after the deadline: ${late.length}`)
  assert.deepEqual(
    late.filter((o) => o.status !== 200),
    [],
    'writes begun 2 s after the deadline that failed',
  )
  assertAcknowledgedStored(outcomes, await stored())
})

test('SIGTERM under 8 writers answers every request in flight, loses no acknowledged write, and exits 0', async () => {
  const server = await startServer()
  let exitCode: number | null = null
  const stop = (async () => {
    await sleep(800)
    server.child.kill('SIGTERM')
    exitCode = await server.exited
  })()
  const outcomes = await writeLoad(server, 8, stop)
  await stop
  assert.equal(exitCode, 0)
  // Every request that reached the server was answered; the only failures are new connections
  // refused once it stopped listening.
  const cut = outcomes.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED')
  assert.deepEqual(cut, [])
  for (const o of outcomes) if (o.status !== undefined) assert.equal(o.status, 200)
  assertAcknowledgedStored(outcomes, await stored())
})

test('kill -9 under 8 writers on the embedded database: a restart on the same directory finds every acknowledged write', async () => {
  const dataDir = await startedDataDir('kill9-')
  const start = async () => {
    const child = spawn(process.execPath, startCommand('test/fixtures/fault-server.ts'), {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, FAULT_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve)
      void exited.then((code) => reject(new Error(`fault-server exited ${code}`)))
    })
    return { url: (JSON.parse(line) as { url: string }).url, child, exited }
  }
  const first = await start()
  const outcomes = await writeLoad(
    { ...first, proxy: null as never },
    8,
    (async () => {
      await sleep(1500)
      first.child.kill('SIGKILL')
      await first.exited
    })(),
  )
  const second = await start()
  try {
    const ids = (await (await fetch(`${second.url}/ids`)).json()) as string[]
    assertAcknowledgedStored(outcomes, new Set(ids))
  } finally {
    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0)
  }
})
