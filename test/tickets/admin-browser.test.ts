/**
 * The project settings page `/<slug>/settings` in a real browser (Chromium through
 * playwright-core): an admin renames the project's title and slug (the old slug keeps
 * working), and changes a member's role, after which the member sees the controls of the new
 * role and no longer those of the old.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { ticketsBrowserApp } from './browser-support.ts'

const b = await ticketsBrowserApp()
after(() => b.close())
const { app, url } = b

const { page } = await b.person('alice', { idpId: 'idp-alice' })
const aliceApi = await app.login('alice', 'idp-alice')
await app.project(aliceApi, 'Website', { slug: 'site' })
await app.ticket(aliceApi, 'site', { subject: 'Footer overlaps on phones' })
const errors: string[] = []
page.on('pageerror', (e) => errors.push(e.message))

test('an admin renames the title and slug; the new address shows it and the old one still leads there', { timeout: 60_000 }, async () => {
  await page.goto(`${url}/site/settings`)
  await page.getByLabel('Title').fill('Public website')
  await page.getByLabel('Slug').fill('www')
  await page.getByRole('button', { name: 'Save', exact: true }).first().click()
  await page.waitForURL(`${url}/www/settings`)
  assert.equal(await page.getByLabel('Title').inputValue(), 'Public website')
  await page.goto(`${url}/site`)
  await page.waitForURL(`${url}/www`)
  await page.getByRole('heading', { name: 'Public website' }).waitFor()
  await page.getByRole('list', { name: 'Tickets' }).getByText('Footer overlaps on phones').waitFor()
  await page.goto(`${url}/site/1`)
  await page.waitForURL(`${url}/www/1`)
  await page.goto(`${url}/site/settings`)
  await page.waitForURL(`${url}/www/settings`)
})

test('an admin changes a member\'s role; the member then sees the new role\'s controls and not the old ones', { timeout: 60_000 }, async () => {
  const carolApi = await app.login('carol', 'idp-carol')
  await app.member(aliceApi, 'www', carolApi, 'edit')
  const carol = await b.person('carol', { idpId: 'idp-carol' })
  await carol.page.goto(`${url}/www/1`)
  await carol.page.getByLabel('Assignee').waitFor()

  await page.goto(`${url}/www/settings`)
  await page.getByLabel('Role of carol').selectOption('use')
  await saveRole()
  await page.reload()
  assert.equal(await page.getByLabel('Role of carol').inputValue(), 'use')

  await carol.page.goto(`${url}/www/1`)
  await carol.page.getByLabel('State').waitFor()
  for (const label of ['Assignee', 'Parent', 'Blocked by']) assert.equal(await carol.page.getByLabel(label).count(), 0, label)

  await page.getByLabel('Role of carol').selectOption('admin')
  await saveRole()
  await carol.page.goto(`${url}/www`)
  await carol.page.getByRole('link', { name: 'Project settings' }).waitFor()
  await carol.page.goto(`${url}/www/settings`)
  await carol.page.getByLabel('Role of alice').waitFor()
})

/** Presses the Save of carol's role and waits for the API's answer. */
async function saveRole(): Promise<void> {
  const answered = page.waitForResponse((r) => r.url().endsWith('/api/projects/www/members') && r.request().method() === 'POST')
  await page.getByLabel('Role of carol').locator('xpath=..').getByRole('button', { name: 'Save' }).click()
  assert.equal((await answered).status(), 200)
}

test('no page logged a script error', () => {
  assert.deepEqual(errors, [])
})
