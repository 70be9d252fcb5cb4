/**
 * Finding your way (issue 36, point 1) in Chromium with the whole application: on every page of
 * both apps the person's name is a menu with **Account**, **Admin** (the owner only), the other
 * app and **Sign out**; the sign-in page has **Forgot password?**. Each page passes axe-core with
 * the menu open.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { fullApp, PHONE, screenshot } from './support/full-app.ts'
import { assertAccessible } from './support/axe.ts'
import { signedIn, signOut } from './support/person-menu.ts'
import { cutElements } from './support/layout.ts'
import { createAccountStore } from '../src/accounts/store.ts'
import { hashPassword } from '../src/accounts/password.ts'

const full = await fullApp()
after(() => full.close())

const T = { timeout: 120_000 }
const OWNER = { name: 'Olivia', password: 'correct horse battery' }

/** Opens the person's menu, named by `name`, and answers its items' names. */
async function openMenu(page: Page, name: string): Promise<string[]> {
  await page.locator('details.person-menu > summary', { hasText: name }).click()
  const menu = page.locator('details.person-menu[open] .menu')
  await menu.waitFor()
  return (await menu.locator('a, button').allInnerTexts()).map((t) => t.trim())
}

async function signInWithPassword(
  page: Page,
  who: { name: string; password: string },
): Promise<void> {
  await page.getByLabel('Name').fill(who.name)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
}

test(
  'the owner finds Account, Admin and the other app in the name menu of both apps, and they lead there',
  T,
  async () => {
    const { context, page } = await full.person()
    await page.goto(full.notes)
    await page.getByRole('link', { name: 'Sign in' }).click()
    await page.getByLabel('Name').fill(OWNER.name)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Create account' }).click()
    await signedIn(page).waitFor({ timeout: 20_000 })

    assert.deepEqual(await openMenu(page, OWNER.name), ['Account', 'Admin', 'Tickets', 'Sign out'])
    await assertAccessible(page, 'the notes app with the menu open')
    await screenshot(page, 'person-menu-notes-1280-light')
    await page.getByRole('link', { name: 'Admin' }).click()
    await page.waitForURL(`${full.idp}/admin`)
    await page.goto(full.notes)
    await openMenu(page, OWNER.name)
    await page.getByRole('link', { name: 'Account' }).click()
    await page.waitForURL(`${full.idp}/account`)
    await page.goto(full.notes)
    await openMenu(page, OWNER.name)
    await page.getByRole('link', { name: 'Tickets' }).click()
    await page.waitForURL(`${full.tickets}/`)

    await page.getByRole('link', { name: 'Sign in' }).first().click()
    await signedIn(page).waitFor({ timeout: 20_000 })
    assert.deepEqual(await openMenu(page, OWNER.name), ['Account', 'Admin', 'Notes', 'Sign out'])
    await assertAccessible(page, 'the tracker with the menu open')
    await screenshot(page, 'person-menu-tickets-1280-light')
    await page.getByRole('link', { name: 'Admin' }).click()
    await page.waitForURL(`${full.idp}/admin`)
    await page.goto(full.tickets)
    await openMenu(page, OWNER.name)
    await page.getByRole('link', { name: 'Account' }).click()
    await page.waitForURL(`${full.idp}/account`)
    await page.goto(full.tickets)
    await openMenu(page, OWNER.name)
    await page.getByRole('link', { name: 'Notes' }).click()
    await page.waitForURL(`${full.notes}/`)
    await context.close()
  },
)

test(
  'a person who is not the owner has no Admin in the menu, and on a phone the menu fits the screen',
  T,
  async () => {
    const store = createAccountStore({ sql: full.db.sql, clock: Date.now, hooks: [] })
    const made = await store.create({
      name: 'Pablo',
      passwordHash: await hashPassword('a long enough password'),
      owner: false,
    })
    assert.ok(made.ok)
    for (const app of [
      { url: full.notes, other: 'Tickets' },
      { url: full.tickets, other: 'Notes' },
    ]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { context, page } = await full.person({ viewport: PHONE, colorScheme })
        await page.goto(app.url)
        await page.getByRole('link', { name: 'Sign in' }).first().click()
        await signInWithPassword(page, { name: 'Pablo', password: 'a long enough password' })
        assert.deepEqual(await openMenu(page, 'Pablo'), ['Account', app.other, 'Sign out'])
        assert.deepEqual(await cutElements(page), [])
        await screenshot(
          page,
          `person-menu-${app.other === 'Notes' ? 'tickets' : 'notes'}-390-${colorScheme}`,
        )
        await signOut(page)
        await page.getByRole('link', { name: 'Sign in' }).first().waitFor()
        await context.close()
      }
    }
  },
)

test(
  'the sign-in page has "Forgot password?", which says to ask the owner for a reset link and leads back',
  T,
  async () => {
    const { context, page } = await full.person()
    await page.goto(full.tickets)
    await page.getByRole('link', { name: 'Sign in' }).first().click()
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await page.getByRole('heading', { name: 'Forgot password?' }).waitFor()
    assert.match(
      await page.locator('main').innerText(),
      /Ask the owner of this site for a reset link/,
    )
    await assertAccessible(page, 'the forgot password page')
    await page.getByRole('link', { name: 'Back to sign in' }).click()
    await signInWithPassword(page, OWNER)
    assert.equal(new URL(page.url()).origin, full.tickets)
    await context.close()
  },
)
