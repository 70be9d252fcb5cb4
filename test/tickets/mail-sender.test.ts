/**
 * The notification mail sender (src/tickets/workers/mail-worker.ts) against a real SMTP server:
 * batching within NOTIFY_DELAY, what a mail holds, threading headers, the one-click
 * unsubscribe by POST with no cookie, no mail without a confirmed address or after a read,
 * a refused recipient, retries, and two senders on one database sending each mail once. The
 * notifications are written as the fan-out writes them (one row per person and event, mail
 * 'pending'); the clock is the test's, so the delay is exact.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { ticketsAccountHooks } from '../../src/tickets/account-hooks.ts'
import { headerText, startSmtp, type ReceivedMail } from '../support/smtp.ts'
import { ticketsApp, type Person } from './support.ts'

const smtp = await startSmtp()
after(() => smtp.stop())
const DELAY = 120_000
const MAIL = { start: false, retryBaseMs: 1000, random: () => 0 }
// The notifications are written here, so the fan-out does not run.
const app = await ticketsApp({ env: { SMTP_URL: smtp.url }, mail: MAIL, notify: false })
const sender = app.service.mail!
const hooks = ticketsAccountHooks({ sql: app.sql, clock: app.clock.now, publicUrl: null })

/** Signs `name` in with a confirmed address given by the provider's exchange. */
async function person(name: string, email: string | null): Promise<Person> {
  const idpId = `idp-${name}`
  const p = await app.login(name, idpId)
  if (email !== null) {
    const back = await app.call(
      'GET',
      `/login/callback?idp_code=${app.idp.code({ id: idpId, name, email })}`,
    )
    assert.equal(back.status, 302)
  }
  return p
}

const alice = await person('alice', 'alice@example.org')
const bob = await person('bob', 'bob@example.org')
const carol = await person('carol', null)
const demo = await app.project(alice, 'Demo')
await app.member(alice, demo.slug, bob, 'edit')
await app.member(alice, demo.slug, carol, 'edit')
// Bob wants mail about tickets he watches too (by default only the app tells of those).
await app.sql`
  insert into notification_prefs (user_id, reason, app, mail)
  values (${bob.id}, 'watching', true, true)`

/** A comment by `who` on ticket `id`, and a notification of it for `to` with `reason`. */
async function comment(
  who: Person,
  id: string,
  text: string,
  to: Person,
  reason = 'watching',
): Promise<number> {
  const made = await app.call('POST', `/api/tickets/${id}/comments`, {
    token: who.token,
    body: { text },
  })
  assert.equal(made.status, 201, made.text)
  await app.sql`
    insert into notifications (user_id, ticket_id, event_id, kind, reason, actor_id, actor, at, in_app, mail_state)
    values (${to.id}, ${id}, ${made.body.event.id}, 'comment', ${reason}, ${who.id}, ${who.name}, ${app.clock.now()}, true, 'pending')`
  return made.body.event.id as number
}

async function round(): Promise<void> {
  sender.poke()
  await sender.settled()
}

const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address))

test('the events on a ticket within NOTIFY_DELAY of the first become one mail, sent that long after the first', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'Login page is slow' })
  await comment(alice, t.id, 'First look: the query has no index.', bob)
  app.clock.advance(60_000)
  await comment(alice, t.id, 'Second: <b>adding</b> one & measuring.', bob)
  app.clock.advance(DELAY - 60_000 - 1)
  await round()
  assert.equal(mailsTo('bob@example.org').length, 0, 'nothing before the delay is over')
  app.clock.advance(1)
  await round()
  const [mail] = mailsTo('bob@example.org')
  assert.ok(mail)
  assert.equal(mailsTo('bob@example.org').length, 1)
  assert.equal(headerText(mail.headers.subject!), `[${demo.slug}#${t.number}] Login page is slow`)
  assert.equal(mail.headers.from, 'notifications@localhost')
  const first = mail.text.indexOf('alice commented')
  const second = mail.text.indexOf('alice commented', first + 1)
  assert.ok(first >= 0 && second > first, mail.text)
  assert.ok(
    mail.text.indexOf('First look') < mail.text.indexOf('Second: <b>adding</b> one & measuring.'),
  )
  assert.match(mail.text, new RegExp(`http://localhost:3002/${demo.slug}/${t.number}`))
  // The HTML part escapes what people wrote.
  assert.match(mail.html, /Second: &lt;b&gt;adding&lt;\/b&gt; one &amp; measuring\./)
  assert.doesNotMatch(mail.html, /<b>adding/)
  assert.match(mail.html, new RegExp(`href="http://localhost:3002/${demo.slug}/${t.number}"`))

  // An event after the batch was mailed starts the next one.
  await comment(alice, t.id, 'Third: fixed.', bob)
  await round()
  assert.equal(mailsTo('bob@example.org').length, 1)
  app.clock.advance(DELAY)
  await round()
  assert.equal(mailsTo('bob@example.org').length, 2)
  assert.match(mailsTo('bob@example.org')[1]!.text, /Third: fixed\./)
  assert.doesNotMatch(mailsTo('bob@example.org')[1]!.text, /First look/)
})

