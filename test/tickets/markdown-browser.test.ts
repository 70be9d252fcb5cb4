/**
 * Markdown as a person sees it in Chromium: a comment typed on several lines shows on those lines,
 * in the preview under the box and in the history once sent, as GitHub shows a comment.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { assertAccessible } from '../support/axe.ts'
import { ticketsBrowserApp } from './browser-support.ts'

const app = await ticketsBrowserApp()
after(() => app.close())

test(
  'a comment written on three lines shows on three lines, in the preview and in the history',
  { timeout: 90_000 },
  async () => {
    const mia = await app.app.login('mia', 'idp-mia')
    const project = await app.app.project(mia, 'Lines')
    const ticket = await app.app.ticket(mia, project.slug, {
      subject: 'Where to ship',
      summary: 'Ship to:\nMia Berg\n12 Harbour Road',
    })
    const { context, page } = await app.person('mia', { idpId: 'idp-mia' })
    await page.goto(`${app.url}/${project.slug}/${ticket.number}`)
    const lines = (selector: string) =>
      page
        .locator(selector)
        .evaluate((el) => (el as HTMLElement).innerText.split('\n').filter((l) => l.trim() !== ''))
    assert.deepEqual(await lines('[data-live="summary"]'), [
      'Ship to:',
      'Mia Berg',
      '12 Harbour Road',
    ])
    await page.getByLabel('Comment').fill('Checked:\nthe address\nthe postcode')
    await page.getByRole('button', { name: 'Preview' }).click()
    assert.deepEqual(await lines('#comment-text-preview'), [
      'Checked:',
      'the address',
      'the postcode',
    ])
    await page.getByRole('button', { name: 'Comment', exact: true }).click()
    const bubble = page.getByRole('list', { name: 'History' }).locator('.bubble')
    await bubble.waitFor()
    assert.deepEqual(
      await bubble.evaluate((el) =>
        (el as HTMLElement).innerText.split('\n').filter((l) => l.trim() !== ''),
      ),
      ['Checked:', 'the address', 'the postcode'],
    )
    await assertAccessible(page, 'ticket with a comment on three lines')
    await context.close()
  },
)
