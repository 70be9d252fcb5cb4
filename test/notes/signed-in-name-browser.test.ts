/**
 * The signed-in person's name is in sight in the notes app, on a desk and on a phone, in the
 * list and in a note: the login return takes any valid code (docs/core.md, "Signing in from
 * another site"), so a person signed in as someone else by another site must be able to notice.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { notesBrowserApp, PHONE, WIDE } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

for (const [size, viewport] of [
  ['1280 px', WIDE],
  ['390 px', PHONE],
] as const) {
  test(`the signed-in name is visible in the list and in a note at ${size}`, async () => {
    const { context, page } = await app.device(`ana-${size}`, { name: 'Ana Lima', viewport })
    try {
      const name = page.getByText('Ana Lima', { exact: true })
      assert.equal(await name.isVisible(), true, `the list at ${size}`)
      await page.getByRole('button', { name: 'New note' }).click()
      await page.getByRole('textbox', { name: 'Note' }).fill('Seeds to buy')
      assert.equal(await name.isVisible(), true, `a note at ${size}`)
      const dir = process.env.SCREENSHOTS
      if (dir)
        await page.screenshot({ path: `${dir}/notes-signed-in-name-${size.replace(' ', '')}.png` })
    } finally {
      await context.close()
    }
  })
}
