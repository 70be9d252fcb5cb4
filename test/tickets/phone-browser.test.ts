/**
 * The tracker on a phone (390 px, a touch screen) in real Chromium: nothing wider than the screen
 * and no word cut (the state tabs wrap), the ticket's state said once, the folded details open
 * after a change, and no keyboard hints where there is no keyboard. Screenshots at 390 px, light
 * and dark, go to `SCREENSHOTS` when it is set.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible } from '../support/axe.ts'
import { cutElements } from '../support/layout.ts'
import { PHONE, screenshot, ticketsBrowserApp, WIDE } from './browser-support.ts'

const T = { timeout: 120_000 }
const app = await ticketsBrowserApp()
after(() => app.close())

const ann = await app.app.login('Ann Lindqvist-Okonkwo', 'idp-ann')
const project = await app.app.project(ann, 'Mobile checkout and payments')
// Tickets in every state, so each tab has a count.
const states = [
  'open',
  'open',
  'doing',
  'review',
  'done',
  'dropped',
  'done',
  'open',
  'doing',
  'review',
  'done',
]
for (const [i, state] of states.entries()) {
  const t = await app.app.ticket(ann, project.slug, {
    subject: `Checkout step ${i + 1} loses the basket when the phone sleeps`,
    assignee: ann.id,
  })
  if (state !== 'open')
    assert.equal(
      (
        await app.app.call('POST', `/api/tickets/${t.id}/state`, {
          token: ann.token,
          body: { state },
        })
      ).status,
      201,
    )
}
const lone = await app.app.ticket(ann, project.slug, {
  subject: 'A ticket with nothing related',
  assignee: ann.id,
})

const PAGES = [
  '/',
  `/${project.slug}`,
  `/${project.slug}?state=all`,
  `/${project.slug}/1`,
  `/${project.slug}/${lone.number}`,
  '/inbox',
  '/settings',
  `/${project.slug}/settings`,
]

/** The elements on the page a person sees (not hidden, not folded away). */
function visibleCount(page: Page, selector: string): Promise<number> {
  return page.evaluate(
    (s) => Array.from(document.querySelectorAll(s)).filter((el) => el.checkVisibility()).length,
    selector,
  )
}

test(
  'at 390 px on a touch screen no element is wider than the screen and no word is cut, light and dark',
  T,
  async () => {
    const { context, page } = await app.person('Ann Lindqvist-Okonkwo', {
      idpId: 'idp-ann',
      viewport: PHONE,
      touch: true,
    })
    for (const path of PAGES) {
      await page.goto(`${app.url}${path}`)
      for (const colorScheme of ['dark', 'light'] as const) {
        await page.emulateMedia({ colorScheme })
        await screenshot(page, `phone${path.replace(/[^a-z0-9]+/g, '-')}-${colorScheme}`)
        assert.deepEqual(await cutElements(page), [], `${path} (${colorScheme})`)
      }
      await assertAccessible(page, path)
    }
    await context.close()
  },
)

test(
  'on a phone the ticket page says its state once, in the line that opens its details',
  T,
  async () => {
    const { context, page } = await app.person('Ann Lindqvist-Okonkwo', {
      idpId: 'idp-ann',
      viewport: PHONE,
      touch: true,
    })
    await page.goto(`${app.url}/${project.slug}/${lone.number}`)
    assert.equal(await visibleCount(page, 'main .state'), 1)
    assert.equal(
      await page.locator('main details.side-details > summary .state').textContent(),
      'open',
    )
    await context.close()
    // On a wide screen the details stand beside the text and the byline says the state.
    const wide = await app.person('Ann Lindqvist-Okonkwo', { idpId: 'idp-ann', viewport: WIDE })
    await wide.page.goto(`${app.url}/${project.slug}/${lone.number}`)
    assert.equal(await visibleCount(wide.page, 'main .byline .state'), 1)
    await wide.context.close()
  },
)

test(
  'on a phone the details stay open after saving a parent, so a blocker is added without another tap',
  T,
  async () => {
    const { context, page } = await app.person('Ann Lindqvist-Okonkwo', {
      idpId: 'idp-ann',
      viewport: PHONE,
      touch: true,
    })
    await page.goto(`${app.url}/${project.slug}/${lone.number}`)
    await page.locator('details.side-details > summary').tap()
    await page.getByRole('combobox', { name: 'Parent' }).fill('1')
    await page.locator('[data-live="parent-box"]').getByRole('button', { name: 'Save' }).tap()
    await page
      .locator('[data-live="parent-box"]')
      .getByRole('link', { name: `${project.slug}#1` })
      .waitFor()
    assert.equal(await page.locator('details.side-details').getAttribute('open'), '')
    await page.getByRole('combobox', { name: 'Blocked by' }).fill('2')
    await page.locator('[data-live="blockers-box"]').getByRole('button', { name: 'Add' }).tap()
    await page
      .locator('[data-live="blockers-box"]')
      .getByRole('link', { name: `${project.slug}#2` })
      .waitFor()
    assert.equal(await page.locator('details.side-details').getAttribute('open'), '')
    await context.close()
  },
)

test('a touch screen shows no keyboard hints; a screen with a mouse does', T, async () => {
  for (const touch of [true, false]) {
    const { context, page } = await app.person('Ann Lindqvist-Okonkwo', {
      idpId: 'idp-ann',
      viewport: touch ? PHONE : WIDE,
      touch,
    })
    await page.goto(`${app.url}/${project.slug}`)
    await page.getByText('New ticket').first().click()
    const onProject = await visibleCount(page, 'kbd')
    const footer = await page.locator('footer').innerText()
    await page.goto(`${app.url}/${project.slug}/${lone.number}`)
    const onTicket = await visibleCount(page, 'kbd')
    if (touch) {
      assert.equal(onProject + onTicket, 0)
      assert.doesNotMatch(footer, /keyboard shortcuts/)
    } else {
      assert.ok(onProject > 0 && onTicket > 0)
      assert.match(footer, /Press \? for keyboard shortcuts/)
    }
    await context.close()
  }
})
