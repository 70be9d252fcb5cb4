/**
 * The Webhooks section of a project's settings page in a real browser (Chromium through
 * playwright-core): an admin adds a webhook and copies its secret, sends a test event that the
 * receiver verifies with `standardwebhooks`, sees it in the log, and redelivers it.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { PHONE, screenshot, scrollsSideways, ticketsBrowserApp } from './browser-support.ts'
import { verifyWith, webhookReceiver } from '../support/webhook-receiver.ts'

const b = await ticketsBrowserApp({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } })
after(() => b.close())
const { app, url } = b
const receiver = await webhookReceiver()
receiver.setAnswer(() => ({ status: 200, body: '{"ok":true}' }))

const { page } = await b.person('alice', { idpId: 'idp-alice' })
const aliceApi = await app.login('alice', 'idp-alice')
await app.project(aliceApi, 'Website', { slug: 'site' })
const errors: string[] = []
page.on('pageerror', (e) => errors.push(e.message))

test(
  'an admin adds a webhook, sends a test event that arrives verified, sees it in the log and redelivers it',
  { timeout: 60_000 },
  async () => {
    await page.goto(`${url}/site/settings`)
    await page.getByLabel('Payload URL').fill('not a url')
    await page.getByLabel('Payload URL').evaluate((el) => el.setAttribute('type', 'text'))
    await page.getByRole('button', { name: 'Add webhook' }).click()
    await page.getByText("'url' must be an absolute http or https URL").waitFor()

    await page.getByLabel('Payload URL').fill(receiver.url('/site'))
    await page.getByRole('checkbox', { name: 'ticket.created' }).check()
    await page.getByRole('checkbox', { name: 'ticket.commented' }).check()
    await page.getByRole('button', { name: 'Add webhook' }).click()
    const secretField = page.getByLabel('Signing secret: copy it now, it is not shown again')
    await secretField.waitFor()
    const secret = await secretField.inputValue()
    assert.match(secret, /^whsec_/)
    const hook = page.getByRole('article', { name: receiver.url('/site') })
    await hook.getByText('Active').waitFor()
    await hook.getByText('ticket.commented').waitFor()
    await hook.getByText('Nothing delivered yet').waitFor()

    await hook.getByRole('button', { name: 'Send test event' }).click()
    await receiver.until(() => receiver.at('/site').length === 1)
    const first = receiver.at('/site')[0]!
    assert.equal((verifyWith(secret, first) as { type: string }).type, 'webhook.test')
    const log = hook.getByRole('table', { name: `Deliveries to ${receiver.url('/site')}` })
    await log.getByText('delivered').waitFor()
    await log.getByText('webhook.test').waitFor()
    await log.getByText('200').waitFor()

    await log.getByRole('button', { name: 'Redeliver' }).first().click()
    await receiver.until(() => receiver.at('/site').length === 2)
    const second = receiver.at('/site')[1]!
    assert.equal(second.id, first.id)
    verifyWith(secret, second)
    await page.waitForFunction(
      () => document.querySelectorAll('table.hook-log tbody tr').length === 2,
    )
    await page.waitForFunction(() => !document.querySelector('[data-delivery-soon]'))
    await screenshot(page, 'webhooks-wide-light')
    assert.deepEqual(errors, [])
  },
)

test(
  'the webhooks section reads on a phone and in the dark, without sideways scrolling',
  { timeout: 60_000 },
  async () => {
    for (const [viewport, scheme, name] of [
      [PHONE, 'light', 'webhooks-phone-light'],
      [PHONE, 'dark', 'webhooks-phone-dark'],
      [{ width: 1280, height: 800 }, 'dark', 'webhooks-wide-dark'],
    ] as const) {
      const { page: p, context } = await b.person('alice', {
        idpId: 'idp-alice',
        viewport,
        colorScheme: scheme,
      })
      await p.goto(`${url}/site/settings`)
      await p.getByRole('heading', { name: 'Webhooks' }).scrollIntoViewIfNeeded()
      const wide = await p.evaluate(() =>
        Array.from(document.querySelectorAll('body *'))
          .filter(
            (el) =>
              !el.closest('.table-wrap') &&
              el.getBoundingClientRect().right > document.documentElement.clientWidth + 1,
          )
          .slice(0, 5)
          .map(
            (el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`,
          ),
      )
      assert.equal(await scrollsSideways(p), false, `${name}: ${wide.join(', ')}`)
      await screenshot(p, name)
      await context.close()
    }
  },
)
