/**
 * The notes app in Chromium (issue 36, point 5): the history names devices by what a person can
 * tell apart (the name they give a device, with its browser and system), one note reads the same
 * time on every device, and the search's results show the words that matched, marked, as text.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible } from '../support/axe.ts'
import { screenshot } from '../support/full-app.ts'
import { notesBrowserApp, PHONE, saved, WIDE } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 90_000 }

const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })
const notesList = (page: Page) => page.getByRole('list', { name: 'Notes' })
const search = (page: Page) => page.getByRole('searchbox', { name: 'Search notes' })

async function onServer(user: string, text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const rows = await app.sql`select 1 from notes where user_id = ${user} and text = ${text}`
    if (rows.length > 0) return
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.fail(`the server never got ${JSON.stringify(text)}`)
}

async function syncNow(page: Page): Promise<void> {
  await page.evaluate(() => window.dispatchEvent(new Event('focus')))
}

/** Pictures of the page at 1280 and 390 px, light and dark; the viewport put back after. */
async function pictures(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [
    ['1280', WIDE],
    ['390', PHONE],
  ] as const)
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize(viewport)
      await page.emulateMedia({ colorScheme: scheme })
      await screenshot(page, `${name}-${size}-${scheme}`)
    }
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
}

test(
  'a device named in the history is shown by that name, with its browser and system, on the other device; one note reads one time on both',
  T,
  async () => {
    const laptop = await app.device('namer')
    const phone = await app.device('namer')
    await laptop.page.getByRole('button', { name: 'New note' }).click()
    await editor(laptop.page).fill('Plans\nfirst line')
    await onServer('namer', 'Plans\nfirst line')
    await saved(laptop.page)
    await laptop.page.getByRole('button', { name: 'History' }).click()
    await laptop.page.getByLabel('Name of this device').fill('  Work   laptop ')
    await laptop.page.getByRole('button', { name: 'Save name' }).click()
    await laptop.page.getByText('This device is now called Work laptop.').waitFor()
    await assertAccessible(laptop.page, 'the history with the device name form')
    await laptop.page.getByRole('button', { name: 'Close history' }).click()
    await editor(laptop.page).fill('Plans\nfirst line\nsecond line')
    await onServer('namer', 'Plans\nfirst line\nsecond line')
    await saved(laptop.page)

    await syncNow(phone.page)
    await notesList(phone.page).getByRole('button', { name: 'Plans' }).click()
    await phone.page.waitForFunction(() =>
      (document.getElementById('editor') as HTMLTextAreaElement).value.endsWith('second line'),
    )
    // One time on both devices: the server's, to the millisecond.
    const timeOf = (page: Page) =>
      notesList(page)
        .getByRole('button', { name: 'Plans' })
        .locator('time')
        .getAttribute('datetime')
    assert.equal(await timeOf(phone.page), await timeOf(laptop.page))

    await phone.page.getByRole('button', { name: 'History' }).click()
    const versions = phone.page.locator('#revisions > li')
    await versions.nth(1).waitFor()
    assert.deepEqual(await versions.locator('.revision-head .muted').allInnerTexts(), [
      'Work laptop (Chrome on Linux)',
      'Chrome on Linux',
    ])
    await laptop.page.getByRole('button', { name: 'History' }).click()
    const own = laptop.page.locator('#revisions > li .revision-head .muted')
    await own.nth(1).waitFor()
    // On the device itself every version it saved is "this device", under the name it has now.
    assert.deepEqual(await own.allInnerTexts(), [
      'this device (Work laptop)',
      'this device (Work laptop)',
    ])
    await pictures(laptop.page, 'notes-device-name')
    // The name stays in this browser: a reload shows it in the form.
    await laptop.page.reload()
    await notesList(laptop.page).getByRole('button', { name: 'Plans' }).click()
    await laptop.page.getByRole('button', { name: 'History' }).click()
    assert.equal(await laptop.page.getByLabel('Name of this device').inputValue(), 'Work laptop')
    await laptop.context.close()
    await phone.context.close()
  },
)

test(
  'search results mark the matched words in the title and in an excerpt around them, and text that looks like markup stays text',
  T,
  async () => {
    const { page, context } = await app.device('finder')
    const texts = [
      `Groceries\n${'Things for the weekend, and more things. '.repeat(3)}Then oat milk, two.`,
      'Milk run\nthe corner shop',
      'Tags\n<b>milk</b> & <img src=x onerror=alert(1)> here',
      'Unrelated\nnothing to see',
    ]
    for (const [i, text] of texts.entries())
      await app.sql`insert into notes (user_id, id, text, created, edited, gone) values ('finder', ${`find-${i}`}, ${text}, ${i + 1}, ${i + 1}, false)`
    await app.sql`insert into note_clocks (user_id, last_edited) values ('finder', ${texts.length}) on conflict (user_id) do update set last_edited = ${texts.length}`
    await syncNow(page)
    await page.waitForFunction(() => document.querySelectorAll('#list button.item').length === 4)

    await search(page).fill('milk')
    await page.waitForFunction(() => document.querySelectorAll('#list button.item').length === 3)
    const marked = async (title: string) =>
      notesList(page)
        .getByRole('button', { name: new RegExp(title) })
        .locator('mark')
        .allInnerTexts()
    assert.deepEqual(await marked('Milk run'), ['Milk'])
    assert.deepEqual(await marked('Groceries'), ['milk'])
    const groceries = notesList(page).getByRole('button', { name: /Groceries/ })
    assert.match(await groceries.locator('.meta').innerText(), /….*Then oat milk, two\.$/)
    const tags = notesList(page).getByRole('button', { name: /Tags/ })
    assert.deepEqual(await tags.locator('mark').allInnerTexts(), ['milk'])
    assert.match(await tags.locator('.meta').innerText(), /<b>milk<\/b> & <img src=x/)
    assert.equal(await notesList(page).locator('b, img').count(), 0, 'nothing of the note is HTML')
    await assertAccessible(page, 'search results with marked words')
    await pictures(page, 'notes-search-marks')
    await search(page).fill('')
    await page.waitForFunction(() => document.querySelectorAll('#list button.item').length === 4)
    assert.equal(await notesList(page).locator('mark').count(), 0, 'no marks without a search')
    await context.close()
  },
)
