/**
 * Due-date reminders (docs/notifications.md, "Due dates"): a ticket's assignee is told once the
 * day before its due day and once on the day (reason `due`), for a ticket not closed, in the app
 * and by mail as they chose, exactly once however many processes sweep. The clock is the test's:
 * each sweep is run at a time the test names, never waited for. Days are UTC days.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { headerText, startSmtp } from '../support/smtp.ts'
import { testClock } from '../support/service.ts'
import { ticketsApp, type Person } from './support.ts'

const smtp = await startSmtp()
after(() => smtp.stop())
const DAY = 24 * 60 * 60 * 1000
const DELAY = 120_000
/** 2026-12-07 09:00 UTC. */
const clock = testClock(Date.UTC(2026, 11, 7, 9, 0))
const app = await ticketsApp({
  env: { SMTP_URL: smtp.url },
  clock,
  mail: { start: false, random: () => 0 },
  // Only the reminders make notifications here: the fan-out of the writes does not run.
  notify: false,
  dueSweep: false,
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
const web = await app.project(alice, 'Web')
await app.member(alice, web.slug, bob, 'edit')

async function post(path: string, body: Record<string, string>, who = alice) {
  const answer = await app.call('POST', path, { token: who.token, body })
  assert.ok(answer.status === 200 || answer.status === 201, answer.text)
  return answer.body
}

/** A ticket assigned to `assignee` (or nobody), due `due` (or never). */
async function dueTicket(subject: string, due: string | null, assignee: Person | null = bob) {
  const t = await app.ticket(alice, web.slug, {
    subject,
    ...(assignee ? { assignee: assignee.name } : {}),
  })
  if (due !== null) await post(`/api/tickets/${t.id}/due`, { due })
  return t
}

/** Bob's reminders in the app: `<ref> <kind>` for each, oldest first. */
async function reminders(who = bob): Promise<string[]> {
  const list = await app.call('GET', '/api/notifications', { token: who.token })
  assert.equal(list.status, 200, list.text)
  return (list.body.notifications as { reason: string; kind: string; ticket: { ref: string } }[])
    .filter((n) => n.reason === 'due')
    .map((n) => `${n.ticket.ref} ${n.kind}`)
    .reverse()
}

/** Runs the sweep at the clock's time; answers how many reminders it claimed. */
const sweep = () => app.service.dueSweep.run()

/** Lets NOTIFY_DELAY pass and the mail sender run; answers the mails that came. */
async function mailsAfterDelay() {
  const before = smtp.mails.length
  clock.advance(DELAY)
  app.service.mail!.poke()
  await app.service.mail!.settled()
  return smtp.mails.slice(before)
}

test('the assignee is told the day before and on the day, once each, in the app and by mail', async () => {
  // 2026-12-07: web#1 is due tomorrow.
  const t = await dueTicket('Ship the release notes', '2026-12-08')
  const seen = (await reminders()).length
  assert.equal(await sweep(), 1)
  assert.equal(await sweep(), 0, 'a second sweep the same day tells nobody again')
  assert.deepEqual((await reminders()).slice(seen), [`${t.ref} due_tomorrow`])

  const list = await app.call('GET', '/api/notifications', { token: bob.token })
  const newest = list.body.notifications[0]
  assert.equal(newest.reason, 'due')
  assert.equal(newest.event, null)
  assert.deepEqual(newest.actor, { id: null, name: '' })
  assert.equal(newest.read, false)

  const [mail, ...more] = await mailsAfterDelay()
  assert.equal(more.length, 0)
  assert.deepEqual(mail!.to, ['bob@example.org'])
  assert.equal(headerText(mail!.headers.subject!), `[${t.ref}] Ship the release notes`)
  assert.match(mail!.text, new RegExp(`^${t.ref} is due tomorrow \\(2026-12-08\\)$`, 'm'))
  assert.match(mail!.text, /because a ticket assigned to you is due\./)
  assert.match(mail!.html, new RegExp(`<strong>${t.ref} is due tomorrow \\(2026-12-08\\)</strong>`))
  assert.match(mail!.headers['list-unsubscribe']!, /\.due\./)

  // The page says it in words.
  const page = await app.call('GET', '/notifications', { headers: { cookie: bob.cookie } })
  assert.match(page.text, new RegExp(`<b>${t.ref} is due tomorrow \\(2026-12-08\\)</b>`))

  // 2026-12-08: the day itself.
  clock.advance(DAY)
  assert.equal(await sweep(), 1)
  assert.equal(await sweep(), 0)
  assert.deepEqual((await reminders()).slice(seen), [`${t.ref} due_tomorrow`, `${t.ref} due_today`])
  const [today] = await mailsAfterDelay()
  assert.match(today!.text, new RegExp(`^${t.ref} is due today \\(2026-12-08\\)$`, 'm'))

  // 2026-12-09: past the day, nothing more.
  clock.advance(DAY)
  assert.equal(await sweep(), 0)
})

test('a closed ticket, an unassigned one and a due day moved or removed get no reminder for the old day', async () => {
  const tomorrow = new Date(clock.now() + DAY).toISOString().slice(0, 10)
  const later = new Date(clock.now() + 3 * DAY).toISOString().slice(0, 10)
  const seen = (await reminders()).length
  const closed = await dueTicket('Closed one', tomorrow)
  await post(`/api/tickets/${closed.id}/state`, { state: 'done' })
  const nobodys = await dueTicket('Nobody’s', tomorrow, null)
  const moved = await dueTicket('Moved one', tomorrow)
  await post(`/api/tickets/${moved.id}/due`, { due: later })
  const removed = await dueTicket('Removed one', tomorrow)
  await post(`/api/tickets/${removed.id}/due`, { due: '' })

  assert.equal(await sweep(), 0)
  assert.deepEqual((await reminders()).slice(seen), [])

  // Assigned later the same day: the next sweep tells the new assignee.
  await post(`/api/tickets/${nobodys.id}/assign`, { assignee: 'bob' })
  assert.equal(await sweep(), 1)
  assert.deepEqual((await reminders()).slice(seen), [`${nobodys.ref} due_tomorrow`])

  // The moved one is told of its new day: the day before it, and on it.
  clock.advance(2 * DAY)
  await sweep()
  await mailsAfterDelay()
  clock.advance(DAY)
  await sweep()
  assert.deepEqual(
    (await reminders()).slice(seen).filter((r) => r.startsWith(`${moved.ref} `)),
    [`${moved.ref} due_tomorrow`, `${moved.ref} due_today`],
  )
  assert.ok(!(await reminders()).some((r) => r.startsWith(`${closed.ref} `)))
  assert.ok(!(await reminders()).some((r) => r.startsWith(`${removed.ref} `)))
  await mailsAfterDelay()
})

test('two processes sweeping at once send each reminder once', async () => {
  const other = await app.another({ SMTP_URL: smtp.url }, undefined, { start: false })
  const tomorrow = new Date(clock.now() + DAY).toISOString().slice(0, 10)
  const seen = (await reminders()).length
  const made = []
  for (let i = 0; i < 12; i++) made.push(await dueTicket(`Parallel ${i}`, tomorrow))
  const claimed = await Promise.all([
    app.service.dueSweep.run(),
    other.service.dueSweep.run(),
    app.service.dueSweep.run(),
    other.service.dueSweep.run(),
  ])
  assert.equal(
    claimed.reduce((a, b) => a + b, 0),
    12,
  )
  assert.deepEqual(
    (await reminders()).slice(seen).sort(),
    made.map((t) => `${t.ref} due_tomorrow`).sort(),
  )
  const mails = await mailsAfterDelay()
  assert.equal(mails.length, 12)
  assert.equal(new Set(mails.map((m) => headerText(m.headers.subject!))).size, 12)
  for (const t of made) await post(`/api/tickets/${t.id}/state`, { state: 'done' })
})

test('due reminders have their own setting, and their mail its one-click unsubscribe', async () => {
  const shown = await app.call('GET', '/api/notifications/settings', { token: bob.token })
  assert.deepEqual(shown.body.prefs.due, { app: true, mail: true })
  assert.deepEqual(shown.body.defaults.due, { app: true, mail: true })

  // The page has a row for them.
  const page = await app.call('GET', '/settings/notifications', {
    headers: { cookie: bob.cookie },
  })
  assert.match(page.text, /Due dates<span class="hint">a ticket assigned to you is due tomorrow/)
  assert.match(page.text, /name="due_app"/)
  assert.match(page.text, /name="due_mail"/)

  // The six fields alone keep the due choice; the eight set it.
  const six = {
    assigned_app: 'true',
    assigned_mail: 'true',
    mentioned_app: 'true',
    mentioned_mail: 'true',
    watching_app: 'true',
    watching_mail: 'false',
  }
  const kept = await post('/api/notifications/settings', six, bob)
  assert.deepEqual(kept.prefs.due, { app: true, mail: true })
  const bad = await app.call('POST', '/api/notifications/settings', {
    token: bob.token,
    body: { ...six, due_app: 'no' },
  })
  assert.deepEqual(
    [bad.status, bad.body],
    [400, { error: '\'due_app\' must be "true" or "false"', field: 'due_app' }],
  )

  // A reminder mailed, and its link turns due-date mail off, not the app's.
  const tomorrow = new Date(clock.now() + DAY).toISOString().slice(0, 10)
  const t = await dueTicket('Unsubscribe me', tomorrow)
  assert.equal(await sweep(), 1)
  const [mail] = await mailsAfterDelay()
  const url = /^<([^>]+)>$/.exec(mail!.headers['list-unsubscribe']!)![1]!
  const off = await app.call('POST', new URL(url).pathname, {
    raw: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  assert.equal(off.status, 200, off.text)
  assert.match(
    off.text,
    /Mail about due dates of tickets assigned to you is turned off for <strong>bob<\/strong>/,
  )
  assert.match(off.text, /on the row <strong>Due dates<\/strong>/)
  const after = await app.call('GET', '/api/notifications/settings', { token: bob.token })
  assert.deepEqual(after.body.prefs.due, { app: true, mail: false })
  assert.deepEqual(after.body.prefs.assigned, { app: true, mail: true })

  // On the day: told in the app, not mailed.
  const seen = (await reminders()).length
  clock.advance(DAY)
  assert.equal(await sweep(), 1)
  assert.deepEqual((await reminders()).slice(seen), [`${t.ref} due_today`])
  assert.deepEqual(await mailsAfterDelay(), [])

  // The app off too: no row at all.
  await post('/api/notifications/settings', { ...six, due_app: 'false', due_mail: 'false' }, bob)
  const quiet = await dueTicket('Quiet', new Date(clock.now() + DAY).toISOString().slice(0, 10))
  assert.equal(await sweep(), 1, 'claimed, so that it is not tried again')
  assert.ok(!(await reminders()).some((r) => r.startsWith(`${quiet.ref} `)))
})
