/**
 * Takes the screenshots of docs/notes-app.md with the tests' Chromium, at 1280 px and 390 px,
 * light and dark: `npm test -- test/notes/screenshots.ts` writes docs/images/notes-*.png.
 * Not a test (its name does not end in .test.ts): it runs only when asked.
 */
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { notesBrowserApp, PHONE, saved } from './browser-support.ts'

const out = (name: string) =>
  fileURLToPath(new URL(`../../docs/images/${name}.png`, import.meta.url))
const app = await notesBrowserApp()
const DESK = { width: 1280, height: 760 }

const notes = [
  'Reading list\n\n- [x] *The Dispossessed*, Ursula K. Le Guin\n- [ ] *A Pattern Language*\n- [ ] *The Design of Everyday Things*\n\n#books\n',
  'Trip to Lisbon\nTrain on Friday 7:40, seat 42.\nPack light: one bag, the blue jacket.\nMuseum of tiles on Saturday morning. #travel/portugal\n',
  'Ideas for the garden\nTomatoes along the south wall.\nA bench under the apple tree. #home/garden\nAsk Ana about the compost.\n',
  'Groceries\nmilk\neggs #home\nbread\ncoffee, the good one',
]

const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })
const item = (page: Page, title: string) =>
  page.getByRole('list', { name: 'Notes' }).getByRole('button', { name: title })

async function fill(page: Page): Promise<void> {
  for (const text of notes) {
    await page.getByRole('button', { name: 'New note' }).click()
    await editor(page).fill(text)
    await page.waitForTimeout(700)
  }
  await saved(page)
}

