/**
 * Saved views, the board and bulk changes in Chromium (docs/tickets-app.md, "Saved views",
 * "Board", "Bulk changes"): a view saved and found again after signing out and in; a card moved
 * on the board by mouse and by keyboard, seen on a second open board; a bulk change of every
 * ticket a search finds with Select all N matching, and its Undo. Each page is checked with
 * axe-core at 1280 and 390 px in the light and the dark scheme; `SCREENSHOTS=<folder>` saves
 * them.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible } from '../support/axe.ts'
import { PHONE, WIDE, pictures, scrollsSideways, ticketsBrowserApp } from './browser-support.ts'

const b = await ticketsBrowserApp()
after(() => b.close())
const { app, url } = b

const alice = await app.login('alice', 'idp-alice')
const bob = await app.login('bob', 'idp-bob')

/** axe-core in both schemes at both widths; the page is put back at 1280 px, light. */
async function accessibleEverywhere(page: Page, what: string): Promise<void> {
  for (const viewport of [WIDE, PHONE]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize(viewport)
      await page.emulateMedia({ colorScheme })
      await assertAccessible(page, `${what} at ${viewport.width} px, ${colorScheme}`)
      if (viewport === PHONE) assert.equal(await scrollsSideways(page), false, what)
    }
  }
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
}

test(
  'a saved search is listed beside the list with its count, and opens again after signing out and in',
  { timeout: 120_000 },
  async () => {
    const p = await app.project(alice, 'Views site')
    await app.ticket(alice, p.slug, { subject: 'Login loops on Safari' })
    await app.ticket(alice, p.slug, { subject: 'Login button hidden' })
    await app.ticket(alice, p.slug, { subject: 'Export to CSV' })
    const { page } = await b.person('alice', { idpId: 'idp-alice' })
    await page.goto(`${url}/${p.slug}`)
    await page.getByRole('searchbox', { name: 'Search tickets' }).fill('login')
    await page.keyboard.press('Enter')
    await page.waitForURL(/\?q=login/)
    await page.getByText('Save this search').click()
    await page.getByLabel('View name').fill('Login trouble')
    await page.getByRole('button', { name: 'Save view' }).click()
    const views = page.getByRole('complementary', { name: 'Views' })
    await views.getByRole('link', { name: 'Login trouble 2 tickets' }).waitFor()
    await accessibleEverywhere(page, 'the project page with a saved view')
    await pictures(page, 'saved-views')

    // A new ticket elsewhere moves the count without a reload.
    await app.ticket(alice, p.slug, { subject: 'Login times out' })
    await views.getByRole('link', { name: 'Login trouble 3 tickets' }).waitFor()

    await page.locator('summary.who').click()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('link', { name: 'Sign in' }).first().waitFor()
    await page.goto(`${url}/${p.slug}`)
    assert.equal(await views.getByRole('link', { name: /Login trouble/ }).count(), 0)
    const code = app.idp.code({ id: 'idp-alice', name: 'alice' })
    await page.goto(`${url}/login/callback?idp_code=${code}&next=/${p.slug}`)
    await page.waitForURL(`${url}/${p.slug}`)
    await views.getByRole('link', { name: 'Login trouble 3 tickets' }).click()
    await page.waitForURL(/\?q=login/)
    assert.equal(
      await page.getByRole('searchbox', { name: 'Search tickets' }).inputValue(),
      'login',
    )
    assert.equal(await page.getByRole('list', { name: 'Tickets' }).getByRole('listitem').count(), 3)
  },
)

/** The column of the board named `name`, on `page`. */
const column = (page: Page, name: string) =>
  page.getByRole('region', { name: new RegExp(`^${name}`) })

