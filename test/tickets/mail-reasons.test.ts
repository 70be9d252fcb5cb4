/**
 * Each reason produces exactly the mails expected (docs/notifications.md, "Mail"): from the
 * write, through the fan-out, to the SMTP server. Alice acts; Bob and Carol are told. Alice is
 * never mailed about what she did; Carol has no confirmed address and is never mailed.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { headerText, startSmtp } from '../support/smtp.ts'
import { ticketsApp, type Person } from './support.ts'

const smtp = await startSmtp()
after(() => smtp.stop())
const DELAY = 120_000
const app = await ticketsApp({
  env: { SMTP_URL: smtp.url },
  mail: { start: false, random: () => 0 },
})

async function person(name: string, email: string | null): Promise<Person> {
  const p = await app.login(name, `idp-${name}`)
  if (email !== null) {
    const code = app.idp.code({ id: `idp-${name}`, name, email })
    assert.equal((await app.call('GET', `/login/callback?idp_code=${code}`)).status, 302)
  }
  return p
}
const alice = await person('alice', 'alice@example.org')
const bob = await person('bob', 'bob@example.org')
const carol = await person('carol', null)
const demo = await app.project(alice, 'Web')
await app.member(alice, demo.slug, bob, 'edit')
await app.member(alice, demo.slug, carol, 'edit')

/** Lets the fan-out run, the delay pass, and the sender run; answers the mails that came. */
async function mailsAfter(write: () => Promise<void>) {
  const before = smtp.mails.length
  await write()
  app.service.notify.poke()
  await app.service.notify.settled()
  app.clock.advance(DELAY)
  app.service.mail!.poke()
  await app.service.mail!.settled()
  return smtp.mails.slice(before)
}

async function post(path: string, body: Record<string, string>, who = alice) {
  const answer = await app.call('POST', path, { token: who.token, body })
  assert.ok(answer.status === 200 || answer.status === 201, answer.text)
  return answer.body
}

test('assigning a ticket mails the assignee, and taking it away mails them again', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'Fix the footer' })
  const assigned = await mailsAfter(() => post(`/api/tickets/${t.id}/assign`, { assignee: 'bob' }))
  assert.deepEqual(
    assigned.map((m) => [m.to[0], headerText(m.headers.subject!)]),
    [['bob@example.org', `[${demo.slug}#${t.number}] Fix the footer`]],
  )
  assert.match(assigned[0]!.text, /alice assigned bob/)
  assert.match(assigned[0]!.headers['list-unsubscribe']!, /\.assigned\./)

  const taken = await mailsAfter(() => post(`/api/tickets/${t.id}/assign`, { assignee: '' }))
  assert.deepEqual(
    taken.map((m) => m.to[0]),
    ['bob@example.org'],
  )
  assert.match(taken[0]!.text, /alice unassigned bob/)
})

test('a mention mails the person mentioned, and not the one with no confirmed address', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'Copy review' })
  const mails = await mailsAfter(() =>
    post(`/api/tickets/${t.id}/comments`, { text: 'Could @bob and @carol read this?' }),
  )
  assert.deepEqual(
    mails.map((m) => m.to[0]),
    ['bob@example.org'],
  )
  assert.match(mails[0]!.text, /alice commented/)
  assert.match(mails[0]!.text, /Could @bob and @carol read this\?/)
  assert.match(mails[0]!.headers['list-unsubscribe']!, /\.mentioned\./)
})

test('activity on a watched ticket is mailed only to a person who asked for mail about it', async () => {
  const t = await app.ticket(bob, demo.slug, { subject: 'Bob watches this' })
  // By default watched activity is told in the app only.
  const quiet = await mailsAfter(() =>
    post(`/api/tickets/${t.id}/comments`, { text: 'A first look.' }),
  )
  assert.deepEqual(quiet, [])

  await app.sql`
    insert into notification_prefs (user_id, reason, app, mail) values (${bob.id}, 'watching', true, true)
    on conflict (user_id, reason) do update set mail = true`
  const mails = await mailsAfter(async () => {
    await post(`/api/tickets/${t.id}/comments`, { text: 'A second look.' })
    await post(`/api/tickets/${t.id}/state`, { state: 'doing' })
  })
  assert.deepEqual(
    mails.map((m) => m.to[0]),
    ['bob@example.org'],
    'one mail for both events',
  )
  assert.ok(mails[0]!.text.indexOf('A second look.') < mails[0]!.text.indexOf('changed the state'))
  assert.match(mails[0]!.headers['list-unsubscribe']!, /\.watching\./)
})

test('nobody is mailed about what they did themselves', async () => {
  const t = await app.ticket(bob, demo.slug, { subject: 'Own work' })
  const mails = await mailsAfter(async () => {
    await post(`/api/tickets/${t.id}/comments`, { text: 'Noting this for myself, @bob.' }, bob)
    await post(`/api/tickets/${t.id}/assign`, { assignee: 'bob' }, bob)
  })
  assert.deepEqual(mails, [])
  assert.equal(smtp.mails.filter((m) => m.to.includes('alice@example.org')).length, 0)
})
