// Test tier: faults
/**
 * The mail server down for 30 seconds (MAIL_OUTAGE_SECONDS shortens it for a quick look; CI
 * runs the 30): writes go on answering, no notification mail is lost and none is sent twice
 * once the server is back. The sender runs on the real clock, as in production, with
 * NOTIFY_DELAY=1 and retries from 1 s doubling.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { startSmtp } from '../support/smtp.ts'
import { ticketsApp, type Person } from './support.ts'

const OUTAGE_MS = Number(process.env.MAIL_OUTAGE_SECONDS ?? 30) * 1000
const smtp = await startSmtp()
after(() => smtp.stop())
const app = await ticketsApp({
  env: { SMTP_URL: smtp.url, NOTIFY_DELAY: '1' },
  clock: { now: () => Date.now(), advance: () => {} },
  mail: { intervalMs: 200, retryBaseMs: 1000 },
})

async function person(name: string, email: string): Promise<Person> {
  const p = await app.login(name, `idp-${name}`)
  const code = app.idp.code({ id: `idp-${name}`, name, email })
  assert.equal((await app.call('GET', `/login/callback?idp_code=${code}`)).status, 302)
  return p
}
const alice = await person('alice', 'alice@example.org')
const bob = await person('bob', 'bob@example.org')
const demo = await app.project(alice, 'Demo')
await app.member(alice, demo.slug, bob, 'edit')

/** A comment by alice mentioning bob: the fan-out tells bob, by mail. */
async function mention(ticketId: string, text: string): Promise<void> {
  const made = await app.call('POST', `/api/tickets/${ticketId}/comments`, {
    token: alice.token,
    body: { text },
  })
  assert.equal(made.status, 201, 'a write succeeds while the mail server is down')
}

/** Resolves once `check` answers true, polling the database. */
async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('the condition never held')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

test(`the mail server down for ${OUTAGE_MS / 1000} s: writes go on, no mail is lost and none is sent twice`, async () => {
  await smtp.stop()
  const down = Date.now()
  const texts: string[] = []
  const tickets = []
  for (let i = 0; i < 3; i++) {
    const t = await app.ticket(alice, demo.slug, { subject: `Outage ${i}` })
    tickets.push(t)
    for (const part of ['one', 'two']) {
      const text = `@bob part ${part} of ticket ${i}`
      texts.push(text)
      await mention(t.id, text)
    }
    // The next ticket's events come a third of the way further into the outage.
    if (i < 2) await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS / 3))
  }
  // Every mail was composed and tried while the server was down.
  await until(async () => {
    const [row] = await app.sql`
      select count(*)::int as n from mail_outbox where user_id = ${bob.id} and attempts >= 1 and state = 'pending'`
    return row!.n === 3
  })
  assert.equal(smtp.mails.length, 0)
  // The rest of the outage, then the server is back.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, down + OUTAGE_MS - Date.now())))
  await smtp.start()
  await smtp.waitFor(3, 60_000)
  await until(async () => {
    const [row] = await app.sql`select count(*)::int as n from mail_outbox where state = 'pending'`
    return row!.n === 0
  })
  const mails = smtp.mails.filter((m) => m.to.includes('bob@example.org'))
  assert.equal(mails.length, 3)
  assert.equal(new Set(mails.map((m) => m.headers['message-id'])).size, 3)
  for (const text of texts)
    assert.equal(mails.filter((m) => m.text.includes(text)).length, 1, `${text} mailed once`)
  const [sent] = await app.sql`select count(*)::int as n from mail_outbox where state = 'sent'`
  assert.equal(sent!.n, 3)
})
