/**
 * Signing in the way a person does, with the development provider (`DEV_SIGNIN=1`): press
 * **Sign in** in each app, type a name on the provider's page, press **Sign in**, arrive back
 * signed in, then **Sign out**. The provider's form answers with a redirect to the app, another
 * origin, which its page's `form-action` must allow (issue 26's first defect).
 */
import { signedIn, signOut } from './support/person-menu.ts'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { cspViolations, fullApp, screenshot } from './support/full-app.ts'

const full = await fullApp({ DEV_SIGNIN: '1' })
after(() => full.close())

test('the development provider page allows exactly the services origins in form-action and has no inline style', async () => {
  const res = await fetch(
    `${full.idp}/login?key=dev-key&return=${encodeURIComponent(`${full.notes}/login/callback`)}`,
  )
  const policy = res.headers.get('content-security-policy') ?? ''
  assert.match(policy, new RegExp(`form-action 'self' ${full.notes} ${full.tickets};`))
  assert.match(policy, /style-src 'self';/)
  const page = await res.text()
  assert.doesNotMatch(page, /<style|style="/)
  const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(page)?.[1]
  assert.ok(stylesheet, 'the page links a stylesheet')
  const css = await fetch(`${full.idp}${stylesheet}`)
  assert.equal(css.status, 200)
  assert.match(css.headers.get('content-type') ?? '', /^text\/css/)
})

test('a person signs in to the notes app through the development provider page and signs out', async () => {
  const { context, page } = await full.person()
  const refused = cspViolations(page)
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await screenshot(page, 'dev-idp-1280-light')
  await page.getByLabel('Name').fill('Alice')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.notes)
  await signOut(page)
  await page.getByRole('link', { name: 'Sign in' }).waitFor()
  assert.deepEqual(refused, [])
  await context.close()
})

test('a person signs in to the ticket tracker through the development provider page and signs out', async () => {
  const { context, page } = await full.person()
  const refused = cspViolations(page)
  await page.goto(full.tickets)
  await page.getByRole('link', { name: 'Sign in' }).first().click()
  await page.getByLabel('Name').fill('Bob')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.tickets)
  assert.match(await page.locator('body').innerText(), /Bob/)
  await signOut(page)
  await page.getByRole('link', { name: 'Sign in' }).first().waitFor()
  assert.deepEqual(refused, [])
  await context.close()
})
