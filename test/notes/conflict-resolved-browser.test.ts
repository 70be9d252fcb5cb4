/**
 * A conflict sorted out on one device is over on the other (issue 36, point 5), in Chromium: the
 * notice above the note goes at that device's next sync, without a reload, and does not come back
 * when the note is opened again.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { notesBrowserApp, saved } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 90_000 }
const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })

async function onServer(user: string, text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (
      (await app.sql`select 1 from notes where user_id = ${user} and not gone and text = ${text}`)
        .length > 0
    )
      return
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.fail(`the server never got ${JSON.stringify(text)}`)
}

/** Has the page sync now, as it does when its window gets the focus. */
async function syncNow(page: Page): Promise<void> {
  await page.evaluate(() => window.dispatchEvent(new Event('focus')))
}

test(
  'the conflict notice goes on the other device at its next sync once the copy is sorted out',
  T,
  async () => {
    const a = await app.device('mend')
    const b = await app.device('mend')
    await a.page.getByRole('button', { name: 'New note' }).click()
    await editor(a.page).fill('Colour\nblue\n')
    await onServer('mend', 'Colour\nblue\n')
    await saved(a.page)
    await syncNow(b.page)
    await b.page
      .getByRole('list', { name: 'Notes' })
      .getByRole('button', { name: 'Colour' })
      .click()
    await a.context.setOffline(true)
    await b.context.setOffline(true)
    await editor(a.page).fill('Colour\ngreen\n')
    await editor(b.page).fill('Colour\nred\n')
    await b.page.getByRole('status').filter({ hasText: 'Waiting to sync (1)' }).waitFor()
    await a.context.setOffline(false)
    await onServer('mend', 'Colour\ngreen\n')
    await b.context.setOffline(false)
    await onServer('mend', 'Colour\nred\n')

    // a kept its text in the note and is told of the copy above the note it has open.
    await syncNow(a.page)
    const aNotice = a.page.locator('#notice')
    await aNotice.getByText('Conflict in “Colour”').waitFor()

    // b, whose text became the copy, keeps only its own version: the conflict is over.
    await b.page.getByRole('button', { name: "Keep only this device's version" }).click()
    await saved(b.page)
    for (
      let i = 0;
      i < 200 &&
      (await app.sql`select 1 from notes where user_id = 'mend' and not gone`).length > 1;
      i++
    )
      await new Promise((r) => setTimeout(r, 100))
    await syncNow(a.page)
    await aNotice.waitFor({ state: 'hidden', timeout: 20_000 })
    await a.page.waitForFunction(
      () => document.querySelectorAll('#list button.item').length === 1,
      null,
      { timeout: 20_000 },
    )
    // b kept its version as the note: a's list has it, and opened it shows no conflict.
    await a.page
      .getByRole('list', { name: 'Notes' })
      .getByRole('button', { name: 'Colour' })
      .click()
    await a.page.waitForFunction(
      () => (document.getElementById('editor') as HTMLTextAreaElement).value === 'Colour\nred\n',
    )
    assert.equal(await aNotice.isVisible(), false)
    await a.context.close()
    await b.context.close()
  },
)
