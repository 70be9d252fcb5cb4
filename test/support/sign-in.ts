/**
 * Signing in the way a person does: on an app's page, **Sign in**, then the built-in provider's
 * form (name and password), then back on the app, signed in. The guide asks browser tests to sign
 * in so; a shortcut through the login return is for set-up only.
 */
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import type { Sql } from '../../src/db/client.ts'
import { hashPassword } from '../../src/accounts/password.ts'
import { createAccountStore } from '../../src/accounts/store.ts'
import { signedIn } from './person-menu.ts'

export interface Credentials {
  name: string
  password: string
}

/**
 * Makes an account at the built-in provider on `sql`, as its admin page would (the first one is
 * the owner, as the first run's form makes it); answers its id, the identity the apps see.
 */
export async function makeAccount(sql: Sql, who: Credentials): Promise<string> {
  const accounts = createAccountStore({ sql, clock: Date.now, hooks: [] })
  const made = await accounts.create({
    name: who.name,
    passwordHash: await hashPassword(who.password),
    owner: !(await accounts.hasAccounts()),
  })
  assert.ok(made.ok, JSON.stringify(made))
  return made.account.id
}

/**
 * Opens `appUrl` in `page`, presses **Sign in**, fills the provider's form with `who` and sends
 * it; resolves once the app's page shows the person signed in.
 */
export async function signIn(page: Page, appUrl: string, who: Credentials): Promise<void> {
  await page.goto(appUrl)
  await page.getByRole('link', { name: 'Sign in' }).first().click()
  await page.getByLabel('Name').fill(who.name)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, new URL(appUrl).origin)
}
