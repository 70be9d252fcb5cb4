// Test tier: faults: it starts processes of its own (test/run.ts).
/**
 * Webhook delivery across processes (docs/webhooks.md, "How delivery works"): a service killed
 * with SIGKILL right after writes delivers them, once started again, exactly as if nothing had
 * happened (the same `webhook-id` for a delivery it had begun, no event skipped, the project's
 * order kept); and two processes on one database deliver each event once. Every delivery is
 * verified with `standardwebhooks`.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { after, test } from 'node:test'
import { ticketsApp } from './support.ts'
import { verifyWith, webhookReceiver, type Received } from '../support/webhook-receiver.ts'
import { startCommand } from '../support/start-command.ts'

const SERVER = fileURLToPath(new URL('../support/tickets-server.ts', import.meta.url))
// This file's own service only sets things up: its worker does not run.
const app = await ticketsApp({ env: { WEBHOOK_ALLOW_PRIVATE: '1' }, webhooks: { start: false } })
const receiver = await webhookReceiver()
const alice = await app.login('alice')
await app.project(alice, 'Web site', { slug: 'web' })
const ticket = await app.ticket(alice, 'web')

interface Server {
  url: string
  child: ChildProcess
  exited: Promise<unknown>
}

async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, startCommand(SERVER), {
    env: { ...process.env, TICKETS_SCHEMA: app.db.schema, WEBHOOK_LEASE_MS: '2000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  })
  const first = await Promise.race([
    new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    ),
    exited.then((code) => {
      throw new Error(`tickets server exited with ${code} before listening`)
    }),
  ])
  return { url: (JSON.parse(first) as { url: string }).url, child, exited }
}

async function comment(server: Server, text: string): Promise<void> {
  const res = await fetch(`${server.url}/api/projects/web/tickets/${ticket.number}/comments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  })
  assert.equal(res.status, 201, await res.text())
}

async function addWebhook(path: string): Promise<string> {
  const made = await app.call('POST', '/api/projects/web/webhooks', {
    token: alice.token,
    body: { url: receiver.url(path), events: ['ticket.commented'] },
  })
  assert.equal(made.status, 201, made.text)
  return made.body.secret
}

/** The comments' texts in the order they first arrived, and every arrival verified with `secret`. */
function arrivals(
  path: string,
  secret: string,
): { texts: string[]; byId: Map<string, Received[]> } {
  const byId = new Map<string, Received[]>()
  for (const r of receiver.at(path)) {
    verifyWith(secret, r)
    byId.set(r.id, [...(byId.get(r.id) ?? []), r])
  }
  return { texts: [...byId.values()].map((rs) => rs[0]!.json.data.event.text as string), byId }
}

test(
  'a service killed with SIGKILL right after writes delivers every one of them after a restart, in order',
  { timeout: 90_000 },
  async () => {
    const secret = await addWebhook('/killed')
    // Slow answers: deliveries are under way when the process dies.
    receiver.setAnswer(() => ({ status: 204, delayMs: 300 }))
    const first = await startServer()
    const texts = ['one', 'two', 'three', 'four', 'five']
    for (const text of texts) await comment(first, text)
    first.child.kill('SIGKILL')
    await first.exited
    const answeredBefore = receiver.at('/killed').length
    assert.ok(answeredBefore < texts.length, 'the process died before delivering everything')
    receiver.setAnswer(() => ({ status: 204 }))
    const second = await startServer()
    await receiver.until(() => arrivals('/killed', secret).texts.length === texts.length, 30_000)
    const { texts: got, byId } = arrivals('/killed', secret)
    assert.deepEqual(got, texts)
    // A delivery sent twice (begun before the kill, sent again after) kept its webhook-id and body.
    for (const sends of byId.values()) assert.ok(sends.every((r) => r.body === sends[0]!.body))
    second.child.kill('SIGTERM')
    await second.exited
  },
)

test(
  'two processes on one database deliver each event once, in the order of the project',
  { timeout: 90_000 },
  async () => {
    const secret = await addWebhook('/two')
    const servers = await Promise.all([startServer(), startServer()])
    const texts = Array.from({ length: 20 }, (_, i) => `comment ${i + 1}`)
    for (const [i, text] of texts.entries()) await comment(servers[i % 2]!, text)
    await receiver.until(() => arrivals('/two', secret).texts.length === texts.length, 30_000)
    // Room for a second delivery of anything, if one were coming.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const { texts: got, byId } = arrivals('/two', secret)
    assert.deepEqual(got, texts)
    assert.equal(receiver.at('/two').length, texts.length, 'no event was delivered twice')
    assert.equal(byId.size, texts.length)
  },
)
