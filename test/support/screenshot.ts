/** Screenshots the browser tests take for a person to look at, only when asked. */
import { mkdir } from 'node:fs/promises'
import type { Page } from 'playwright-core'

/** Saves a full-page screenshot as `<SCREENSHOTS>/<name>.png` when `SCREENSHOTS` names a folder. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOTS
  if (!dir) return
  await mkdir(dir, { recursive: true })
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true })
}