test("one ticket's mails share In-Reply-To and References, each with its own Message-ID; another ticket's thread apart", async () => {
  const [one, two] = mailsTo('bob@example.org') as [ReceivedMail, ReceivedMail]
  assert.match(one.headers['message-id']!, /^<[^<>@\s]+@localhost>$/)
  assert.notEqual(one.headers['message-id'], two.headers['message-id'])
  assert.match(one.headers['in-reply-to']!, /^<ticket\.[^<>@\s]+@localhost>$/)
  assert.equal(one.headers['in-reply-to'], two.headers['in-reply-to'])
  assert.equal(one.headers.references, one.headers['in-reply-to'])
  assert.equal(two.headers.references, one.headers['in-reply-to'])
  assert.equal(one.headers['auto-submitted'], 'auto-generated')

  const other = await app.ticket(alice, demo.slug, { subject: 'Another' })
  await comment(alice, other.id, 'Elsewhere.', bob)
  app.clock.advance(DELAY)
  await round()
  const third = mailsTo('bob@example.org')[2]!
  assert.notEqual(third.headers['in-reply-to'], one.headers['in-reply-to'])
})

test('every mail offers the one-click unsubscribe; a POST with no cookie turns that kind of mail off at once', async () => {
  const mail = mailsTo('bob@example.org')[0]!
  assert.equal(mail.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click')
  const url = /^<(http:\/\/localhost:3002\/unsubscribe\/[^>]+)>$/.exec(
    mail.headers['list-unsubscribe']!,
  )?.[1]
  assert.ok(url, mail.headers['list-unsubscribe'])
  const path = new URL(url).pathname

  // A pending notification of that kind, and one of another kind.
  const t = await app.ticket(alice, demo.slug, { subject: 'Quiet please' })
  await comment(alice, t.id, 'Watched activity.', bob, 'watching')
  await comment(alice, t.id, '@bob have a look', bob, 'mentioned')

  // Opening the link shows a button and changes nothing.
  const shown = await app.call('GET', path)
  assert.equal(shown.status, 200)
  assert.match(shown.text, /Turn off mail about tickets you watch for <strong>bob<\/strong>\?/)
  assert.match(shown.text, /<button type="submit" class="primary">Turn off this mail<\/button>/)

  // What a mail client sends (RFC 8058): a POST, no cookie, the token in the address.
  const off = await app.call('POST', path, {
    raw: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  assert.equal(off.status, 200, off.text)
  assert.match(off.text, /Mail about tickets you watch is turned off for <strong>bob<\/strong>/)
  assert.match(off.text, /href="http:\/\/localhost:3002\/settings\/notifications"/)
  assert.match(
    off.text,
    /tick <strong>By mail<\/strong> on the row <strong>Watched activity<\/strong>/,
  )
  const [pref] = await app.sql`
    select app, mail from notification_prefs where user_id = ${bob.id} and reason = 'watching'`
  assert.equal(pref!.mail, false)

  const before = mailsTo('bob@example.org').length
  app.clock.advance(DELAY)
  await round()
  const now = mailsTo('bob@example.org')
  assert.equal(now.length, before + 1, 'only the mention is mailed')
  assert.match(now.at(-1)!.text, /@bob have a look/)
  assert.doesNotMatch(now.at(-1)!.text, /Watched activity/)
  // The mention's own link turns off mentions, not the kind already off.
  assert.match(now.at(-1)!.headers['list-unsubscribe']!, /\.mentioned\./)
})

test('an unsubscribe link the tracker did not make changes nothing', async () => {
  for (const token of [
    `${bob.id}.assigned.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
    'x',
    `${bob.id}.all.x`,
  ]) {
    const answer = await app.call('POST', `/unsubscribe/${token}`, { raw: '' })
    assert.equal(answer.status, 404)
    assert.match(answer.text, /This unsubscribe link is not one this tracker made/)
  }
  const rows =
    await app.sql`select reason from notification_prefs where user_id = ${bob.id} and not mail`
  assert.deepEqual(
    rows.map((r) => r.reason),
    ['watching'],
  )
})

test('a person with no confirmed address gets no mail, and a notification read in the app before the mail goes is not mailed', async () => {
  const t = await app.ticket(bob, demo.slug, { subject: 'For carol' })
  await comment(bob, t.id, 'Carol, see this.', carol, 'mentioned')
  await comment(bob, t.id, 'Alice, see this.', alice, 'mentioned')
  // Alice reads it in the app first.
  await app.sql`update notifications set read_at = ${app.clock.now()} where user_id = ${alice.id} and ticket_id = ${t.id}`
  const before = smtp.mails.length
  app.clock.advance(DELAY)
  await round()
  assert.equal(smtp.mails.length, before)
  const states = await app.sql`
    select user_id, mail_state from notifications where ticket_id = ${t.id} order by user_id`
  assert.deepEqual(
    states.map((r) => r.mail_state),
    ['cancelled', 'cancelled'],
  )
})

test('a recipient refused at RCPT stops mail to that address until it is confirmed again', async () => {
  const dave = await person('dave', 'dave@example.org')
  await app.member(alice, demo.slug, dave, 'edit')
  smtp.refuse.add('dave@example.org')
  const t = await app.ticket(alice, demo.slug, { subject: 'For dave' })
  await comment(alice, t.id, 'One.', dave, 'mentioned')
  app.clock.advance(DELAY)
  await round()
  const [row] = await app.sql`select state, attempts from mail_outbox where user_id = ${dave.id}`
  assert.deepEqual({ ...row }, { state: 'refused', attempts: 1 })
  assert.equal(
    (await app.sql`select mail_refused from users where id = ${dave.id}`)[0]!.mail_refused,
    'dave@example.org',
  )
  smtp.refuse.delete('dave@example.org')
  await comment(alice, t.id, 'Two.', dave, 'mentioned')
  app.clock.advance(DELAY)
  await round()
  assert.equal(mailsTo('dave@example.org').length, 0, 'no mail while the address is stopped')

  // Confirmed again at the provider: mail goes there again.
  await app.sql.begin((tx) => hooks.onEmailChange!(tx, 'idp-dave', 'dave@example.org'))
  await comment(alice, t.id, 'Three.', dave, 'mentioned')
  app.clock.advance(DELAY)
  await round()
  assert.equal(mailsTo('dave@example.org').length, 1)
  assert.match(mailsTo('dave@example.org')[0]!.text, /Three\./)
})

test('a mail the server could not take is tried again later with the same Message-ID, and sent once', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'While down' })
  await comment(alice, t.id, 'Sent while the server is down.', bob, 'mentioned')
  await smtp.stop()
  app.clock.advance(DELAY)
  await round()
  const [waiting] = await app.sql`
    select state, attempts, next_at, message_id from mail_outbox where ticket_id = ${t.id}`
  assert.equal(waiting!.state, 'pending')
  assert.equal(waiting!.attempts, 1)
  assert.equal(Number(waiting!.next_at), app.clock.now() + 1000)
  await smtp.start()
  await round()
  assert.equal(mailsTo('bob@example.org').filter((m) => /While down/.test(m.text)).length, 0)
  app.clock.advance(1000)
  await round()
  const sent = mailsTo('bob@example.org').filter((m) =>
    /Sent while the server is down/.test(m.text),
  )
  assert.equal(sent.length, 1)
  assert.equal(sent[0]!.headers['message-id'], waiting!.message_id)
})

test('two senders on one database send each mail once', async () => {
  const second = await app.another({ SMTP_URL: smtp.url }, undefined, MAIL)
  const before = smtp.mails.length
  for (let i = 0; i < 6; i++) {
    const t = await app.ticket(alice, demo.slug, { subject: `Batch ${i}` })
    await comment(alice, t.id, `Number ${i}.`, bob, 'mentioned')
  }
  app.clock.advance(DELAY)
  for (let i = 0; i < 3; i++) {
    sender.poke()
    second.service.mail!.poke()
    await Promise.all([sender.settled(), second.service.mail!.settled()])
  }
  const fresh = smtp.mails.slice(before)
  assert.equal(fresh.length, 6)
  assert.equal(new Set(fresh.map((m) => m.headers['message-id'])).size, 6)
})

test('sent and refused mails are kept 7 days in the outbox, then pruned; pending ones stay', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'Still waiting' })
  await comment(alice, t.id, 'Kept until sent.', bob, 'mentioned')
  await smtp.stop()
  app.clock.advance(DELAY)
  await round()
  await smtp.start()
  const count = async (state: string) =>
    (await app.sql`select count(*)::int as n from mail_outbox where state = ${state}`)[0]!.n
  assert.ok((await count('sent')) > 0)
  app.clock.advance(7 * 24 * 60 * 60 * 1000 + 1)
  // The retry is long past due too: this round sends it, and prunes what was done a week ago.
  await round()
  assert.equal(await count('refused'), 0)
  assert.equal(await count('sent'), 1)
  assert.equal(await count('pending'), 0)
})
