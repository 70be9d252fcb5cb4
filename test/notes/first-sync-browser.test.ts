/**
 * A new device's first sync in Chromium (issue 36, point 5): while the notes come from the server
 * the list says "Loading your notes…", never "No notes yet"; a person who has none is told so
 * once the sync answered.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Route } from 'playwright-core'
import { notesBrowserApp, saved } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 90_000 }

test(
  'a new device says "Loading your notes…" until its first sync brings the notes',
  T,
  async () => {
    const first = await app.device('lena')
    await first.page.getByRole('button', { name: 'New note' }).click()
    await first.page.getByRole('textbox', { name: 'Note' }).fill('Seeds to order\nbeans')
    await saved(first.page)

    // The second device's pulls wait until the test lets them through.
    const held: Route[] = []
    let release = false
    const second = await app.device('lena', {
      before: async (page) => {
        await page
          .context()
          .route(
            '**/api/notes/changes*',
            (route) => void (release ? route.continue() : held.push(route)),
          )
      },
    })
    const empty = second.page.locator('#empty')
    await second.page.waitForFunction(
      () => document.getElementById('empty')?.textContent === 'Loading your notes…',
    )
    assert.equal(await empty.isVisible(), true)
    release = true
    for (const route of held.splice(0)) await route.continue()
    await second.page
      .getByRole('list', { name: 'Notes' })
      .getByText('Seeds to order')
      .waitFor({ timeout: 20_000 })
    assert.equal(await empty.isVisible(), false)
    await first.context.close()
    await second.context.close()
  },
)

test(
  'a person with no notes at all is told "No notes yet" once the first sync answered',
  T,
  async () => {
    const device = await app.device('nina')
    await device.page.waitForFunction(
      () => document.getElementById('empty')?.textContent?.startsWith('No notes yet'),
      null,
      { timeout: 20_000 },
    )
    await device.context.close()
  },
)
