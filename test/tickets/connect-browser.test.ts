/**
 * The connect page in a real browser (Chromium through playwright-core): its bundled script runs
 * under the page's Content-Security-Policy, confirms with the session's tag, shows a refusal,
 * and sends the browser to the app's return address with `code` and `state`, where the app's
 * server exchanges the code for a key. The browser comes from test/support/browser.ts.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { serve } from '../../src/http/server.ts'
import { text } from '../../src/http/response.ts'
import { createLogger } from '../../src/base/log.ts'
import { ticketsApp } from './support.ts'
import { launchBrowser } from '../support/browser.ts'
import { holdPort } from '../../src/start/ports.ts'

// Held from now until the server listens on it (src/start/ports.ts): the address is needed first.
const held = await holdPort('127.0.0.1')
const app = await ticketsApp({ env: { TICKETS_URL: `http://127.0.0.1:${held.port}` } })
const logger = createLogger(null)
const tickets = await serve({
  name: 'tickets',
  routes: app.service.routes,
  host: '127.0.0.1',
  port: held.port,
  held: held.take(),
  logger,
})

// The app's own server: its return handler keeps what it was sent.
const returns: URLSearchParams[] = []
const appServer = await serve({
  name: 'app',
  routes: [
    {
      method: 'GET',
      path: '/connected',
      handler: (req) => (returns.push(req.query), text(200, 'connected')),
    },
  ],
  host: '127.0.0.1',
  port: 0,
  logger,
})

const browser = await launchBrowser()
after(async () => {
  await browser.close()
  await appServer.close()
  await tickets.close()
})

const alice = await app.login('alice')
const demo = await app.project(alice, 'Demo')

async function signedInPage() {
  const context = await browser.newContext()
  const [name, value] = alice.cookie.split('=') as [string, string]
  await context.addCookies([{ name, value, url: tickets.url }])
  const page = await context.newPage()
  const refused: string[] = []
  // Chromium reports a script or request its policy blocked as a console error naming the policy.
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) refused.push(m.text())
  })
  return { page, refused }
}

function connectUrl(state: string): string {
  const query = new URLSearchParams({
    app: 'browser-test',
    label: 'Browser <test>',
    return: `${appServer.url}/connected`,
    state,
  })
  return `${tickets.url}/connect?${query}`
}

test('in a browser: the page confirms a chosen project and lands on the return address with code and state', async () => {
  const { page, refused } = await signedInPage()
  await page.goto(connectUrl('s-1'))
  assert.match(page.url(), /\/connect\/[A-Za-z0-9_-]{32}$/)
  assert.equal(await page.locator('strong').first().textContent(), 'Browser <test>')
  await page.check(`input[name=project][value="${demo.id}"]`)
  await Promise.all([
    page.waitForURL(`${appServer.url}/connected?**`),
    page.click('button[name=go]'),
  ])
  assert.equal(await page.textContent('body'), 'connected')
  assert.deepEqual(refused, [], 'no script was refused by the page policy')
  const back = returns.at(-1)!
  assert.equal(back.get('state'), 's-1')
  const exchanged = await fetch(`${tickets.url}/api/connect/exchange`, {
    method: 'POST',
    body: JSON.stringify({ code: back.get('code') }),
  })
  assert.equal(exchanged.status, 200)
  const answer = (await exchanged.json()) as { project: string; api: string; key: string }
  assert.deepEqual([answer.project, answer.api], [demo.slug, `${tickets.url}/api`])
  await page.context().close()
})

test('in a browser: a refusal is shown on the page, and a new project can then be made', async () => {
  const { page, refused } = await signedInPage()
  await page.goto(connectUrl('s-2'))
  await page.check('#connect-new')
  await page.click('button[name=go]')
  await page.waitForFunction(() => document.getElementById('connect-error')!.textContent !== '')
  assert.equal(await page.textContent('#connect-error'), "give exactly one of 'project' or 'title'")
  await page.fill('input[name=title]', 'Made in the browser')
  await Promise.all([
    page.waitForURL(`${appServer.url}/connected?**`),
    page.click('button[name=go]'),
  ])
  assert.equal(returns.at(-1)!.get('state'), 's-2')
  assert.deepEqual(refused, [])
  const made = await fetch(`${tickets.url}/api/projects/made-in-the-browser`)
  assert.equal(made.status, 200)
  await page.context().close()
})
