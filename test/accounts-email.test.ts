/**
 * Mail addresses at the built-in provider (docs/notifications.md, "Mail addresses"): the Email
 * field of `/account`, the link mailed to confirm a new address, what the exchange and the
 * tracker learn, removing it, and "Forgot password?" mailing a reset link. A real SMTP server
 * takes the mails.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHandler } from '../src/http/handler.ts'
import { makeRequest } from '../src/http/request.ts'
import { bodyText } from '../src/http/response.ts'
import { createAccountsProvider } from '../src/accounts/provider.ts'
import { TEXT } from '../src/accounts/messages.ts'
import { createMailer } from '../src/tickets/mailer/mailer.ts'
import { testLogger } from './support/service.ts'
import { startSmtp } from './support/smtp.ts'
import { ticketsApp } from './tickets/support.ts'
import { formBrowser, IDP, providerDeps, TICKETS, type Answer } from './support/accounts.ts'

const RETURN = `${TICKETS}/login/callback`

const smtp = await startSmtp()
after(() => smtp.stop())
const tickets = await ticketsApp()
const { sql, clock } = tickets
const SECRET = new Uint8Array(32).fill(5)
const mailer = createMailer(smtp.url, 'notifications@localhost', testLogger())
after(() => mailer.close())
const provider = createAccountsProvider(
  providerDeps(sql, clock.now, SECRET, {
    mailer,
    // A cheap hash: these tests are about mail, not scrypt's cost.
    passwordCost: { N: 1 << 10, r: 8, p: 1 },
  }),
)
const handler = createHandler(provider.routes, { name: 'idp', logger: testLogger() })

/** A browser: keeps its cookies, reads each page's form token, comes from `address`. */
const browser = (address: string) => formBrowser(handler, address)

const login = `/login?return=${encodeURIComponent(RETURN)}`

/** What the exchange tells a service of the account that just signed in. */
async function exchanged(answer: Answer): Promise<Record<string, unknown>> {
  assert.equal(answer.status, 303, answer.text)
  const code = new URL(String(answer.headers.location)).searchParams.get('idp_code')!
  const response = await handler(
    makeRequest({
      method: 'POST',
      url: '/api/exchange',
      body: JSON.stringify({ key: 'dev-key', secret: 'dev-secret', code }),
    }),
  )
  assert.equal(response.status, 200)
  return JSON.parse(await bodyText(response.body))
}

/** The link of the newest mail to `to` whose path is `path`. */
function linkIn(to: string, path: string): string {
  const mail = [...smtp.mails].reverse().find((m) => m.to.includes(to))
  assert.ok(mail, `a mail to ${to}`)
  const found = new RegExp(`${IDP}${path}\\?link=([A-Za-z0-9_-]+)`).exec(mail.text)
  assert.ok(found, mail.text)
  return found[1]!
}

const olivia = browser('10.1.0.1')
await olivia.get(login)
const first = await exchanged(
  await olivia.post('/setup', { return: RETURN, name: 'Olivia', password: 'owner password' }),
)
const oliviaId = String(first.id)
// Olivia uses the tracker before she gives an address.
await tickets.login('Olivia', oliviaId)
const trackerEmail = async () =>
  (await sql`select email, mail_refused from users where idp_id = ${oliviaId}`)[0]!

test('a new address is confirmed only by the link mailed to it; then the tracker mails it without a new sign-in', async () => {
  assert.equal(first.email, undefined)
  const page = await olivia.get('/account')
  assert.match(page.text, /<label for="email">Email<\/label>/)
  assert.match(page.text, /No confirmed address: the apps send you no mail\./)

  const bad = await olivia.post('/account/email', { email: 'olivia at home' })
  assert.equal(bad.status, 400)
  assert.match(bad.text, new RegExp(TEXT.emailInvalid))

  const saved = await olivia.post('/account/email', { email: 'olivia@example.org' })
  assert.equal(saved.status, 303)
  const [mail] = await smtp.waitFor(1)
  assert.deepEqual(mail!.to, ['olivia@example.org'])
  assert.equal(mail!.headers.subject, 'Confirm your email address')
  assert.equal(mail!.headers.from, 'notifications@localhost')
  const waiting = await olivia.get(String(saved.headers.location))
  assert.match(waiting.text, /A link to confirm the address is on its way there/)
  assert.match(waiting.text, /A link to confirm <strong>olivia@example.org<\/strong> is on its way/)
  assert.equal((await trackerEmail()).email, null)

  // Opening the link (in any browser, a mail scanner too) confirms nothing by itself.
  const link = linkIn('olivia@example.org', '/account/email/confirm')
  const phone = browser('10.1.0.2')
  const confirmPage = await phone.get(`/account/email/confirm?link=${link}`)
  assert.equal(confirmPage.status, 200)
  assert.match(confirmPage.text, /Confirm <strong>olivia@example.org<\/strong>/)
  assert.equal((await trackerEmail()).email, null)

  const confirmed = await phone.post('/account/email/confirm', { link })
  assert.equal(confirmed.status, 200)
  assert.match(confirmed.text, /olivia@example.org is confirmed/)
  assert.equal((await trackerEmail()).email, 'olivia@example.org')
  assert.match(
    (await olivia.get('/account')).text,
    /Mail goes to <strong>olivia@example.org<\/strong>, a confirmed address\./,
  )
  // The link works once.
  assert.equal((await phone.post('/account/email/confirm', { link })).status, 404)

  // The exchange now carries it, so a tracker that never saw the hook learns it at sign-in.
  const again = browser('10.1.0.3')
  await again.get(login)
  const identity = await exchanged(
    await again.post('/login', { return: RETURN, name: 'Olivia', password: 'owner password' }),
  )
  assert.equal(identity.email, 'olivia@example.org')
})

