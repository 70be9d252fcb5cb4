// Test tier: faults: it starts processes of its own (test/run.ts).
/**
 * Two whole applications on one database, as behind a load balancer, both with `SMTP_URL`: the
 * writes land on either, each process fans out and sends mail, and every notification mail
 * reaches the SMTP server exactly once.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { testDatabase } from '../support/db.ts'
import { startSmtp } from '../support/smtp.ts'
import { startCommand } from '../support/start-command.ts'

const db = await testDatabase()
const smtp = await startSmtp()
after(() => smtp.stop())
const APP = fileURLToPath(new URL('../support/app-process.ts', import.meta.url))

async function startProcess(): Promise<{ tickets: string }> {
  const child = spawn(process.execPath, startCommand(APP), {
    env: { ...process.env, APP_SCHEMA: db.schema, APP_SMTP_URL: smtp.url, APP_NOTIFY_DELAY: '1' },
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

const [a, b] = await Promise.all([startProcess(), startProcess()])

/** Signs `name` in on the tracker at `base` through the development provider; answers a token. */
async function token(base: string, name: string): Promise<string> {
  const start = await fetch(`${base}/login?next=/`, { redirect: 'manual' })
  const atProvider = new URL(start.headers.get('location')!)
  atProvider.searchParams.set('name', name)
  const fromProvider = await fetch(atProvider, { redirect: 'manual' })
  const back = new URL(fromProvider.headers.get('location')!)
  const res = await fetch(new URL(`${back.pathname}${back.search}`, base), { redirect: 'manual' })
  // Said in full when it fails: once in a loaded run the return set no cookie.
  const set = res.headers.getSetCookie()[0]
  assert.ok(
    set,
    `no session cookie: ${res.status} ${res.headers.get('location')} ${await res.text()}`,
  )
  const cookie = set.split(';')[0]!
  const me = await (await fetch(`${base}/api/me`, { headers: { cookie } })).json()
  const made = await fetch(`${base}/api/tokens`, {
    method: 'POST',
    headers: { cookie, 'x-tag': me.tag, 'content-type': 'application/json' },
    body: JSON.stringify({ label: 'test' }),
  })
  assert.equal(made.status, 201)
  return (await made.json()).token
}

async function post(base: string, who: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${who}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  assert.ok(res.status === 200 || res.status === 201, await res.clone().text())
  return res.json()
}

test('two processes with SMTP_URL on one database mail each notification once', async () => {
  const alice = await token(a.tickets, 'alice')
  await token(b.tickets, 'bob')
  // The address the provider would give Bob (the development provider gives none).
  await db.sql`update users set email = 'bob@example.org' where name = 'bob'`
  const { project } = await post(a.tickets, alice, '/api/projects', { title: 'Both' })
  await post(a.tickets, alice, `/api/projects/${project.slug}/members`, {
    user: 'bob',
    role: 'edit',
  })
  const COUNT = 8
  for (let i = 0; i < COUNT; i++) {
    const base = i % 2 === 0 ? a.tickets : b.tickets
    const { ticket } = await post(base, alice, `/api/projects/${project.slug}/tickets`, {
      subject: `Ticket ${i}`,
    })
    await post(base, alice, `/api/tickets/${ticket.id}/comments`, { text: `@bob see ${i}` })
  }
  await smtp.waitFor(COUNT, 60_000)
  // Until nothing waits to be mailed or fanned out, so that a second send would have happened.
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    const [row] = await db.sql`
      select (select count(*)::int from mail_outbox where state = 'pending')
           + (select count(*)::int from notifications where mail_state = 'pending') as n`
    if (row!.n === 0) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  assert.equal(smtp.mails.length, COUNT)
  assert.equal(new Set(smtp.mails.map((m) => m.headers['message-id'])).size, COUNT)
  for (let i = 0; i < COUNT; i++)
    assert.equal(smtp.mails.filter((m) => m.text.includes(`@bob see ${i}`)).length, 1)
})

test('comments written on both processes at once tell every watcher of each once, and mail each once', async () => {
  const alice = await token(a.tickets, 'alice')
  const watchers = ['wes', 'wyn', 'wil', 'wan']
  for (const [i, name] of watchers.entries()) await token(i % 2 === 0 ? a.tickets : b.tickets, name)
  await db.sql`update users set email = name || '@example.org' where name in ${db.sql(watchers)}`
  // Every watcher wants mail of what they watch too.
  await db.sql`
    insert into notification_prefs (user_id, reason, app, mail)
    select id, 'watching', true, true from users where name in ${db.sql(watchers)}`
  const { project } = await post(a.tickets, alice, '/api/projects', { title: 'Watched by four' })
  const { ticket } = await post(a.tickets, alice, `/api/projects/${project.slug}/tickets`, {
    subject: 'Busy ticket',
  })
  await db.sql`
    insert into watches (ticket_id, user_id, watching, at)
    select ${ticket.id}, id, true, 0 from users where name in ${db.sql(watchers)}`
  const before = smtp.mails.length
  const COMMENTS = 12
  await Promise.all(
    Array.from({ length: COMMENTS }, (_, i) =>
      post(i % 2 === 0 ? a.tickets : b.tickets, alice, `/api/tickets/${ticket.id}/comments`, {
        text: `busy comment ${i}.`,
      }),
    ),
  )
  // Until every comment is fanned out and nothing waits to be mailed (a busy machine is slow).
  // Only the comments count: the ticket's creation may be fanned out after the watches were
  // added above, and then tells them too.
  let settled = false
  for (const end = Date.now() + 180_000; !settled && Date.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    const [row] = await db.sql<{ told: number; waiting: number }[]>`
      select (select count(*)::int from notifications n join ticket_events e on e.id = n.event_id
              where n.ticket_id = ${ticket.id} and e.kind = 'comment') as told,
             (select count(*)::int from mail_outbox where state = 'pending')
           + (select count(*)::int from notifications where mail_state = 'pending') as waiting`
    settled = row!.told === COMMENTS * watchers.length && row!.waiting === 0
  }
  assert.ok(settled, 'the comments were not all fanned out and mailed within 3 minutes')
  const told = await db.sql<{ name: string; text: string; n: number }[]>`
    select u.name, e.data->>'text' as text, count(*)::int as n
    from notifications n join users u on u.id = n.user_id join ticket_events e on e.id = n.event_id
    where n.ticket_id = ${ticket.id} and e.kind = 'comment' group by u.name, e.data->>'text'`
  assert.equal(told.length, COMMENTS * watchers.length, 'a watcher was not told of a comment')
  assert.ok(
    told.every((t) => t.n === 1),
    'a watcher was told of a comment twice',
  )
  const mails = smtp.mails.slice(before)
  assert.equal(new Set(mails.map((m) => m.headers['message-id'])).size, mails.length)
  for (const name of watchers)
    for (let i = 0; i < COMMENTS; i++) {
      const carrying = mails.filter(
        (m) => m.to.includes(`${name}@example.org`) && m.text.includes(`busy comment ${i}.`),
      )
      assert.equal(carrying.length, 1, `${name} got comment ${i} in ${carrying.length} mails`)
    }
})
