/**
 * Login CSRF through the seed's protocol (issue 35, point 3), in Chromium: bob renames himself
 * "owner", makes a login code in his own browser and sends the owner's browser to each app's
 * login return. The protocol lets the code sign that browser in as bob (rule 4); what defends
 * the owner is that they see it: the next page says "You are now signed in as owner (bob), no
 * longer as owner. Not you? Sign out", and every place that says who you are shows bob's unique
 * name beside the display name he chose.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { fullApp, PHONE, screenshot, WIDE } from './support/full-app.ts'
import { assertAccessible } from './support/axe.ts'
import { signedIn, signOut } from './support/person-menu.ts'

const full = await fullApp()
after(() => full.close())

/** Signs in at the app at `app` through the provider's password form (or its one click). */
async function signIn(page: Page, app: string, name: string, password: string): Promise<void> {
  await page.goto(app)
  const out = signedIn(page)
  const start = page.getByRole('link', { name: 'Sign in' }).first()
  await Promise.race([start.waitFor({ timeout: 20_000 }), out.waitFor({ timeout: 20_000 })])
  if (await out.isVisible()) return
  await start.click()
  const form = page.getByLabel('Password')
  await Promise.race([form.waitFor({ timeout: 20_000 }), out.waitFor({ timeout: 20_000 })])
  if (await form.isVisible()) {
    await page.getByLabel('Name').fill(name)
    await form.fill(password)
    await page.getByRole('button', { name: /^(Sign in|Create account)$/ }).click()
  }
  await out.waitFor({ timeout: 20_000 })
}

const owner = await full.person()
await owner.page.goto(full.notes)
await owner.page.getByRole('link', { name: 'Sign in' }).click()
await owner.page.getByLabel('Name').fill('owner')
await owner.page.getByLabel('Password').fill('owner password')
await owner.page.getByRole('button', { name: 'Create account' }).click()
await signedIn(owner.page).waitFor({ timeout: 20_000 })

// bob: an account through a sign-up link, renamed "owner".
await owner.page.goto(`${full.idp}/admin`)
await owner.page.getByRole('button', { name: /sign-up link/i }).click()
const link = (await owner.page.locator('#made-link').innerText()).trim()
const bob = await full.person()
await bob.page.goto(link)
await bob.page.getByLabel('Name').fill('bob')
await bob.page.getByLabel('Password').fill('bob password')
await bob.page.getByRole('button', { name: 'Create account' }).click()
await bob.page.waitForURL(`${full.idp}/account`)
await bob.page.getByLabel('Display name').fill('owner')
await bob.page.getByRole('button', { name: /save/i }).first().click()
await bob.page.waitForURL(/done=name/)

/** A login code bob makes in his own browser for the app at `app`: the login return's address, not followed. */
async function bobsLoginReturn(app: string): Promise<string> {
  // A sign-out in the owner's browser, signed in by bob's code, ends bob's sign-in too (it is
  // his: docs/core.md, "Signing out"), so bob signs in again first when he has to.
  await signIn(bob.page, app, 'bob', 'bob password')
  const start = await bob.context.request.get(`${app}/login?next=/`, { maxRedirects: 0 })
  const atProvider = await bob.context.request.get(start.headers().location!, { maxRedirects: 0 })
  assert.equal(atProvider.status(), 303)
  return atProvider.headers().location!
}

for (const [app, label] of [
  [() => full.notes, 'notes'],
  [() => full.tickets, 'tickets'],
] as const) {
  test(`a ${label} login return that switches the owner's browser to bob says so, with bob's unique name, on the next page only`, async () => {
    await signIn(owner.page, app(), 'owner', 'owner password')
    // The owner is shown as "owner" alone: display name and unique name read the same.
    assert.equal(await owner.page.getByText('owner (bob)').count(), 0)
    const forged = await bobsLoginReturn(app())
    await owner.page.goto(forged)
    const notice = owner.page
      .getByRole('alert')
      .filter({ hasText: 'You are now signed in as owner (bob), no longer as owner. Not you?' })
    await notice.waitFor({ timeout: 20_000 })
    assert.equal(await notice.getByRole('button', { name: 'Sign out' }).isVisible(), true)
    assert.ok(
      await owner.page.getByText('owner (bob)', { exact: true }).first().isVisible(),
      'the unique name beside the display name',
    )
    await assertAccessible(owner.page, `the ${label} switch notice`)
    for (const [size, viewport] of [
      ['1280', WIDE],
      ['390', PHONE],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await owner.page.setViewportSize(viewport)
        await owner.page.emulateMedia({ colorScheme: scheme })
        await screenshot(owner.page, `switch-notice-${label}-${size}-${scheme}`)
      }
    }
    await owner.page.setViewportSize(WIDE)
    await owner.page.emulateMedia({ colorScheme: 'light' })
    // Said once: the next page no longer says it, and still names bob.
    await owner.page.reload()
    await signedIn(owner.page).waitFor()
    assert.equal(await owner.page.getByText('no longer as owner').count(), 0)
    assert.ok(await owner.page.getByText('owner (bob)', { exact: true }).first().isVisible())
    // bob's second code on a session that already names bob: no switch, no notice.
    await owner.page.goto(await bobsLoginReturn(app()))
    await signedIn(owner.page).waitFor()
    assert.equal(
      await owner.page.getByText('no longer as').count(),
      0,
      'the same person again is no switch',
    )
  })
}

test("the notice's Sign out signs the browser out of the app", async () => {
  // The owner's browser names bob after the tests above: signed out, then in as the owner again.
  await owner.page.goto(full.tickets)
  await signOut(owner.page)
  await owner.page.getByRole('link', { name: 'Sign in' }).first().waitFor()
  await signIn(owner.page, full.tickets, 'owner', 'owner password')
  await owner.page.goto(await bobsLoginReturn(full.tickets))
  const notice = owner.page.getByRole('alert').filter({ hasText: 'no longer as owner' })
  await notice.getByRole('button', { name: 'Sign out' }).click()
  await owner.page.getByRole('link', { name: 'Sign in' }).first().waitFor({ timeout: 20_000 })
})
