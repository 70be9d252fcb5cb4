// Test tier: faults: it starts processes of its own (test/run.ts).
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { testDatabase } from '../support/db.ts'
import { until } from '../support/wait.ts'
import { startCommand } from '../support/start-command.ts'

// Two server processes on one database, as behind a load balancer: a write on one must reach the
// polls waiting on the other. On real PostgreSQL the servers read the table only when woken (the
// periodic check is an hour), so what carries the write across is the NOTIFY. On the embedded
// database there is no NOTIFY between processes; there the periodic check carries it, and the
// test still shows delivery across processes through the shared table.
const db = await testDatabase()
const postgres = process.env.TEST_DATABASE_KIND !== 'embedded'
const SERVER = fileURLToPath(new URL('../support/live-server.ts', import.meta.url))

interface Server {
  url: string
  child: ChildProcess
}

async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, startCommand(SERVER), {
    env: {
      ...process.env,
      LIVE_SCHEMA: db.schema,
      LIVE_LISTEN: postgres ? '1' : '0',
      LIVE_CHECK_MS: postgres ? '3600000' : '100',
      LIVE_HOLD_MS: '600000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  after(async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
  })
  const lines = createInterface({ input: child.stdout })
  const first = await Promise.race([
    new Promise<string>((resolve) => lines.once('line', resolve)),
    exited.then((code) => {
      throw new Error(`live server exited with ${code} before listening`)
    }),
  ])
  return { url: (JSON.parse(first) as { url: string }).url, child }
}

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url)
  return { status: res.status, body: await res.json() }
}

async function waitingOn(server: Server, n: number): Promise<void> {
  await until(async () => (await getJson(`${server.url}/stats`)).body.waiting === n)
}

async function emitOn(server: Server, args: unknown[]): Promise<void> {
  const res = await fetch(`${server.url}/emit`, {
    method: 'POST',
    body: JSON.stringify({ project: 'p1', args }),
  })
  assert.equal(res.status, 200)
}

const [a, b] = await Promise.all([startServer(), startServer()])

test('a write on one process reaches the polls waiting on both', { timeout: 60_000 }, async () => {
  for (const [writer, name] of [
    [a, 'on a'],
    [b, 'on b'],
  ] as const) {
    const { body: start } = await getJson(`${a.url}/api/live`)
    const polls = [a, b].map((server) => getJson(`${server.url}/api/live?after=${start.cursor}`))
    // Both polls have had their first read and wait: only a wake-up can answer them now.
    await Promise.all([waitingOn(a, 1), waitingOn(b, 1)])
    await emitOn(writer, [name])
    const answers = await Promise.all(polls)
    for (const answer of answers) {
      assert.equal(answer.status, 200)
      assert.deepEqual(
        answer.body.events.map((e: { args: unknown[] }) => e.args),
        [[name]],
      )
    }
    assert.equal(answers[0]!.body.cursor, answers[1]!.body.cursor)
  }
})

test('a project filter holds across processes', { timeout: 60_000 }, async () => {
  const { body: start } = await getJson(`${b.url}/api/live`)
  const other = getJson(`${b.url}/api/live?after=${start.cursor}&project=p2`)
  const mine = getJson(`${b.url}/api/live?after=${start.cursor}&project=p1`)
  await waitingOn(b, 2)
  await emitOn(a, ['for p1'])
  assert.deepEqual(
    (await mine).body.events.map((e: { args: unknown[] }) => e.args),
    [['for p1']],
  )
  assert.equal((await getJson(`${b.url}/stats`)).body.waiting, 1)
  // The p2 poll is still waiting; the server's shutdown answers it with no events.
  b.child.kill('SIGTERM')
  const answer = await other
  assert.deepEqual(answer.body.events, [])
  assert.ok(answer.body.cursor >= start.cursor)
})
