/**
 * Notifications as people see them (docs/notifications.md), in Chromium: B's bell counts up
 * while B's page is open when A mentions B in another browser; `@` in the comment box suggests
 * the project's members; `/notifications` groups by ticket and Mark all read empties the bell;
 * the settings page saves both columns. Every page these tests open passes an axe-core scan.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { assertAccessible } from '../support/axe.ts'
import { pictures, ticketsBrowserApp } from './browser-support.ts'

const site = await ticketsBrowserApp()
after(() => site.close())
const { app, url } = site

// Each person in a browser of their own, and the same person's token for what the test
// writes through the API (the same account: the same provider id).
const ann = await site.person('Ann', { idpId: 'idp-ann' })
const bea = await site.person('Bea Stone', { idpId: 'idp-bea' })
const annApi = await app.login('Ann', 'idp-ann')
const beaApi = await app.login('Bea Stone', 'idp-bea')
const web = await app.project(annApi, 'Web shop')
await app.member(annApi, web.slug, beaApi, 'edit')

/** The bell's count as B's page shows it. */
function bellCount(page: typeof bea.page) {
  return page.getByRole('link', { name: 'Notifications' }).locator('.count')
}

test('B’s bell counts up on B’s open page when A mentions B in another browser', async () => {
  const ticket = await app.ticket(annApi, web.slug, { subject: 'Checkout button is grey' })
  await bea.page.goto(`${url}/${web.slug}`)
  await assertAccessible(bea.page, 'the project page with the bell')
  await bellCount(bea.page).waitFor()
  assert.equal(await bellCount(bea.page).textContent(), '0')
  // A writes in A's own browser, as a person does.
  await ann.page.goto(`${url}/${web.slug}/${ticket.number}`)
  await ann.page.getByLabel('Comment').fill('Could you look, @BeaStone?')
  await ann.page.getByRole('button', { name: 'Comment', exact: true }).click()
  await ann.page.locator('.history').getByText('Could you look, @BeaStone?').waitFor()
  await bea.page.waitForFunction(
    () =>
      document.querySelector('a.bell .count')?.textContent === '1' &&
      document.getElementById('bell-count-text')?.textContent === '1 unread notification',
    undefined,
    { timeout: 10_000 },
  )
})

test('@ in the comment box suggests the project’s members, and Enter writes the name', async () => {
  const ticket = await app.ticket(annApi, web.slug, { subject: 'Mentions' })
  await ann.page.goto(`${url}/${web.slug}/${ticket.number}`)
  const box = ann.page.getByLabel('Comment')
  await box.click()
  await box.pressSequentially('Thanks @be')
  const options = ann.page.getByRole('listbox', { name: 'People to mention' }).getByRole('option')
  await options.first().waitFor()
  assert.deepEqual(await options.allTextContents(), ['Bea Stone'])
  await box.press('Enter')
  assert.equal(await box.inputValue(), 'Thanks @BeaStone ')
  await box.pressSequentially('and @nobody')
  await ann.page.getByRole('listbox', { name: 'People to mention' }).waitFor({ state: 'hidden' })
  await assertAccessible(ann.page, 'the ticket page with @ suggestions')
})

test('/notifications groups by ticket, links to the first unread event, and Mark all read empties the bell', async () => {
  const ticket = await app.ticket(annApi, web.slug, {
    subject: 'Three comments',
    assignee: 'Bea Stone',
  })
  for (const text of ['one', 'two', 'three'])
    await app.call('POST', `/api/projects/${web.slug}/tickets/${ticket.number}/comments`, {
      token: annApi.token,
      body: { text },
    })
  await bea.page.goto(`${url}/notifications`)
  const group = bea.page.getByRole('link', {
    name: new RegExp(
      `3 new comments and 1 new ticket on ${web.slug}#${ticket.number}|1 new ticket and 3 new comments on ${web.slug}#${ticket.number}`,
    ),
  })
  await group.waitFor()
  assert.match(
    (await group.getAttribute('href')) ?? '',
    new RegExp(`^/${web.slug}/${ticket.number}`),
  )
  await assertAccessible(bea.page, 'the notifications page')
  await pictures(bea.page, 'notifications')
  await bea.page.getByRole('button', { name: 'Mark all read' }).click()
  await bea.page.getByText('Nothing unread.').waitFor()
  assert.equal(await bellCount(bea.page).textContent(), '0')
  assert.equal(
    (await app.call('GET', '/api/notifications', { token: beaApi.token })).body.unread,
    0,
  )
})

test('the settings page saves app and mail per kind, and says mail is off without SMTP_URL', async () => {
  await bea.page.goto(`${url}/settings/notifications`)
  await bea.page.getByText('Mail is off').waitFor()
  const mentionedApp = bea.page.getByRole('checkbox', { name: 'Mentioned: in the app' })
  assert.equal(await mentionedApp.isChecked(), true)
  await mentionedApp.uncheck()
  await bea.page.getByRole('checkbox', { name: 'Watched activity: by mail' }).check()
  await bea.page.getByRole('checkbox', { name: 'Due dates: by mail' }).uncheck()
  await bea.page.getByRole('button', { name: 'Save', exact: true }).click()
  await bea.page.waitForFunction(() => document.documentElement.dataset.redrawn !== undefined)
  const saved = await app.call('GET', '/api/notifications/settings', {
    token: beaApi.token,
  })
  assert.deepEqual(saved.body.prefs, {
    assigned: { app: true, mail: true },
    mentioned: { app: false, mail: true },
    watching: { app: true, mail: true },
    due: { app: true, mail: false },
  })
  await bea.page.reload()
  assert.equal(await mentionedApp.isChecked(), false)
  assert.equal(await bea.page.getByRole('heading', { name: 'Default for new people' }).count(), 0)
  await assertAccessible(bea.page, 'the notification settings page')
  await pictures(bea.page, 'notification-settings')
})

test('Watch and Unwatch on the ticket page, Watch all on the project page', async () => {
  const ticket = await app.ticket(annApi, web.slug, { subject: 'To watch' })
  await bea.page.goto(`${url}/${web.slug}/${ticket.number}`)
  await bea.page.getByRole('button', { name: 'Watch', exact: true }).click()
  await bea.page.getByRole('button', { name: 'Unwatch' }).waitFor()
  await bea.page.getByRole('button', { name: 'Unwatch' }).click()
  await bea.page.getByRole('button', { name: 'Watch', exact: true }).waitFor()
  await bea.page.goto(`${url}/${web.slug}`)
  const all = bea.page.getByRole('button', { name: 'Watch all' })
  assert.equal(await all.getAttribute('aria-pressed'), 'false')
  await all.click()
  await bea.page.waitForFunction(
    () =>
      document.querySelector('[data-live="watch-all"] button')?.getAttribute('aria-pressed') ===
      'true',
  )
  await assertAccessible(bea.page, 'the project page with Watch all')
})
