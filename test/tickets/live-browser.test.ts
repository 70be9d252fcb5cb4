/**
 * Pages follow live events in a real browser (Chromium through playwright-core): an open ticket
 * page and an open project page redraw their live part after writes made through the API,
 * without a reload. The browser comes from test/support/browser.ts.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { serve } from '../../src/http/server.ts'
import { createLogger } from '../../src/base/log.ts'
import { ticketsApp } from './support.ts'
import { launchBrowser } from '../support/browser.ts'

const app = await ticketsApp()
const tickets = await serve({
  name: 'tickets',
  routes: app.service.routes,
  host: '127.0.0.1',
  port: 0,
  logger: createLogger(null),
})
const browser = await launchBrowser()
after(async () => {
  await browser.close()
  await tickets.close()
  await app.service.close?.()
})

const alice = await app.login('alice')
const project = await app.project(alice, 'Live demo')
const ticket = await app.ticket(alice, project.slug, { subject: 'Watch me' })

/** Opens a page and waits until its script has made its first poll (so it is following). */
async function open(path: string): Promise<Page> {
  const page = await browser.newPage()
  const firstPoll = page.waitForRequest((r) => r.url().includes('/api/live'))
  await page.goto(`${tickets.url}${path}`)
  await firstPoll
  return page
}

test(
  'an open ticket page shows a comment made through the API, without a reload',
  { timeout: 60_000 },
  async () => {
    const page = await open(`/${project.slug}/${ticket.number}`)
    let reloaded = false
    page.on('load', () => (reloaded = true))
    const answer = await app.call('POST', `/api/tickets/${ticket.id}/comments`, {
      token: alice.token,
      body: { text: 'Seen live <b>here</b>' },
    })
    assert.equal(answer.status, 201, answer.text)
    await page.locator('main').getByText('Seen live <b>here</b>').waitFor({ timeout: 30_000 })
    assert.equal(reloaded, false)
    await page.close()
  },
)

test(
  'an open project page lists a ticket created through the API, and a changed subject shows on the ticket page heading',
  { timeout: 60_000 },
  async () => {
    const listPage = await open(`/${project.slug}`)
    const ticketPage = await open(`/${project.slug}/${ticket.number}`)
    const created = await app.call('POST', `/api/projects/${project.slug}/tickets`, {
      token: alice.token,
      body: { subject: 'Filed by the scheduler' },
    })
    assert.equal(created.status, 201, created.text)
    await listPage.locator('main').getByText('Filed by the scheduler').waitFor({ timeout: 30_000 })
    const edited = await app.call('POST', `/api/tickets/${ticket.id}/edit`, {
      token: alice.token,
      body: { subject: 'Watch me closely' },
    })
    assert.equal(edited.status, 201, edited.text)
    await ticketPage.locator('h1').getByText('Watch me closely').waitFor({ timeout: 30_000 })
    await listPage.close()
    await ticketPage.close()
  },
)

test(
  'a ticket created live moves the tab count and the range line from 7 to 8, and marks only its own row',
  { timeout: 90_000 },
  async () => {
    const counted = await app.project(alice, 'Counted live')
    for (let i = 1; i <= 7; i++) await app.ticket(alice, counted.slug, { subject: `Seven ${i}` })
    const page = await open(`/${counted.slug}`)
    const active = page
      .getByRole('navigation', { name: 'States' })
      .getByRole('link', { name: /^Active/ })
    assert.equal(await active.textContent(), 'Active7')
    assert.equal(await page.locator('[data-live="range"]').textContent(), '1–7 of 7')
    // The rows already drawn say "just now"; drawn again two minutes later they say "2 minutes
    // ago", which is the clock, not a change to those tickets.
    app.clock.advance(2 * 60_000)
    const created = await app.call('POST', `/api/projects/${counted.slug}/tickets`, {
      token: alice.token,
      body: { subject: 'The eighth' },
    })
    assert.equal(created.status, 201, created.text)
    const seen = await page.waitForFunction(
      () => {
        const tab = document.querySelector('nav.tabs a[aria-current="page"] .n')
        if (tab?.textContent !== '8') return null
        return {
          range: document.querySelector('[data-live="range"]')?.textContent,
          marked: Array.from(document.querySelectorAll('ul.tickets li.changed')).map(
            (li) => li.querySelector('.subject')?.textContent,
          ),
        }
      },
      null,
      { timeout: 30_000 },
    )
    assert.deepEqual(await seen.jsonValue(), { range: '1–8 of 8', marked: ['The eighth'] })
    assert.equal(await page.getByRole('link', { name: /^Open/ }).textContent(), 'Open8')
    await page.close()
  },
)

test(
  'a ticket assigned live moves the inbox count in the bar, words and badge both',
  { timeout: 90_000 },
  async () => {
    const bob = await app.login('bob')
    await app.member(alice, project.slug, bob, 'edit')
    const context = await browser.newContext()
    const [name, value] = bob.cookie.split('=') as [string, string]
    await context.addCookies([{ name, value, url: tickets.url }])
    const page = await context.newPage()
    const firstPoll = page.waitForRequest((r) => r.url().includes('/api/live'))
    await page.goto(`${tickets.url}/${project.slug}`)
    await firstPoll
    assert.equal(await page.locator('#inbox-count-text').textContent(), '0 tickets wait for you')
    await app.ticket(alice, project.slug, { subject: 'For bob', assignee: bob.id })
    await page.waitForFunction(
      () => document.getElementById('inbox-count-text')?.textContent === '1 ticket waits for you',
      null,
      { timeout: 30_000 },
    )
    const badge = page.getByRole('link', { name: /^Inbox/ }).locator('.count')
    assert.equal(await badge.textContent(), '1')
    assert.equal(await badge.getAttribute('data-zero'), null)
    await context.close()
  },
)
