// Test tier: faults: it starts processes of its own (test/run.ts).
/**
 * Files across processes: two whole applications on one database, as behind a load balancer.
 * A file uploaded through one is served whole by the other: the bytes live in the database,
 * not in a process.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { testDatabase } from '../support/db.ts'
import { startCommand } from '../support/start-command.ts'

const db = await testDatabase()
const APP = fileURLToPath(new URL('../support/app-process.ts', import.meta.url))

async function startProcess(): Promise<{ tickets: string }> {
  const child = spawn(process.execPath, startCommand(APP), {
    env: { ...process.env, APP_SCHEMA: db.schema },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  after(async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
  })
  const first = await Promise.race([
    new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    ),
    exited.then((code) => {
      throw new Error(`app process exited with ${code} before listening`)
    }),
  ])
  return JSON.parse(first) as { tickets: string }
}

/** Signs `name` in on `base` through the development provider; answers the cookie and the tag. */
async function signIn(base: string, name: string): Promise<{ cookie: string; tag: string }> {
  const start = await fetch(`${base}/login?next=/`, { redirect: 'manual' })
  const atProvider = new URL(start.headers.get('location')!)
  atProvider.searchParams.set('name', name)
  const fromProvider = await fetch(atProvider, { redirect: 'manual' })
  const back = new URL(fromProvider.headers.get('location')!)
  const res = await fetch(new URL(`${back.pathname}${back.search}`, base), { redirect: 'manual' })
  assert.equal(res.status, 302)
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('tickets_session='))!
    .split(';')[0]!
  const me = (await (await fetch(`${base}/api/me`, { headers: { cookie } })).json()) as {
    tag: string
  }
  return { cookie, tag: me.tag }
}

const [a, b] = await Promise.all([startProcess(), startProcess()])

test('a file uploaded through one process is served byte for byte by the other', async () => {
  const alice = await signIn(a.tickets, 'alice')
  const headers = { cookie: alice.cookie, 'x-tag': alice.tag }
  const made = await fetch(`${a.tickets}/api/projects`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Shared Files' }),
  })
  assert.equal(made.status, 201)
  const slug = ((await made.json()) as { project: { slug: string } }).project.slug
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 17)
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 13) % 256
  const up = await fetch(`${a.tickets}/api/projects/${slug}/files?name=trace.log`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'text/plain' },
    body: bytes,
  })
  assert.equal(up.status, 201, await up.clone().text())
  const file = ((await up.json()) as { file: { url: string } }).file
  const down = await fetch(`${b.tickets}${new URL(file.url).pathname}`)
  assert.equal(down.status, 200)
  assert.equal(down.headers.get('content-type'), 'application/octet-stream')
  const got = Buffer.from(await down.arrayBuffer())
  assert.equal(
    createHash('sha256').update(got).digest('hex'),
    createHash('sha256').update(bytes).digest('hex'),
  )
})
