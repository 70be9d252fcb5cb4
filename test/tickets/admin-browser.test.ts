/**
 * The project settings page `/<slug>/settings` in a real browser (Chromium through
 * playwright-core): an admin renames the project's title and slug (the old slug keeps
 * working), and changes a member's role, after which the member sees the controls of the new
 * role and no longer those of the old; an open settings page follows what a second admin
 * changes in another browser (a role, a connected app, the description) without a reload,
 * marks and announces it, and keeps what its person is typing.
 */
import assert from 'node:assert/strict'
import { after, afterEach, test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { PHONE, screenshot, scrollsSideways, ticketsBrowserApp } from './browser-support.ts'

const b = await ticketsBrowserApp()
after(() => b.close())
const { app, url } = b

const { page } = await b.person('alice', { idpId: 'idp-alice' })
const aliceApi = await app.login('alice', 'idp-alice')
const errors: string[] = []
page.on('pageerror', (e) => errors.push(e.message))
// Each test's own pages logged no script error.
afterEach(() => assert.deepEqual(errors.splice(0), []))

type Role = 'use' | 'edit' | 'admin'
/**
 * A project of alice's for one test (each test makes its own, so none needs another to have run
 * first), with the ticket "Footer overlaps on phones" and `members` in their roles.
 */
async function projectWith(slug: string, members: Record<string, Role> = {}, title = 'Website') {
  await app.project(aliceApi, title, { slug })
  await app.ticket(aliceApi, slug, { subject: 'Footer overlaps on phones' })
  for (const [name, role] of Object.entries(members))
    await app.member(aliceApi, slug, await app.login(name, `idp-${name}`), role)
}

test(
  'an admin renames the title and slug; the new address shows it and the old one still leads there',
  { timeout: 60_000 },
  async () => {
    await projectWith('site')
    await page.goto(`${url}/site/settings`)
    await page.getByLabel('Title').fill('Public website')
    await page.getByLabel('Slug').fill('www')
    await page.getByRole('button', { name: 'Save', exact: true }).first().click()
    await page.waitForURL(`${url}/www/settings`)
    assert.equal(await page.getByLabel('Title').inputValue(), 'Public website')
    await page.goto(`${url}/site`)
    await page.waitForURL(`${url}/www`)
    await page.getByRole('heading', { name: 'Public website' }).waitFor()
    await page
      .getByRole('list', { name: 'Tickets' })
      .getByText('Footer overlaps on phones')
      .waitFor()
    await page.goto(`${url}/site/1`)
    await page.waitForURL(`${url}/www/1`)
    await page.goto(`${url}/site/settings`)
    await page.waitForURL(`${url}/www/settings`)
  },
)

test(
  "an admin changes a member's role; the member then sees the new role's controls and not the old ones",
  { timeout: 60_000 },
  async () => {
    await projectWith('roles', { carol: 'edit' })
    const carol = await b.person('carol', { idpId: 'idp-carol' })
    await carol.page.goto(`${url}/roles/1`)
    await carol.page.getByLabel('Assignee').waitFor()

    await page.goto(`${url}/roles/settings`)
    await page.getByLabel('Role of carol').selectOption('use')
    await saveRole('roles')
    await page.reload()
    assert.equal(await page.getByLabel('Role of carol').inputValue(), 'use')

    await carol.page.goto(`${url}/roles/1`)
    await carol.page.getByLabel('State').waitFor()
    for (const label of ['Assignee', 'Parent', 'Blocked by'])
      assert.equal(await carol.page.getByLabel(label).count(), 0, label)

    await page.getByLabel('Role of carol').selectOption('admin')
    await saveRole('roles')
    await carol.page.goto(`${url}/roles`)
    await carol.page.getByRole('link', { name: 'Project settings' }).waitFor()
    await carol.page.goto(`${url}/roles/settings`)
    await carol.page.getByLabel('Role of alice').waitFor()
    await carol.context.close()
  },
)

/** Presses the Save of carol's role in `slug` and waits for the API's answer. */
async function saveRole(slug: string): Promise<void> {
  const answered = page.waitForResponse(
    (r) => r.url().endsWith(`/api/projects/${slug}/members`) && r.request().method() === 'POST',
  )
  await page
    .getByLabel('Role of carol')
    .locator('xpath=..')
    .getByRole('button', { name: 'Save' })
    .click()
  assert.equal((await answered).status(), 200)
}

/** Connects an app to `slug` as `person` (the connect flow through the API); answers its key. */
async function connectApp(
  person: { cookie: string; tag: string },
  slug: string,
  label: string,
): Promise<string> {
  const started = await app.call(
    'GET',
    `/connect?${new URLSearchParams({ app: 'ci', label, return: 'https://ci.example/back', state: 's' })}`,
  )
  const nonce = String(started.headers.location).slice('/connect/'.length)
  const confirmed = await app.call('POST', `/api/connect/${nonce}/confirm`, {
    headers: { cookie: person.cookie, 'x-tag': person.tag },
    body: { project: slug },
  })
  const code = new URL(confirmed.body.location).searchParams.get('code')
  const exchanged = await app.call('POST', '/api/connect/exchange', { body: { code } })
  assert.equal(exchanged.status, 200, exchanged.text)
  return exchanged.body.key as string
}

/** Opens the settings of `slug` and waits until its script has made its first poll (so it is following). */
async function openFollowing(p: Page, slug: string): Promise<void> {
  const firstPoll = p.waitForRequest((r) => r.url().includes('/api/live'))
  await p.goto(`${url}/${slug}/settings`)
  await firstPoll
}

test(
  'an open settings page shows a role changed and an app removed in another browser, marked and announced, without a reload',
  { timeout: 90_000 },
  async () => {
    await projectWith('watched', { carol: 'admin', dave: 'admin' })
    await connectApp(aliceApi, 'watched', 'Deploy bot')
    const dave = await b.person('dave', { idpId: 'idp-dave' })
    await openFollowing(page, 'watched')
    let reloaded = false
    page.on('load', () => (reloaded = true))
    assert.equal(await page.getByLabel('Role of carol').inputValue(), 'admin')

    // Dave changes carol's role on his own settings page.
    await dave.page.goto(`${url}/watched/settings`)
    await dave.page.getByLabel('Role of carol').selectOption('edit')
    await dave.page
      .getByLabel('Role of carol')
      .locator('xpath=..')
      .getByRole('button', { name: 'Save' })
      .click()
    await waitForValue(page, 'Role of carol', 'edit')
    assert.equal(
      await page.getByRole('table', { name: 'Members' }).locator('tr.changed').count(),
      1,
    )
    await page.locator('#announce').getByText('The members changed.').waitFor()

    // Dave removes the connected app.
    await dave.page.goto(`${url}/watched/settings`)
    dave.page.once('dialog', (d) => void d.accept())
    await dave.page.getByRole('button', { name: 'Remove Deploy bot' }).click()
    await page.getByText('No app is connected.').waitFor({ timeout: 30_000 })
    await page.locator('#announce').getByText('The connected apps changed.').waitFor()
    await screenshot(page, 'project-settings-live')
    assert.equal(reloaded, false)
    await dave.context.close()
  },
)

test(
  'an open settings page keeps the title its person is typing while another admin changes the description, and shows it once they leave the field',
  { timeout: 90_000 },
  async () => {
    await projectWith('typing', { erin: 'admin' }, 'Public website')
    const erinApi = await app.login('erin', 'idp-erin')
    await openFollowing(page, 'typing')
    await page.getByLabel('Title').fill('Public website, half typed')
    const changed = await app.call('POST', '/api/projects/typing', {
      headers: { cookie: erinApi.cookie, 'x-tag': erinApi.tag },
      body: { description: 'The site everyone sees' },
    })
    assert.equal(changed.status, 200, changed.text)
    await page
      .locator('#announce')
      .getByText('The project’s title, slug or description changed.')
      .waitFor({ timeout: 30_000 })
    assert.equal(await page.getByLabel('Title').inputValue(), 'Public website, half typed')
    // The project's own description (the settings page has a new label's Description too).
    const about = page.getByRole('region', { name: 'About the project' })
    assert.equal(await about.getByLabel('Description').inputValue(), '')
    // Once the person puts the title back and leaves the form, the new description shows.
    await page.getByLabel('Title').fill('Public website')
    await page.getByLabel('Title').blur()
    await waitForValue(about, 'Description', 'The site everyone sees')
  },
)

test(
  'an open settings page lists an invite another admin makes, then takes it away when they revoke it, announced, without a reload',
  { timeout: 90_000 },
  async () => {
    await projectWith('invites', { fay: 'admin' })
    const fayApi = await app.login('fay', 'idp-fay')
    await openFollowing(page, 'invites')
    let reloaded = false
    page.on('load', () => (reloaded = true))
    const invites = page.getByRole('table', { name: 'Open invites' })
    const rowsBefore = (await invites.count()) ? await invites.locator('tbody tr').count() : 0
    const made = await app.call('POST', '/api/projects/invites/invites', {
      headers: { cookie: fayApi.cookie, 'x-tag': fayApi.tag },
      body: { role: 'use', uses: '3' },
    })
    assert.equal(made.status, 201, made.text)
    const row = invites.locator('tbody tr').filter({ hasText: 'fay' })
    await row.getByText('3 of 3').waitFor({ timeout: 30_000 })
    await page.locator('#announce').getByText('The open invites changed.').waitFor()
    assert.equal(await invites.locator('tbody tr').count(), rowsBefore + 1)
    const revoked = await app.call(
      'POST',
      `/api/projects/invites/invites/${encodeURIComponent(made.body.id)}/revoke`,
      { headers: { cookie: fayApi.cookie, 'x-tag': fayApi.tag }, body: {} },
    )
    assert.equal(revoked.status, 200, revoked.text)
    await row.waitFor({ state: 'detached', timeout: 30_000 })
    assert.equal(reloaded, false)
  },
)

test(
  'the settings page reads at 390 px without sideways scrolling',
  { timeout: 60_000 },
  async () => {
    await projectWith('phone', { carol: 'edit' })
    const phone = await b.person('alice', { idpId: 'idp-alice', viewport: PHONE })
    await phone.page.goto(`${url}/phone/settings`)
    await phone.page.getByLabel('Role of carol').waitFor()
    assert.equal(await scrollsSideways(phone.page), false)
    await screenshot(phone.page, 'project-settings-phone')
    await phone.context.close()
  },
)

/** Waits until the field labelled `label` holds `value`. */
async function waitForValue(p: Page | Locator, label: string, value: string): Promise<void> {
  const field = p.getByLabel(label, { exact: true })
  const deadline = Date.now() + 30_000
  while ((await field.inputValue()) !== value) {
    if (Date.now() > deadline)
      throw new Error(
        `${label} is ${JSON.stringify(await field.inputValue())}, not ${JSON.stringify(value)}`,
      )
    await field.page().waitForTimeout(100)
  }
}