test(
  'a card moved on the board by mouse and by keyboard moves on a second open board, with Undo',
  { timeout: 120_000 },
  async () => {
    const p = await app.project(alice, 'Board site')
    await app.member(alice, p.slug, bob, 'use')
    await app.ticket(alice, p.slug, { subject: 'Drag me' })
    await app.ticket(alice, p.slug, { subject: 'Carry me' })
    const first = await b.person('alice', { idpId: 'idp-alice' })
    const second = await b.person('bob', { idpId: 'idp-bob' })
    for (const { page } of [first, second]) await page.goto(`${url}/${p.slug}/board`)
    const a = first.page
    await column(a, 'Open').getByText('Drag me').waitFor()

    // By mouse: dragged from Open to Doing.
    await a.locator('.ticket-card', { hasText: 'Drag me' }).dragTo(column(a, 'Doing'))
    await a.locator('.toast').getByText(`${p.slug}#1 moved to Doing.`).waitFor()
    await column(second.page, 'Doing').getByText('Drag me').waitFor()
    assert.equal(await column(second.page, 'Open').getByText('Drag me').count(), 0)
    const ticket1 = await app.call('GET', `/api/projects/${p.slug}/tickets/1`)
    assert.equal(ticket1.body.ticket.state, 'doing')

    // By keyboard: focused, carried two columns right, dropped with Enter.
    const card = a.locator('.ticket-card', { hasText: 'Carry me' })
    await card.focus()
    await a.keyboard.press('ArrowRight')
    await a
      .locator('#announce')
      .getByText(`${p.slug}#2 carried to Doing.`, { exact: false })
      .waitFor()
    await a.keyboard.press('ArrowRight')
    await column(a, 'Review').getByText('Carry me').waitFor()
    await a.keyboard.press('Enter')
    await a.locator('.toast').getByText(`${p.slug}#2 moved to Review.`).waitFor()
    await column(second.page, 'Review').getByText('Carry me').waitFor()
    await accessibleEverywhere(a, 'the board')
    await pictures(a, 'board')

    // Undo gives the card back its column, on both boards.
    await a.locator('.toast').getByRole('button', { name: 'Undo' }).click()
    await column(second.page, 'Open').getByText('Carry me').waitFor()
    await column(a, 'Open').getByText('Carry me').waitFor()
    const ticket2 = await app.call('GET', `/api/projects/${p.slug}/tickets/2`)
    assert.equal(ticket2.body.ticket.state, 'open')

    // Escape puts a carried card back without a change.
    await a.locator('.ticket-card', { hasText: 'Carry me' }).focus()
    await a.keyboard.press('ArrowRight')
    await a.keyboard.press('Escape')
    await column(a, 'Open').getByText('Carry me').waitFor()

    // On a phone, one column at a time, the column names as tabs.
    await second.page.setViewportSize(PHONE)
    await column(second.page, 'Open').getByText('Carry me').waitFor()
    assert.equal(await column(second.page, 'Doing').isVisible(), false)
    await second.page
      .getByRole('navigation', { name: 'Columns' })
      .getByRole('link', { name: /^Doing/ })
      .click()
    await column(second.page, 'Doing').getByText('Drag me').waitFor()
    assert.equal(await column(second.page, 'Open').isVisible(), false)
  },
)

test(
  'a bulk change with Select all N matching changes every ticket the search finds, and Undo gives them back',
  { timeout: 120_000 },
  async () => {
    const p = await app.project(alice, 'Bulk site')
    const now = app.clock.now()
    await app.sql`
      insert into tickets (project_id, number, subject, author_id, created, updated)
      select ${p.id}, i, 'Flaky test ' || i, ${alice.id}, ${now}::bigint - (100 - i) * 60000, ${now}::bigint - (100 - i) * 60000
      from generate_series(1, 60) i`
    await app.sql`update projects set next_number = 61 where id = ${p.id}`
    await app.ticket(alice, p.slug, { subject: 'Keep me open' })
    const { page } = await b.person('alice', { idpId: 'idp-alice' })
    await page.goto(`${url}/${p.slug}?q=flaky`)
    const rows = page.getByRole('list', { name: 'Tickets' })
    // Shift-click selects the range from the last box clicked.
    await rows.getByRole('checkbox', { name: `Select ${p.slug}#60` }).click()
    await rows
      .getByRole('checkbox', { name: `Select ${p.slug}#56` })
      .click({ modifiers: ['Shift'] })
    const bar = page.getByRole('form', { name: 'Change the selected tickets' })
    await bar.getByText('5 selected').waitFor()
    await rows
      .getByRole('checkbox', { name: `Select ${p.slug}#11` })
      .click({ modifiers: ['Shift'] })
    await bar.getByText('50 selected').waitFor()
    await bar.getByRole('button', { name: 'Select all 60 matching' }).click()
    await bar.getByText('All 60 matching selected').waitFor()
    await accessibleEverywhere(page, 'the project page with a bulk selection')
    await pictures(page, 'bulk')
    await bar.getByLabel('Change to').selectOption('state:done')
    await bar.getByRole('button', { name: 'Apply' }).click()
    await page.locator('.toast').getByText('Set 60 tickets to done.').waitFor()
    await page.getByRole('heading', { name: 'No tickets match' }).waitFor()
    const done = await app.sql<{ n: number }[]>`
      select count(*)::int as n from tickets where project_id = ${p.id} and state = 'done'`
    assert.equal(done[0]!.n, 60)
    const events = await app.sql<{ n: number }[]>`
      select count(*)::int as n from ticket_events e join tickets t on t.id = e.ticket_id
      where t.project_id = ${p.id} and e.kind = 'state'`
    assert.equal(events[0]!.n, 60)
    await page.locator('.toast').getByRole('button', { name: 'Undo' }).click()
    await rows.getByRole('link', { name: 'Flaky test 60', exact: true }).waitFor()
    const open = await app.sql<{ n: number }[]>`
      select count(*)::int as n from tickets where project_id = ${p.id} and state = 'open'`
    assert.equal(open[0]!.n, 61)
  },
)
