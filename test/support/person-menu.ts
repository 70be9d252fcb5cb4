/**
 * The person's menu on the apps' pages (docs/core.md, "Finding your way"): **Sign out** sits in
 * it, folded until the name is pressed; the provider's own pages show it as a button.
 */
import type { Locator, Page } from 'playwright-core'

/** What shows that a page is signed in: the person's menu of an app, or the provider's Sign out. */
export function signedIn(page: Page): Locator {
  return page
    .locator('details.person-menu > summary')
    .or(page.getByRole('button', { name: 'Sign out', exact: true }))
    .first()
}

/** Opens the person's menu when the page has one, and presses **Sign out**. */
export async function signOut(page: Page): Promise<void> {
  const menu = page.locator('details.person-menu')
  if ((await menu.count()) > 0 && (await menu.getAttribute('open')) === null)
    await menu.locator('summary').click()
  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
}
