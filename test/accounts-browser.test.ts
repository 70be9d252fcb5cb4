/**
 * The built-in accounts in Chromium, as issue 26's "Done when" walks them: the first person
 * presses **Sign in** in the notes app and creates the owner account, writes a note, opens the
 * tracker and is signed in with one click; the owner makes a sign-up link on `/admin`; a second
 * person signs up through it, adds a passkey (the DevTools protocol's virtual authenticator)
 * and later signs in with it. Also: a wrong password, and an invite's context on the page.
 *
 * Each test stands alone: the first needs a site without accounts (it runs first in the file),
 * and the others make the owner account when they run without it (`theOwner`).
 */
import { signedIn, signOut } from './support/person-menu.ts'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { cspViolations, fullApp, PHONE, screenshot, WIDE } from './support/full-app.ts'
import { assertAccessible, assertAccessibleLightAndDark } from './support/axe.ts'
import { createAccountStore } from '../src/accounts/store.ts'
import { hashPassword } from '../src/accounts/password.ts'

const full = await fullApp()
after(() => full.close())

const OWNER = { name: 'Olivia', password: 'correct horse battery' }

/** A virtual authenticator in the context's page, as a phone's screen lock or a security key would be. */
async function virtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
}

const accounts = createAccountStore({ sql: full.db.sql, clock: Date.now, hooks: [] })

/** Makes the owner account where the site has none yet, as the first run's form would. */
async function ownerExists(): Promise<void> {
  if (await accounts.hasAccounts()) return
  const made = await accounts.create({
    name: OWNER.name,
    passwordHash: await hashPassword(OWNER.password),
    owner: true,
  })
  assert.ok(made.ok, JSON.stringify(made))
}

/** Signs in with the sign-in form of the page the notes app's **Sign in** leads to. */
async function signInAsOwner(page: Page): Promise<void> {
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Name').fill(OWNER.name)
  await page.getByLabel('Password').fill(OWNER.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
}

let owner: Promise<{ context: BrowserContext; page: Page }> | null = null
/**
 * The owner, signed in to the provider and both apps in a browser of their own: made once, for
 * the tests that need them.
 */
function theOwner(): Promise<{ context: BrowserContext; page: Page }> {
  return (owner ??= (async () => {
    await ownerExists()
    const person = await full.person()
    await signInAsOwner(person.page)
    await person.page.goto(full.tickets)
    await person.page.getByRole('link', { name: 'Sign in' }).first().click()
    await signedIn(person.page).waitFor({ timeout: 20_000 })
    return person
  })())
}

test('the first person creates the owner account from the notes app, writes a note, and is signed in to the tracker with one click', async () => {
  assert.equal(await accounts.hasAccounts(), false, 'this test runs on a site without accounts')
  const { context, page } = await full.person()
  const refused = cspViolations(page)
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Create the owner account' }).waitFor()
  assert.equal(new URL(page.url()).origin, full.idp)
  await screenshot(page, 'idp-setup-1280-light')
  await assertAccessible(page, 'the first-run page')
  await page.getByLabel('Name').fill(OWNER.name)
  await page.getByLabel('Password').fill(OWNER.password)
  await page.getByRole('button', { name: 'Create account' }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.notes)

  await page.getByRole('button', { name: 'New note' }).click()
  await page.getByRole('textbox', { name: 'Note' }).fill('Groceries\nmilk\n')
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: 20_000 })

  await page.goto(full.tickets)
  await page.getByRole('link', { name: 'Sign in' }).first().click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.tickets)
  assert.match(await page.locator('header').innerText(), /Olivia/)
  await signOut(page)
  await page.getByRole('link', { name: 'Sign in' }).first().waitFor()
  // Signing out of the tracker signs the browser out at the provider too (issue 36): Sign in
  // asks for the password again.
  await page.getByRole('link', { name: 'Sign in' }).first().click()
  await page.getByLabel('Name').fill(OWNER.name)
  await page.getByLabel('Password').fill(OWNER.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.tickets)
  assert.deepEqual(refused, [])
  await context.close()
})

test('a wrong password is refused with "wrong name or password", and so is an unknown name', async () => {
  await ownerExists()
  const { context, page } = await full.person()
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  for (const [name, password] of [
    [OWNER.name, 'not the password'],
    ['Nobody', OWNER.password],
  ] as const) {
    await page.getByLabel('Name').fill(name)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: /wrong name or password/i })
      .waitFor()
    assert.equal(new URL(page.url()).origin, full.idp)
  }
  await page.getByLabel('Password').fill(OWNER.password)
  await page.getByLabel('Name').fill(OWNER.name)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.notes)
  await context.close()
})

