/**
 * Sign out once (issue 36, point 2), in Chromium with the whole application: a browser signed in
 * to both apps through the built-in provider signs out in one place (the provider's **Sign out**,
 * the notes app's or the tracker's) and its three sessions end. Each is checked by its cookie:
 * the cookie the browser held before is sent again from outside the browser, and refused.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { fullApp } from './support/full-app.ts'
import { signedIn, signOut } from './support/person-menu.ts'
import { createAccountStore } from '../src/accounts/store.ts'
import { hashPassword } from '../src/accounts/password.ts'

const full = await fullApp()
after(() => full.close())

const T = { timeout: 120_000 }
const PERSON = { name: 'Sam', password: 'a long enough password' }

// The owner exists, so the sign-in page is the password form; Sam signs in in each test.
const store = createAccountStore({ sql: full.db.sql, clock: Date.now, hooks: [] })
assert.ok(
  (
    await store.create({
      name: 'Olivia',
      passwordHash: await hashPassword('the owner password'),
      owner: true,
    })
  ).ok,
)
assert.ok(
  (
    await store.create({
      name: PERSON.name,
      passwordHash: await hashPassword(PERSON.password),
      owner: false,
    })
  ).ok,
)

/** Signs in to the notes app through the provider's form, then to the tracker with its one click. */
async function signedInToBoth(): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await full.person()
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Name').fill(PERSON.name)
  await page.getByLabel('Password').fill(PERSON.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  await page.goto(full.tickets)
  await page.getByRole('link', { name: 'Sign in' }).first().click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  return { context, page }
}

/** The browser's three session cookies, by name. */
async function sessionCookies(context: BrowserContext): Promise<Record<string, string>> {
  const found: Record<string, string> = {}
  for (const c of await context.cookies())
    if (['notes_session', 'tickets_session', 'idp_session'].includes(c.name))
      found[c.name] = c.value
  assert.deepEqual(Object.keys(found).sort(), ['idp_session', 'notes_session', 'tickets_session'])
  return found
}

/** What each old cookie gets now, sent from outside the browser: true where it is still signed in. */
async function stillSignedIn(
  cookies: Record<string, string>,
): Promise<{ notes: boolean; tickets: boolean; provider: boolean }> {
  const notes = await fetch(`${full.notes}/api/notes`, {
    headers: { cookie: `notes_session=${cookies.notes_session}` },
  })
  // The tracker's GET /api/me names the cookie's person, or null.
  const tickets = await fetch(`${full.tickets}/api/me`, {
    headers: { cookie: `tickets_session=${cookies.tickets_session}` },
  })
  const provider = await fetch(`${full.idp}/account`, {
    headers: { cookie: `idp_session=${cookies.idp_session}` },
    redirect: 'manual',
  })
  const me = (await tickets.json()) as { user: unknown }
  await Promise.all([notes.arrayBuffer(), provider.arrayBuffer()])
  return { notes: notes.ok, tickets: me.user !== null, provider: provider.status === 200 }
}

const ALL_IN = { notes: true, tickets: true, provider: true }
const ALL_OUT = { notes: false, tickets: false, provider: false }

test('signing out at the provider ends the sessions of both apps in that browser', T, async () => {
  const { context, page } = await signedInToBoth()
  const cookies = await sessionCookies(context)
  assert.deepEqual(await stillSignedIn(cookies), ALL_IN)
  await page.goto(`${full.idp}/account`)
  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await page.waitForURL(`${full.idp}/login`)
  assert.deepEqual(await stillSignedIn(cookies), ALL_OUT)
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).waitFor()
  await page.goto(full.tickets)
  await page.getByRole('link', { name: 'Sign in' }).first().waitFor()
  await context.close()
})

test('signing out in the notes app ends the provider’s session and the tracker’s', T, async () => {
  const { context, page } = await signedInToBoth()
  const cookies = await sessionCookies(context)
  await page.goto(full.notes)
  await signOut(page)
  await page.getByRole('link', { name: 'Sign in' }).waitFor()
  assert.deepEqual(await stillSignedIn(cookies), ALL_OUT)
  // Sign in asks for the password again: the provider no longer knows this browser.
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Password').waitFor()
  await context.close()
})

test('signing out in the tracker ends the provider’s session and the notes app’s', T, async () => {
  const { context, page } = await signedInToBoth()
  const cookies = await sessionCookies(context)
  await signOut(page)
  await page.getByRole('link', { name: 'Sign in' }).first().waitFor()
  assert.deepEqual(await stillSignedIn(cookies), ALL_OUT)
  await context.close()
})

test('another browser of the same person stays signed in', T, async () => {
  const first = await signedInToBoth()
  const second = await signedInToBoth()
  const secondCookies = await sessionCookies(second.context)
  await first.page.goto(full.notes)
  await signOut(first.page)
  await first.page.getByRole('link', { name: 'Sign in' }).waitFor()
  assert.deepEqual(await stillSignedIn(secondCookies), ALL_IN)
  await first.context.close()
  await second.context.close()
})
