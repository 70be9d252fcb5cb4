/**
 * Takes the screenshots of docs/notes-app.md with the tests' Chromium:
 * `npm test -- test/notes/screenshots.ts` writes docs/images/notes-*.png.
 * Not a test (its name does not end in .test.ts): it runs only when asked.
 */
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { notesBrowserApp, PHONE, saved } from './browser-support.ts'

const out = (name: string) => fileURLToPath(new URL(`../../docs/images/${name}.png`, import.meta.url))
const app = await notesBrowserApp()
const DESK = { width: 1100, height: 680 }

const notes = [
  'Reading list\nThe Dispossessed, Ursula K. Le Guin\nA Pattern Language\nThe Design of Everyday Things\n',
  'Trip to Lisbon\nTrain on Friday 7:40, seat 42.\nPack light: one bag, the blue jacket.\nMuseum of tiles on Saturday morning.\n',
  'Ideas for the garden\nTomatoes along the south wall.\nA bench under the apple tree.\nAsk Ana about the compost.\n',
  'Groceries\nmilk\neggs\nbread\ncoffee, the good one\n',
]

async function fill(page: Page): Promise<void> {
  for (const text of notes) {
    await page.getByRole('button', { name: 'New note' }).click()
    await page.getByRole('textbox', { name: 'Note' }).fill(text)
    await page.waitForTimeout(700)
  }
  await saved(page)
}

const light = await app.device('ana', { name: 'Ana Lima', viewport: DESK })
await fill(light.page)
await light.page.screenshot({ path: out('notes-desktop-light') })

const dark = await app.device('ana', { name: 'Ana Lima', viewport: DESK, colorScheme: 'dark' })
await dark.page.getByRole('list', { name: 'Notes' }).getByRole('button', { name: 'Trip to Lisbon' }).waitFor()
await dark.page.getByRole('list', { name: 'Notes' }).getByRole('button', { name: 'Trip to Lisbon' }).click()
await dark.page.screenshot({ path: out('notes-desktop-dark') })

// A conflicted copy: both devices change the same line offline.
await light.page.getByRole('list', { name: 'Notes' }).getByRole('button', { name: 'Trip to Lisbon' }).click()
await light.context.setOffline(true)
await dark.context.setOffline(true)
await light.page.getByRole('textbox', { name: 'Note' }).fill(notes[1]!.replace('seat 42', 'seat 17, window'))
await dark.page.getByRole('textbox', { name: 'Note' }).fill(notes[1]!.replace('seat 42', 'seat 44').replace('one bag', 'one small bag'))
await dark.page.waitForTimeout(800)
await light.context.setOffline(false)
await light.page.waitForTimeout(1500)
await dark.context.setOffline(false)
await dark.page.getByRole('button', { name: 'Keep both' }).waitFor()
await dark.page.setViewportSize({ width: 1100, height: 560 })
await dark.page.screenshot({ path: out('notes-conflict-dark') })

// History of a note.
await light.page.getByRole('list', { name: 'Notes' }).getByRole('button', { name: 'Groceries' }).click()
await light.page.getByRole('textbox', { name: 'Note' }).fill('Groceries\noat milk\neggs\nbread\ncoffee, the good one\nlemons\n')
await light.page.waitForTimeout(900)
await saved(light.page)
await light.page.getByRole('button', { name: 'History' }).click()
await light.page.locator('#revisions > li').nth(1).waitFor()
await light.page.screenshot({ path: out('notes-history-light') })

// The phone: the list, and a note with its back button.
const phone = await app.device('ana', { name: 'Ana Lima', viewport: PHONE })
await phone.page.getByRole('list', { name: 'Notes' }).getByRole('button', { name: 'Ideas for the garden' }).waitFor()
await phone.page.screenshot({ path: out('notes-phone-list-light') })
const phoneDark = await app.device('ana', { name: 'Ana Lima', viewport: PHONE, colorScheme: 'dark' })
await phoneDark.page.getByRole('list', { name: 'Notes' }).getByRole('button', { name: 'Ideas for the garden' }).click()
await phoneDark.context.setOffline(true)
await phoneDark.page.getByRole('textbox', { name: 'Note' }).press('End')
await phoneDark.page.getByRole('textbox', { name: 'Note' }).pressSequentially('Plant basil in May.')
await phoneDark.page.getByRole('status').filter({ hasText: 'Offline' }).waitFor()
await phoneDark.page.waitForTimeout(900)
await phoneDark.page.screenshot({ path: out('notes-phone-note-dark') })

const welcome = await app.browser.newPage({ viewport: DESK })
await welcome.goto(app.url)
await welcome.setViewportSize({ width: 700, height: 440 })
await welcome.screenshot({ path: out('notes-welcome-light') })

await app.close()
