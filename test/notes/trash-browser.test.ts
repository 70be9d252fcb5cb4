/**
 * "Recently deleted" in real Chromium: a deleted note listed with its last text and brought back
 * by Restore, online and offline (queued like a save), a delete made on another device listed
 * here too, Empty trash, and the view at 1280 and 390 px, light and dark, under axe-core.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessibleLightAndDark } from '../support/axe.ts'
import { until } from '../support/wait.ts'
import { notesBrowserApp, PHONE, saved } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 120_000 }

const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })
const notesList = (page: Page) => page.getByRole('list', { name: 'Notes' })
const deleted = (page: Page) => page.getByRole('list', { name: 'Deleted notes' })
const item = (page: Page, title: string) => notesList(page).getByRole('button', { name: title })

async function serverNote(
  user: string,
  id: string,
): Promise<{ text: string; gone: boolean; purged: boolean } | undefined> {
  return (
    await app.sql<
      { text: string; gone: boolean; purged: boolean }[]
    >`select text, gone, purged from notes where user_id = ${user} and id = ${id}`
  )[0]
}

async function idOf(page: Page, title: string): Promise<string> {
  return (await item(page, title).getAttribute('data-id'))!
}

async function write(page: Page, text: string): Promise<void> {
  await page.getByRole('button', { name: 'New note' }).click()
  await editor(page).fill(text)
  await editor(page).blur()
}

/** Deletes the note `title` and waits until the server has the tombstone (the Undo's 5 s passed). */
async function deleteNote(page: Page, user: string, title: string): Promise<string> {
  const id = await idOf(page, title)
  await item(page, title).click()
  await page.getByRole('button', { name: 'Delete', exact: true }).click()
  await until(async () => (await serverNote(user, id))?.gone === true)
  return id
}

test(
  'a deleted note is listed under Recently deleted with its last text, and Restore brings it back as it was',
  T,
  async () => {
    const { page } = await app.device('trasher')
    await write(page, 'Packing list\nsocks\nmap\n')
    await saved(page)
    const id = await deleteNote(page, 'trasher', 'Packing list')
    assert.equal(await item(page, 'Packing list').count(), 0)
    await page.getByRole('button', { name: 'Recently deleted' }).click()
    const entry = deleted(page).getByRole('listitem').filter({ hasText: 'Packing list' })
    await entry.waitFor()
    assert.match(await entry.innerText(), /socks\nmap/)
    assert.match(await entry.innerText(), /kept until/)
    await entry.getByRole('button', { name: 'Restore' }).click()
    await page.getByText('Restored “Packing list”.').waitFor()
    assert.equal(
      await editor(page).inputValue(),
      'Packing list\nsocks\nmap\n',
      'the note opens as it was',
    )
    await until(async () => (await serverNote('trasher', id))?.gone === false)
    assert.equal((await serverNote('trasher', id))?.text, 'Packing list\nsocks\nmap\n')
    await page.getByRole('button', { name: 'Recently deleted' }).click()
    await page.getByText('Nothing deleted in the last 30 days.').waitFor()
  },
)

test(
  'offline, the trash is read from the copy and Restore is queued like a save, sent when the network is back',
  T,
  async () => {
    const { page, context } = await app.device('offline-trasher')
    await write(page, 'Recipe\nflour\n')
    await saved(page)
    const id = await deleteNote(page, 'offline-trasher', 'Recipe')
    await context.setOffline(true)
    await page.getByRole('button', { name: 'Recently deleted' }).click()
    await deleted(page)
      .getByRole('listitem')
      .filter({ hasText: 'Recipe' })
      .getByRole('button', { name: 'Restore' })
      .click()
    await page.getByRole('status').filter({ hasText: 'Waiting to sync (1)' }).waitFor()
    assert.equal((await serverNote('offline-trasher', id))?.gone, true)
    await context.setOffline(false)
    await until(async () => (await serverNote('offline-trasher', id))?.gone === false)
    await saved(page)
  },
)

test(
  "a note deleted on another device is in this device's trash, and Empty trash removes every one for good",
  T,
  async () => {
    const a = await app.device('emptier')
    await write(a.page, 'First\none\n')
    await write(a.page, 'Second\ntwo\n')
    await saved(a.page)
    const b = await app.device('emptier')
    await item(b.page, 'First').waitFor()
    const first = await deleteNote(b.page, 'emptier', 'First')
    const second = await deleteNote(b.page, 'emptier', 'Second')
    await a.page.evaluate(() => window.dispatchEvent(new Event('focus')))
    await until(async () => (await item(a.page, 'First').count()) === 0)
    await a.page.getByRole('button', { name: 'Recently deleted' }).click()
    await deleted(a.page).getByRole('listitem').filter({ hasText: 'Second' }).waitFor()
    assert.equal(await deleted(a.page).getByRole('listitem').count(), 2)

    a.page.once('dialog', (dialog) => void dialog.accept())
    await a.page.getByRole('button', { name: 'Empty trash' }).click()
    await a.page.getByText('Removed 2 notes for good.').waitFor()
    await a.page.getByText('Nothing deleted in the last 30 days.').waitFor()
    for (const id of [first, second])
      assert.deepEqual(await serverNote('emptier', id), { text: '', gone: true, purged: true })
    await a.context.close()
    await b.context.close()
  },
)

test(
  'Recently deleted passes axe-core, light and dark, 1280 and 390 px, and Back on a phone returns to the list',
  T,
  async () => {
    for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
      const user = `trash-${viewport.width}`
      const { page, context } = await app.device(user, { viewport })
      await write(page, 'Old plans\nmove the desk\nbuy a lamp\n')
      await saved(page)
      if (viewport === PHONE) await page.getByRole('button', { name: 'Back' }).click()
      await deleteNote(page, user, 'Old plans')
      await page.getByRole('button', { name: 'Recently deleted' }).click()
      await deleted(page).getByRole('listitem').first().waitFor()
      await assertAccessibleLightAndDark(
        page,
        `Recently deleted, ${viewport.width} px`,
        `notes-trash-${viewport.width}`,
      )
      if (viewport === PHONE) {
        await page.getByRole('button', { name: 'Back' }).click()
        await notesList(page).waitFor()
        assert.equal(await deleted(page).isVisible(), false)
      }
      await context.close()
    }
  },
)
