/**
 * `OIDC_ONLY=1` in Chromium: the provider's sign-in page goes straight to the organisation's
 * provider (no password form, no sign-up form), from the tracker and from the notes app, and
 * the password and sign-up routes refuse; a sign-up link still lets a person in, through the
 * organisation's provider.
 */
import { signedIn } from './support/person-menu.ts'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { fullApp } from './support/full-app.ts'
import { CLIENT_ID, CLIENT_SECRET, startTestIssuer } from './support/oidc-issuer.ts'
import { freePort } from './support/ports.ts'

const idpPort = await freePort()
const issuer = await startTestIssuer({
  port: await freePort(),
  redirectUri: `http://localhost:${idpPort}/oidc/callback`,
})
const full = await fullApp({
  IDP_PORT: String(idpPort),
  OIDC_ISSUER: issuer.issuer,
  OIDC_CLIENT_ID: CLIENT_ID,
  OIDC_CLIENT_SECRET: CLIENT_SECRET,
  OIDC_ONLY: '1',
  OIDC_NAME: 'Example Corp',
})
after(async () => {
  await full.close()
  await issuer.stop()
})

async function atIssuer(page: Page, login: string): Promise<void> {
  await page.waitForURL((url) => url.origin === issuer.issuer)
  await page.getByPlaceholder('Enter any login').fill(login)
  await page.getByPlaceholder('and password').fill('any password')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click()
}

test("Sign in in the tracker goes straight to the organisation's provider, and the notes app then signs in with one click", async () => {
  const { context, page } = await full.person()
  const visited: string[] = []
  page.on('framenavigated', (frame) => visited.push(frame.url()))
  await page.goto(full.tickets)
  await page.getByRole('link', { name: 'Sign in' }).first().click()
  await atIssuer(page, 'ada')
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.tickets)
  assert.match(await page.locator('header').innerText(), /Ada Lovelace/)
  // No page of the built-in provider was shown on the way: no password form.
  assert.deepEqual(
    visited.filter((url) => url.startsWith(full.idp)),
    [],
  )

  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.notes)
  await context.close()
})

test("the password and sign-up routes refuse, and a sign-up link goes through the organisation's provider", async () => {
  const owner = await full.person()
  await owner.page.goto(`${full.idp}/login`)
  await atIssuer(owner.page, 'ada')
  await owner.page.getByRole('heading', { name: 'Your account' }).waitFor()
  await owner.page.goto(`${full.idp}/admin`)
  await owner.page.getByRole('button', { name: 'Make a sign-up link' }).click()
  const link = (await owner.page.locator('#made-link').innerText()).trim()

  for (const path of ['/login', '/setup', '/signup']) {
    const res = await fetch(`${full.idp}${path}`, {
      method: 'POST',
      body: 'name=ada&password=correct+horse+battery',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    assert.equal(res.status, 403, path)
    assert.match(await res.text(), /Sign-in here is through Example Corp only\./)
  }

  const { context, page } = await full.person()
  await page.goto(link)
  await atIssuer(page, 'grace')
  await page.getByRole('heading', { name: 'Your account' }).waitFor()
  assert.match(await page.locator('header').innerText(), /Signed in as grace/)
  await context.close()
  await owner.context.close()
})
