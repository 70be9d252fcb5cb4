/**
 * "Import notes" in real Chromium: a zip, loose Markdown files and a folder picked, each note in
 * the list at once and on the server after the sync, offline too; what was passed over is said;
 * the view passes axe-core at 1280 and 390 px, light and dark.
 */
import assert from 'node:assert/strict'
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { strToU8, zipSync } from 'fflate'
import type { Page } from 'playwright-core'
import { assertAccessibleLightAndDark } from '../support/axe.ts'
import { until } from '../support/wait.ts'
import { notesBrowserApp, PHONE, saved } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 120_000 }
const titles = (page: Page) =>
  page.getByRole('list', { name: 'Notes' }).locator('.title').allInnerTexts()

async function serverTexts(user: string): Promise<string[]> {
  return (
    await app.sql<{ text: string }[]>`select text from notes where user_id = ${user} and not gone`
  ).map((n) => n.text)
}

test(
  'a zip, Markdown files and a folder are imported as notes that sync, offline too, and skipped files are named',
  T,
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'notes-import-'))
    await writeFile(
      join(dir, 'export.zip'),
      zipSync({
        'a/Plans.md': strToU8('Plans\nmove the desk #home\n'),
        'b/Recipe.txt': strToU8('Recipe\nflour\n'),
      }),
    )
    await writeFile(join(dir, 'Loose.md'), '# Loose\nfrom a file\n')
    await writeFile(join(dir, 'photo.png'), 'PNG')
    await mkdir(join(dir, 'folder'))
    await writeFile(join(dir, 'folder', 'In a folder.md'), 'In a folder\nwords\n')
    const { page, context } = await app.device('importer')
    await page.getByRole('button', { name: 'Import notes' }).click()
    await page
      .getByLabel('Files or a zip')
      .setInputFiles([join(dir, 'export.zip'), join(dir, 'Loose.md'), join(dir, 'photo.png')])
    await page.getByText('Imported 3 notes').waitFor()
    await page.getByText('1 file was passed over:').waitFor()
    assert.match(
      await page.locator('#import-result').innerText(),
      /photo\.png: not a text, Markdown, zip or JSON file/,
    )
    assert.deepEqual((await titles(page)).sort(), ['# Loose', 'Plans', 'Recipe'])
    await until(async () => (await serverTexts('importer')).length === 3)
    await saved(page)

    await context.setOffline(true)
    await page.getByLabel('A folder').setInputFiles(join(dir, 'folder'))
    await page.getByText('Imported 1 note').waitFor()
    await page.getByRole('status').filter({ hasText: 'Waiting to sync (1)' }).waitFor()
    await context.setOffline(false)
    await until(async () => (await serverTexts('importer')).includes('In a folder\nwords\n'))
    await page.getByRole('button', { name: 'Close' }).click()
    await page
      .getByRole('navigation', { name: 'Tags' })
      .getByRole('button', { name: /^#home/ })
      .waitFor()
  },
)

test('the import view passes axe-core, light and dark, 1280 and 390 px', T, async () => {
  for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
    const { page, context } = await app.device(`import-${viewport.width}`, { viewport })
    await page.getByRole('button', { name: 'Import notes' }).click()
    await page.getByLabel('Files or a zip').setInputFiles([
      { name: 'a.md', mimeType: 'text/markdown', buffer: Buffer.from('A note\n') },
      { name: 'b.bin', mimeType: 'application/octet-stream', buffer: Buffer.from('x') },
    ])
    await page.getByText('Imported 1 note').waitFor()
    await assertAccessibleLightAndDark(
      page,
      `the import view, ${viewport.width} px`,
      `notes-import-${viewport.width}`,
    )
    await context.close()
  }
})
