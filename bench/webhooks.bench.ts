/**
 * Webhooks (docs/webhooks.md): how many deliveries a second one service process makes to a
 * local receiver with 1,000 webhooks across 100 projects, and what webhooks cost a write: the
 * comment route's throughput on a project with 10 webhooks against one with none, measured in
 * alternating rounds while the worker delivers (goal: at least 0.9).
 *
 * The service runs in this process on a real port (the writes go through HTTP, CONCURRENCY at
 * a time); the receiver is a bare node:http server in a child process answering 204, so its
 * work does not count against the service. `WEBHOOKS_BENCH_ROUNDS=<n>` changes the rounds (5).
 */
import { loginFailed } from '../src/auth/idp.ts'
import { createServer } from 'node:http'
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../src/config.ts'
import { serve } from '../src/http/server.ts'
import { createLogger } from '../src/base/log.ts'
import { createSessions, loadSessionSecret } from '../src/auth/session.ts'
import { createTicketsService } from '../src/tickets/service.ts'
import { createTicketStore } from '../src/tickets/store/ticket-store.ts'
import { issueToken } from '../src/tickets/api/tokens.ts'
import { storeUser } from '../src/tickets/store/users.ts'
import { benchDatabase, fmt, keepAliveClient, median } from './support.ts'

if (process.argv[2] === 'receiver') {
  // The receiver: counts deliveries, reports the count on request.
  let count = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      count++
      res.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () =>
    process.send!({ port: (server.address() as { port: number }).port }),
  )
  process.on('message', () => process.send!({ count }))
} else {
  await main()
}

async function main(): Promise<void> {
  const CONCURRENCY = 8
  const ROUNDS = Number(process.env.WEBHOOKS_BENCH_ROUNDS ?? 5)
  const PER_ROUND = 200
  const PROJECTS = 100
  const HOOKS_PER_PROJECT = 10
  const EVENTS_PER_PROJECT = 5

  const receiver = fork(fileURLToPath(import.meta.url), ['receiver'], {
    execArgv: ['--import', 'tsx'],
  })
  const port = await new Promise<number>((resolve) =>
    receiver.once('message', (m: { port: number }) => resolve(m.port)),
  )
  const received = () =>
    new Promise<number>((resolve) => {
      receiver.once('message', (m: { count: number }) => resolve(m.count))
      receiver.send('count')
    })

  const database = await benchDatabase(10)
  const { sql } = database
  const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE: '1' })
  const logger = createLogger(null)
  const secret = await loadSessionSecret(sql, null)
  const sessions = createSessions({
    sql,
    secret,
    service: 'tickets',
    secure: false,
    clock: Date.now,
  })
  const idp = {
    loginUrl: (r: string) => `http://idp.invalid/login?return=${encodeURIComponent(r)}`,
    exchange: async () => loginFailed('not in the bench'),
    signOut: async () => false,
  }
  const service = createTicketsService({
    sql,
    config,
    clock: Date.now,
    idp,
    sessions,
    logger,
    publicUrl: 'http://localhost:3002',
    webhooks: { intervalMs: 200, start: false },
  })
  const server = await serve({
    name: 'tickets',
    routes: service.routes,
    host: '127.0.0.1',
    port: 0,
    logger,
  })
  const client = keepAliveClient(server.url, CONCURRENCY)

  const user = await storeUser(sql, { id: 'bench-user', name: 'bench' }, Date.now())
  const { token } = await issueToken(createTicketStore({ sql, clock: Date.now }), user.id, 'bench')
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const post = async (path: string, body: unknown, status: number) => {
    const res = await client.call('POST', path, auth, JSON.stringify(body))
    if (res.status !== status) throw new Error(`${path}: ${res.status} ${res.text}`)
    return JSON.parse(res.text)
  }
  const hook = (slug: string, path: string) =>
    post(`/api/projects/${slug}/webhooks`, { url: `http://127.0.0.1:${port}/${path}` }, 201)

  /** Runs `fn` `count` times, CONCURRENCY at a time. */
  async function many(count: number, fn: (i: number) => Promise<unknown>): Promise<void> {
    let next = 0
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) await fn(next++)
      }),
    )
  }

  // 1. Deliveries a second: 100 projects with 10 webhooks each, 5 tickets made in each project
  // while the worker is stopped; then it starts, and the time to deliver all is measured.
  for (let p = 0; p < PROJECTS; p++) {
    await post('/api/projects', { title: `Project ${p}`, slug: `p${p}` }, 201)
    for (let h = 0; h < HOOKS_PER_PROJECT; h++) await hook(`p${p}`, `p${p}/${h}`)
  }
  await many(PROJECTS * EVENTS_PER_PROJECT, (i) =>
    post(`/api/projects/p${i % PROJECTS}/tickets`, { subject: `Ticket ${i}` }, 201),
  )
  const expected = PROJECTS * HOOKS_PER_PROJECT * EVENTS_PER_PROJECT
  const started = performance.now()
  service.webhooks.start()
  while ((await received()) < expected) await new Promise((resolve) => setTimeout(resolve, 20))
  const seconds = (performance.now() - started) / 1000
  await service.webhooks.settled()
  console.log(`database: ${database.kind}`)
  console.log(
    `deliveries: ${expected} (${EVENTS_PER_PROJECT} events each to ${PROJECTS * HOOKS_PER_PROJECT} webhooks in ${PROJECTS} projects) in ${fmt(seconds, 2)} s: ${fmt(expected / seconds)} a second`,
  )

  // 2. A write with 10 webhooks on its project against none, in alternating rounds.
  await post('/api/projects', { title: 'Hooked', slug: 'hooked' }, 201)
  await post('/api/projects', { title: 'Plain', slug: 'plain' }, 201)
  for (let h = 0; h < 10; h++) await hook('hooked', `hooked/${h}`)
  const hooked = await post('/api/projects/hooked/tickets', { subject: 'Commented on' }, 201)
  const plain = await post('/api/projects/plain/tickets', { subject: 'Commented on' }, 201)
  const rate = async (slug: string, number: number) => {
    const t0 = performance.now()
    await many(PER_ROUND, (i) =>
      post(`/api/projects/${slug}/tickets/${number}/comments`, { text: `comment ${i}` }, 201),
    )
    return PER_ROUND / ((performance.now() - t0) / 1000)
  }
  await rate('plain', plain.ticket.number)
  await rate('hooked', hooked.ticket.number)
  const ratios: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const none = await rate('plain', plain.ticket.number)
    const ten = await rate('hooked', hooked.ticket.number)
    ratios.push(ten / none)
    console.log(
      `round ${r + 1}: ${fmt(none)} comments/s without webhooks, ${fmt(ten)} with 10: × ${fmt(ten / none, 2)}`,
    )
  }
  console.log(
    `comments with 10 webhooks / without: median × ${fmt(median(ratios), 2)} (goal ≥ 0.9)`,
  )

  client.close?.()
  await server.close()
  await service.close?.()
  receiver.kill()
  await database.close()
}
