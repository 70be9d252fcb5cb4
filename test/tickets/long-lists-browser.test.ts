/**
 * Long lists in Chromium (docs/tickets-app.md, "Pages"): the inbox's second page reached by its
 * link, its counts true and following a change without a reload; a search's "more than" and its
 * pager; both pages readable on a phone and axe-clean. `SCREENSHOTS=<folder>` saves the inbox's
 * second page at 1280 and 390 px, light and dark.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { assertAccessible } from '../support/axe.ts'
import { PHONE, pictures, scrollsSideways, ticketsBrowserApp } from './browser-support.ts'

const b = await ticketsBrowserApp()
after(() => b.close())
const { app, url } = b

const alice = await app.login('alice', 'idp-alice')
const web = await app.project(alice, 'Web')
const now = app.clock.now()
// 57 open tickets assigned to alice, a minute apart, the newest last.
await app.sql`
  insert into tickets (project_id, number, subject, state, assignee_id, author_id, created, updated)
  select ${web.id}, i, 'Waiting ticket ' || i, 'open', ${alice.id}, ${alice.id}, ${now}::bigint - (100 - i) * 60000, ${now}::bigint - (100 - i) * 60000
  from generate_series(1, 57) i`
await app.sql`update projects set next_number = 58 where id = ${web.id}`

test(
  'the inbox: 50 waiting tickets with the true count, Next to the other 7, and a change there shows without a reload',
  { timeout: 120_000 },
  async () => {
    const { page } = await b.person('alice', { idpId: 'idp-alice' })
    await page.goto(`${url}/inbox`)
    const waiting = page.getByRole('list', { name: 'Waiting for you' })
    assert.equal(await waiting.getByRole('listitem').count(), 50)
    await page.getByRole('heading', { name: 'Waiting for you (57)' }).waitFor()
    const pages = page.getByRole('navigation', { name: 'Pages of Waiting for you' })
    await pages.getByText('50 of 57 shown').waitFor()
    await pages.getByRole('link', { name: 'Next →' }).click()
    await page.waitForURL(/\/inbox\?pending=/)
    assert.equal(await waiting.getByRole('listitem').count(), 7)
    await waiting.getByRole('link', { name: 'Waiting ticket 7', exact: true }).waitFor()
    await page.getByRole('heading', { name: 'Waiting for you (57)' }).waitFor()
    await pages.getByText('7 of 57 shown').waitFor()
    assert.equal(await pages.getByRole('link', { name: 'Next →' }).count(), 0)
    await assertAccessible(page, "the inbox's second page")
    await pictures(page, 'inbox-second-page')
    // Ticket 1, on this page, goes to review elsewhere: it leaves this list and both counts follow.
    const moved = await app.call('POST', `/api/projects/${web.slug}/tickets/1/state`, {
      token: alice.token,
      body: { state: 'review' },
    })
    assert.equal(moved.status, 201, moved.text)
    await page.getByRole('heading', { name: 'Waiting for you (56)' }).waitFor()
    await page.getByRole('heading', { name: 'In review (1)' }).waitFor()
    await pages.getByText('6 of 56 shown').waitFor()
    assert.equal(await waiting.getByRole('listitem').count(), 6)
    await pages.getByRole('link', { name: '← First page' }).click()
    await page.waitForURL(`${url}/inbox`)
    assert.equal(await waiting.getByRole('listitem').count(), 50)
    await page.setViewportSize(PHONE)
    assert.equal(await scrollsSideways(page), false)
  },
)

test(
  'a search with more matches than a page says "more than", pages on, and its last page gives the total',
  { timeout: 120_000 },
  async () => {
    const { page } = await b.person('alice', { idpId: 'idp-alice' })
    await page.goto(`${url}/${web.slug}?q=waiting`)
    await page.getByText('1–50 of more than 50').waitFor()
    await page
      .getByRole('navigation', { name: 'Pages' })
      .getByRole('link', { name: 'Next →' })
      .click()
    await page.getByText(/51–5\d of 5\d matching/).waitFor()
    await assertAccessible(page, "a search's last page")
    await page.setViewportSize(PHONE)
    assert.equal(await scrollsSideways(page), false)
  },
)
