/**
 * Mail in Chromium, the way a person meets it: the **Email** field on the provider's `/account`,
 * the link mailed to the address (a real SMTP server takes it) and **Confirm the address**;
 * then the unsubscribe page a notification mail links to, and its button. Each page is looked
 * at in 1280 and 390 px, light and dark, and checked with axe-core.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { signedIn } from './support/person-menu.ts'
import { cspViolations, fullApp } from './support/full-app.ts'
import { assertAccessible } from './support/axe.ts'
import { startSmtp } from './support/smtp.ts'
import { pictures } from './tickets/browser-support.ts'
import { unsubscribeToken } from '../src/tickets/rules/unsubscribe.ts'
import { mailTable } from '../src/tickets/store/mail.ts'

const smtp = await startSmtp()
const full = await fullApp({ SMTP_URL: smtp.url })
after(async () => {
  await full.close()
  await smtp.stop()
})

test('a person gives an Email on /account, confirms it by the mailed link, and the tracker has it at once', async () => {
  const { page } = await full.person()
  const refused = cspViolations(page)
  await page.goto(full.tickets)
  await page.getByRole('link', { name: 'Sign in' }).first().click()
  await page.getByLabel('Name').fill('Olivia')
  await page.getByLabel('Password').fill('correct horse battery')
  await page.getByRole('button', { name: 'Create account' }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })

  await page.goto(`${full.idp}/account`)
  await page.getByText('No confirmed address: the apps send you no mail.').waitFor()
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill('olivia@example.org')
  await page.getByRole('button', { name: 'Save email' }).click()
  await page.getByText('A link to confirm the address is on its way there.').waitFor()
  await assertAccessible(page, '/account with an address waiting')
  await pictures(page, 'account-email')

  const [mail] = await smtp.waitFor(1)
  assert.deepEqual(mail!.to, ['olivia@example.org'])
  const link = /http:\/\/\S+\/account\/email\/confirm\?link=[A-Za-z0-9_-]+/.exec(mail!.text)?.[0]
  assert.ok(link, mail!.text)
  // The link opened on a phone, where the person reads mail.
  const phone = await full.person({ viewport: { width: 390, height: 844 } })
  await phone.page.goto(link.replace('127.0.0.1', 'localhost'))
  await phone.page
    .getByText('Confirm olivia@example.org as the address the apps mail you.')
    .waitFor()
  await assertAccessible(phone.page, 'the confirmation page')
  await pictures(phone.page, 'account-email-confirm')
  await phone.page.getByRole('button', { name: 'Confirm the address' }).click()
  await phone.page.getByText('olivia@example.org is confirmed').waitFor()

  const [user] = await full.db.sql`select id, email from users where name = 'Olivia'`
  assert.equal(user!.email, 'olivia@example.org')
  await page.reload()
  await page.getByText('Mail goes to olivia@example.org, a confirmed address.').waitFor()
  assert.deepEqual(refused, [])

  // The unsubscribe page a notification mail would link to.
  const key = await mailTable(full.db.sql).unsubscribeKey()
  const token = unsubscribeToken(key, String(user!.id), 'watching')
  await phone.page.goto(`${full.tickets}/unsubscribe/${token}`)
  await phone.page.getByText('Turn off mail about tickets you watch for Olivia?').waitFor()
  await assertAccessible(phone.page, 'the unsubscribe page')
  await pictures(phone.page, 'unsubscribe')
  await phone.page.getByRole('button', { name: 'Turn off this mail' }).click()
  await phone.page.getByText('Mail about tickets you watch is turned off for Olivia.').waitFor()
  await assertAccessible(phone.page, 'the unsubscribed page')
  await pictures(phone.page, 'unsubscribed')
  const [pref] = await full.db.sql`
    select mail from notification_prefs where user_id = ${user!.id} and reason = 'watching'`
  assert.equal(pref!.mail, false)
})