test("a second person signs up through the owner's link, adds a passkey, and later signs in with it", async () => {
  const { page } = await theOwner()
  await page.goto(`${full.idp}/admin`)
  await page.getByRole('heading', { name: 'People' }).waitFor()
  await page.getByLabel('Uses').fill('1')
  await page.getByRole('button', { name: 'Make a sign-up link' }).click()
  const link = (await page.locator('#made-link').innerText()).trim()
  assert.match(link, new RegExp(`^${full.idp}/signup\\?link=`))

  const second = await full.person()
  await virtualAuthenticator(second.context, second.page)
  const p = second.page
  await p.goto(link)
  await p.getByLabel('Name').fill('Pat')
  await p.getByLabel('Password').fill('pats own password')
  await p.getByRole('button', { name: 'Create account' }).click()
  await p.getByRole('heading', { name: 'Your account' }).waitFor()
  await p.getByRole('button', { name: 'Add a passkey' }).click()
  await p
    .getByRole('status')
    .filter({ hasText: 'Your passkey is added.' })
    .waitFor({ timeout: 20_000 })
  assert.match(await p.locator('main').innerText(), /Passkey 1/)

  // Signed out at the provider: the next sign-in needs the passkey.
  await p.getByRole('button', { name: 'Sign out', exact: true }).click()
  await p.goto(full.notes)
  await p.getByRole('link', { name: 'Sign in' }).click()
  await p.getByRole('button', { name: 'Sign in with a passkey' }).click()
  await signedIn(p).waitFor({ timeout: 20_000 })
  assert.equal(new URL(p.url()).origin, full.notes)

  // The link was for one person: it does not open a second sign-up.
  const again = await full.person()
  await again.page.goto(link)
  assert.match(
    await again.page.locator('main').innerText(),
    /no longer valid: it was used up, it expired or the owner revoked it/,
  )
  await again.context.close()

  // The owner sees Pat among the people, with a last sign-in.
  await page.goto(`${full.idp}/admin`)
  const row = page.getByRole('row').filter({ hasText: 'Pat' })
  assert.doesNotMatch(await row.innerText(), /never/)
  await second.context.close()
})

test('a person following a project invite sees the project, the inviter and the role, and signs up through it', async () => {
  const { page } = await theOwner()
  await page.goto(full.tickets)
  const made = await page.evaluate(async () => {
    const me = (await (await fetch('/api/me')).json()) as { tag: string }
    const headers = { 'content-type': 'application/json', 'x-tag': me.tag }
    const project = (await (
      await fetch('/api/projects', {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: 'Web site' }),
      })
    ).json()) as { project: { slug: string } }
    const invite = await fetch(`/api/projects/${project.project.slug}/invites`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ role: 'edit' }),
    })
    return (await invite.json()) as { url: string }
  })
  const invited = await full.person({ viewport: PHONE })
  const p = invited.page
  await p.goto(made.url)
  await p.getByRole('heading', { name: 'Join Web site' }).waitFor()
  assert.match(
    await p.locator('main').innerText(),
    /Olivia invites you to the project Web site with the role edit\./,
  )
  await screenshot(p, 'idp-invite-390-light')
  await assertAccessible(p, 'the invite sign-in page')
  await p.getByRole('link', { name: 'Create an account' }).click()
  await p.getByLabel('Name').fill('Sam')
  await p.getByLabel('Password').fill('sams password')
  await p.getByRole('button', { name: 'Create account' }).click()
  await signedIn(p).waitFor({ timeout: 20_000 })
  assert.equal(new URL(p.url()).origin, full.tickets)
  assert.match(new URL(p.url()).pathname, /^\/web-site/)
  await invited.context.close()
})

test('the provider pages look right at 1280 and 390 px, light and dark', async () => {
  await ownerExists()
  const sideways = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)
  for (const viewport of [WIDE, PHONE]) {
    const { context, page } = await full.person({ viewport })
    const tag = `${viewport.width}`
    await page.goto(full.notes)
    await page.getByRole('link', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
    await assertAccessibleLightAndDark(page, `the sign-in page at ${tag}`, `idp-signin-${tag}`)
    assert.equal(await sideways(page), false, `sign-in page scrolls sideways at ${tag}`)
    await page.getByLabel('Name').fill(OWNER.name)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await signedIn(page).waitFor({ timeout: 20_000 })
    for (const path of ['/account', '/admin']) {
      await page.goto(`${full.idp}${path}`)
      await assertAccessibleLightAndDark(
        page,
        `${path} at ${tag}`,
        `idp${path.replace('/', '-')}-${tag}`,
      )
      assert.equal(await sideways(page), false, `${path} scrolls sideways at ${tag}`)
    }
    await context.close()
  }
})