test('a confirmation link expires after 24 hours, and a newer one replaces it', async () => {
  await olivia.post('/account/email', { email: 'old@example.org' })
  await smtp.waitFor(2)
  const older = linkIn('old@example.org', '/account/email/confirm')
  await olivia.post('/account/email', { email: 'new@example.org' })
  await smtp.waitFor(3)
  const newer = linkIn('new@example.org', '/account/email/confirm')
  assert.equal((await olivia.get(`/account/email/confirm?link=${older}`)).status, 404)
  clock.advance(24 * 60 * 60 * 1000 + 1)
  assert.equal((await olivia.get(`/account/email/confirm?link=${newer}`)).status, 404)
  assert.equal((await trackerEmail()).email, 'olivia@example.org')
})

test('confirming an address again lifts the stop a refused recipient put on it', async () => {
  await sql`update users set mail_refused = 'olivia@example.org' where idp_id = ${oliviaId}`
  const page = await olivia.get('/account')
  assert.match(
    page.text,
    /A mail server refused mail to <strong>olivia@example.org<\/strong>, so none goes there\./,
  )
  assert.match(page.text, /Confirm again<\/button>/)
  await olivia.post('/account/email', { email: 'olivia@example.org' })
  await smtp.waitFor(4)
  const link = linkIn('olivia@example.org', '/account/email/confirm')
  await olivia.get(`/account/email/confirm?link=${link}`)
  assert.equal((await olivia.post('/account/email/confirm', { link })).status, 200)
  assert.match((await olivia.get('/account')).text, /Mail goes to <strong>olivia@example.org/)
  assert.deepEqual(
    { ...(await trackerEmail()) },
    { email: 'olivia@example.org', mail_refused: null },
  )
})

test('Forgot password? mails a reset link to the confirmed address, and answers the same for a name without one', async () => {
  const visitor = browser('10.1.0.9')
  const form = await visitor.get(`/forgot?return=${encodeURIComponent(RETURN)}`)
  assert.equal(form.status, 200)
  assert.match(form.text, /<label for="who">Name or email<\/label>/)
  const before = smtp.mails.length
  const sent = await visitor.post('/forgot', { return: RETURN, who: 'olivia' })
  assert.equal(sent.status, 200)
  assert.match(sent.text, /a reset link is on its way there/)
  await smtp.waitFor(before + 1)
  assert.equal(smtp.mails.at(-1)!.headers.subject, 'Reset your password')
  const link = linkIn('olivia@example.org', '/reset')
  assert.equal((await visitor.get(`/reset?link=${link}`)).status, 200)

  const byAddress = await visitor.post('/forgot', { return: RETURN, who: 'OLIVIA@example.org' })
  assert.equal(byAddress.status, 200)
  await smtp.waitFor(before + 2)

  const nobody = await visitor.post('/forgot', { return: RETURN, who: 'nobody here' })
  assert.equal(nobody.text.replace(/value="[^"]+"/g, ''), sent.text.replace(/value="[^"]+"/g, ''))
  assert.equal(smtp.mails.length, before + 2)
})

test('removing the address stops mail: the tracker and the exchange no longer have it', async () => {
  const removed = await olivia.post('/account/email/remove', {})
  assert.equal(removed.status, 303)
  assert.equal((await trackerEmail()).email, null)
  assert.match((await olivia.get('/account')).text, /No confirmed address/)
  const again = browser('10.1.0.4')
  await again.get(login)
  const identity = await exchanged(
    await again.post('/login', { return: RETURN, name: 'Olivia', password: 'owner password' }),
  )
  assert.equal(identity.email, undefined)
})

test('a disabled person gets no more mail: the tracker forgets their address', async () => {
  const pat = browser('10.1.0.20')
  // Olivia makes a sign-up link for Pat, who gives and confirms an address.
  const made = await olivia.post('/admin/signup-links', { uses: '1', days: '1' })
  const link = /signup\?link=([A-Za-z0-9_-]+)/.exec(made.text)![1]!
  await pat.get(`/signup?link=${link}&return=${encodeURIComponent(RETURN)}`)
  const identity = await exchanged(
    await pat.post('/signup', { return: RETURN, link, name: 'Pat', password: 'pat password' }),
  )
  await tickets.login('Pat', String(identity.id))
  await pat.get('/account')
  const before = smtp.mails.length
  assert.equal((await pat.post('/account/email', { email: 'pat@example.org' })).status, 303)
  await smtp.waitFor(before + 1)
  const confirm = linkIn('pat@example.org', '/account/email/confirm')
  await pat.get(`/account/email/confirm?link=${confirm}`)
  await pat.post('/account/email/confirm', { link: confirm })
  const address = async () =>
    (await sql`select email from users where idp_id = ${String(identity.id)}`)[0]!.email
  assert.equal(await address(), 'pat@example.org')
  assert.equal((await olivia.post(`/admin/people/${String(identity.id)}/disable`, {})).status, 303)
  assert.equal(await address(), null)
})
