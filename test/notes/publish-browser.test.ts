/**
 * Publishing in real Chromium: Share → Publish gives a link; a reader without a session opens it,
 * sees the note as Markdown and the owner's next save while the page is open; Unpublish ends it;
 * the Share panel and the published page pass axe-core at 1280 and 390 px, light and dark.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessibleLightAndDark } from '../support/axe.ts'
import { notesBrowserApp, PHONE, saved } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 120_000 }

const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })

async function write(page: Page, text: string): Promise<void> {
  await page.getByRole('button', { name: 'New note' }).click()
  await editor(page).fill(text)
  await editor(page).blur()
}

async function publish(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Share' }).click()
  await page.getByRole('button', { name: 'Publish', exact: true }).click()
  const link = page.getByRole('textbox', { name: 'Link' })
  await link.waitFor()
  return link.inputValue()
}

test(
  "a published note is read by anyone with the link, follows the owner's saves while open, and Unpublish ends it",
  T,
  async () => {
    const { page } = await app.device('publisher')
    await write(page, '# Trip notes\n\nTrain at **7:40**.\n')
    await saved(page)
    const url = await publish(page)
    assert.match(url, new RegExp(`^${app.url}/p/[A-Za-z0-9_-]{22}$`))

    const reader = await app.browser.newContext()
    const view = await reader.newPage()
    const answer = await view.goto(url)
    assert.equal(answer?.headers()['set-cookie'], undefined)
    await view.getByRole('heading', { name: 'Trip notes' }).waitFor()
    assert.equal(await view.locator('strong').innerText(), '7:40')
    assert.deepEqual(await reader.cookies(), [])

    await page.getByRole('button', { name: 'Close' }).click()
    await editor(page).fill('# Trip notes\n\nTrain at **8:10** now.\n')
    await editor(page).blur()
    await saved(page)
    await view.getByText('now.').waitFor({ timeout: 15_000 })
    assert.equal(await view.locator('strong').innerText(), '8:10')

    await page.getByRole('button', { name: 'Share' }).click()
    await page.getByRole('button', { name: 'Unpublish' }).click()
    await page.getByRole('button', { name: 'Publish', exact: true }).waitFor()
    await view.getByText('This note is no longer published.').waitFor({ timeout: 15_000 })
    const again = await view.reload()
    assert.equal(again?.status(), 404)
    await reader.close()
  },
)

test('offline, Share says publishing needs a connection', T, async () => {
  const { page, context } = await app.device('offline-publisher')
  await write(page, 'Offline\n')
  await saved(page)
  await context.setOffline(true)
  await page.getByRole('button', { name: 'Share' }).click()
  await page.getByText('Publishing needs a connection').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Publish', exact: true }).isVisible(), false)
})

test(
  'the Share panel and the published page pass axe-core, light and dark, 1280 and 390 px',
  T,
  async () => {
    for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
      const what = `${viewport.width} px`
      const { page, context } = await app.device(`publish-${viewport.width}`, { viewport })
      await write(page, '# Garden\n\n- [x] tomatoes\n- [ ] bench\n\nAsk *Ana* about the compost.\n')
      await saved(page)
      const url = await publish(page)
      await assertAccessibleLightAndDark(
        page,
        `the Share panel, ${what}`,
        `notes-share-${viewport.width}`,
      )
      const reader = await app.browser.newContext({ viewport })
      const view = await reader.newPage()
      await view.goto(url)
      await view.getByRole('heading', { name: 'Garden' }).waitFor()
      await assertAccessibleLightAndDark(
        view,
        `the published page, ${what}`,
        `notes-published-${viewport.width}`,
      )
      await view.goto(`${app.url}/p/AAAAAAAAAAAAAAAAAAAAAA`)
      await assertAccessibleLightAndDark(view, `the page of an address not published, ${what}`)
      await reader.close()
      await context.close()
    }
  },
)