for (const scheme of ['light', 'dark'] as const) {
  const user = `ana-${scheme}`
  const desk = await app.device(user, { name: 'Ana Lima', viewport: DESK, colorScheme: scheme })
  await fill(desk.page)
  await item(desk.page, 'Trip to Lisbon').click()
  await desk.page.screenshot({ path: out(`notes-desktop-${scheme}`) })
  // Tags: a sub-tag chosen, its parent unfolded.
  const tags = desk.page.getByRole('navigation', { name: 'Tags' })
  await tags.getByRole('button', { name: 'Sub-tags of #home', exact: true }).click()
  await tags.getByRole('button', { name: /^#garden/ }).click()
  await item(desk.page, 'Ideas for the garden').click()
  await desk.page.screenshot({ path: out(`notes-tags-${scheme}`) })
  await tags.getByRole('button', { name: 'All notes' }).click()
  // Reading: a task list, the note pinned.
  await item(desk.page, 'Reading list').click()
  await desk.page.getByRole('button', { name: 'Pin', exact: true }).click()
  await desk.page.getByRole('button', { name: 'Read', exact: true }).click()
  await desk.page.getByRole('checkbox', { name: 'A Pattern Language' }).waitFor()
  await desk.page.screenshot({ path: out(`notes-reading-${scheme}`) })
  // Publishing: the Share panel with the link, and the page a reader sees.
  await desk.page.getByRole('button', { name: 'Share' }).click()
  await desk.page.getByRole('button', { name: 'Publish', exact: true }).click()
  const link = await desk.page.getByRole('textbox', { name: 'Link' }).inputValue()
  await desk.page.waitForTimeout(4500)
  await desk.page.screenshot({ path: out(`notes-share-${scheme}`) })
  for (const [viewport, name] of [
    [DESK, `notes-published-${scheme}`],
    [PHONE, `notes-phone-published-${scheme}`],
  ] as const) {
    const reader = await app.browser.newPage({ viewport, colorScheme: scheme })
    await reader.goto(link)
    await reader.getByRole('checkbox', { name: 'A Pattern Language' }).waitFor()
    await reader.screenshot({ path: out(name) })
    await reader.close()
  }
  await desk.page.getByRole('button', { name: 'Close' }).click()

  // The phone: the list, a search with no match, and a note written offline.
  const phone = await app.device(user, { name: 'Ana Lima', viewport: PHONE, colorScheme: scheme })
  await item(phone.page, 'Ideas for the garden').waitFor()
  await phone.page.screenshot({ path: out(`notes-phone-list-${scheme}`) })
  await phone.page
    .getByRole('navigation', { name: 'Tags' })
    .getByText('Tags', { exact: true })
    .click()
  await phone.page
    .getByRole('navigation', { name: 'Tags' })
    .getByRole('button', { name: /^#home/ })
    .click()
  await phone.page.screenshot({ path: out(`notes-phone-tags-${scheme}`) })
  await phone.page
    .getByRole('navigation', { name: 'Tags' })
    .getByRole('button', { name: 'All notes' })
    .click()
  await phone.page
    .getByRole('navigation', { name: 'Tags' })
    .getByText('Tags', { exact: true })
    .click()
  await item(phone.page, 'Reading list').click()
  await phone.page.getByRole('button', { name: 'Read', exact: true }).click()
  await phone.page.getByRole('checkbox', { name: 'A Pattern Language' }).waitFor()
  await phone.page.screenshot({ path: out(`notes-phone-reading-${scheme}`) })
  await phone.page.getByRole('button', { name: 'Write', exact: true }).click()
  await phone.page.getByRole('button', { name: 'Back' }).click()
  await phone.page.getByRole('searchbox', { name: 'Search notes' }).fill('tulips')
  await phone.page.getByText('No note has these words.').waitFor()
  await phone.page.screenshot({ path: out(`notes-phone-search-${scheme}`) })
  await phone.page.getByRole('searchbox', { name: 'Search notes' }).fill('')
  await item(phone.page, 'Ideas for the garden').click()
  await phone.context.setOffline(true)
  await editor(phone.page).press('End')
  await editor(phone.page).pressSequentially('Plant basil in May.')
  await phone.page.getByRole('status').filter({ hasText: 'Offline' }).waitFor()
  await phone.page.waitForTimeout(900)
  await editor(phone.page).blur()
  await phone.page.screenshot({ path: out(`notes-phone-note-${scheme}`) })
  await phone.context.setOffline(false)
  await saved(phone.page)

  // History: a line added after a last line without a line end, saved by two devices.
  await item(desk.page, 'Groceries').click()
  await editor(desk.page).fill(`${notes[3]}\nlemons`)
  await desk.page.waitForTimeout(900)
  await saved(desk.page)
  await phone.page.goBack()
  await phone.page.evaluate(() => window.dispatchEvent(new Event('focus')))
  await item(phone.page, 'Groceries').click()
  await phone.page.waitForFunction(() =>
    (document.getElementById('editor') as HTMLTextAreaElement).value.endsWith('lemons'),
  )
  await editor(phone.page).fill(`${notes[3]}\nlemons\noat milk`)
  await phone.page.waitForTimeout(900)
  await saved(phone.page)
  await phone.page.getByRole('button', { name: 'History' }).click()
  await phone.page.locator('#revisions > li').nth(2).waitFor()
  await phone.page.screenshot({ path: out(`notes-phone-history-${scheme}`) })
  await desk.page.evaluate(() => window.dispatchEvent(new Event('focus')))
  await desk.page.waitForFunction(() =>
    (document.getElementById('editor') as HTMLTextAreaElement).value.endsWith('oat milk'),
  )
  await desk.page.getByRole('button', { name: 'History' }).click()
  await desk.page.locator('#revisions > li').nth(2).waitFor()
  await desk.page.screenshot({ path: out(`notes-history-${scheme}`) })
  await desk.page.getByRole('button', { name: 'Close history' }).click()
  await phone.page.getByRole('button', { name: 'Close history' }).click()

  // A conflict: both change the same line offline; the phone sends second and gets the copy.
  await phone.page.goBack()
  await item(desk.page, 'Trip to Lisbon').click()
  await item(phone.page, 'Trip to Lisbon').click()
  await desk.context.setOffline(true)
  await phone.context.setOffline(true)
  await editor(desk.page).fill(notes[1]!.replace('seat 42', 'seat 17, window'))
  await editor(phone.page).fill(
    notes[1]!.replace('seat 42', 'seat 44').replace('one bag', 'one small bag'),
  )
  await phone.page.waitForTimeout(800)
  await desk.context.setOffline(false)
  await saved(desk.page)
  await phone.context.setOffline(false)
  await phone.page.getByRole('button', { name: 'Keep both' }).waitFor()
  await phone.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor()
  await phone.page.screenshot({ path: out(`notes-phone-conflict-${scheme}`) })
  await desk.page.evaluate(() => window.dispatchEvent(new Event('focus')))
  await desk.page.getByRole('button', { name: 'Compare' }).click()
  await desk.page.getByRole('button', { name: 'Keep both' }).waitFor()
  await desk.page.screenshot({ path: out(`notes-conflict-${scheme}`) })
  // Recently deleted: a note deleted on the desk, listed on both.
  await desk.page.getByRole('button', { name: 'Keep both' }).click()
  // Import: a zip and a file that is not a note.
  await desk.page.getByRole('button', { name: 'Import notes' }).click()
  await desk.page.getByLabel('Files or a zip').setInputFiles([
    {
      name: 'Simplenote export.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify({
          activeNotes: [
            { id: '1', content: 'Book club\nNext: The Left Hand of Darkness', tags: ['books'] },
          ],
        }),
      ),
    },
    {
      name: 'Packing.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('Packing\n- [ ] passport\n- [ ] charger\n'),
    },
    { name: 'scan.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF') },
  ])
  await desk.page.getByText('Imported 2 notes').waitFor()
  await desk.page.screenshot({ path: out(`notes-import-${scheme}`) })
  await desk.page.getByRole('button', { name: 'Close' }).click()

  await item(desk.page, 'Ideas for the garden').click()
  await desk.page.getByRole('button', { name: 'Delete', exact: true }).click()
  for (
    let i = 0;
    i < 200 && (await app.sql`select 1 from notes where user_id = ${user} and gone`).length === 0;
    i++
  )
    await desk.page.waitForTimeout(100)
  await desk.page.getByRole('button', { name: 'Recently deleted' }).click()
  await desk.page.getByRole('button', { name: 'Restore' }).waitFor()
  await desk.page.screenshot({ path: out(`notes-trash-${scheme}`) })
  await phone.page.getByRole('button', { name: 'Back' }).click()
  await phone.page.evaluate(() => window.dispatchEvent(new Event('focus')))
  await phone.page.getByRole('button', { name: 'Recently deleted' }).click()
  await phone.page.getByRole('button', { name: 'Restore' }).waitFor()
  await phone.page.screenshot({ path: out(`notes-phone-trash-${scheme}`) })
  await desk.context.close()
  await phone.context.close()
}

const welcome = await app.browser.newPage({ viewport: PHONE })
await welcome.goto(app.url)
await welcome.screenshot({ path: out('notes-welcome-light') })

await app.close()
