/**
 * Sign-in through an organisation's OpenID Connect provider, in Chromium, against a real one
 * (`oidc-provider`, test/support/oidc-issuer.ts) with its own login and consent pages: the first
 * person becomes the owner and is signed in to both apps; a stranger is told an owner must
 * invite them; a sign-up link lets a person in; the owner links a password account, whose notes
 * stay its own. Then each failure, produced for real, ends on the app's failure page with its
 * reason: a key rotation, a denied consent, a tampered state, a replayed code, an ID token for
 * another client, a provider stopped mid-flow; and a callback in another browser is refused.
 */
import { signedIn } from './support/person-menu.ts'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { OIDC_TEXT } from '../src/accounts/oidc.ts'
import { cspViolations, fullApp, PHONE, screenshot, type FullApp } from './support/full-app.ts'
import { assertAccessible } from './support/axe.ts'
import {
  CLIENT_ID,
  CLIENT_SECRET,
  startTestIssuer,
  type TestIssuer,
} from './support/oidc-issuer.ts'
import { freePort } from './support/ports.ts'

const idpPort = await freePort()
const issuer: TestIssuer = await startTestIssuer({
  port: await freePort(),
  redirectUri: `http://localhost:${idpPort}/oidc/callback`,
})
const full: FullApp = await fullApp({
  IDP_PORT: String(idpPort),
  OIDC_ISSUER: issuer.issuer,
  OIDC_CLIENT_ID: CLIENT_ID,
  OIDC_CLIENT_SECRET: CLIENT_SECRET,
})
after(async () => {
  await full.close()
  await issuer.stop()
})

/** At the organisation's provider: its login page as `login`, then its consent page. */
async function atIssuer(page: Page, login: string): Promise<void> {
  await page.waitForURL((url) => url.origin === issuer.issuer)
  await page.getByPlaceholder('Enter any login').fill(login)
  await page.getByPlaceholder('and password').fill('any password')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click()
}

/** From the notes app's Sign in through the organisation's provider as `login`. */
async function signInToNotes(page: Page, login: string): Promise<void> {
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByRole('link', { name: 'Single sign-on' }).click()
  await atIssuer(page, login)
}

/** The reason the notes app's failure page shows. */
async function notesFailure(page: Page): Promise<string> {
  await page.waitForURL(`${full.notes}/login/failed`)
  return page.locator('body').innerText()
}

test("the first person signs in through the organisation's provider, becomes the owner, and is signed in to the tracker with one click", async () => {
  const { context, page } = await full.person()
  const refused = cspViolations(page)
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Create the owner account' }).waitFor()
  await screenshot(page, 'oidc-setup-1280-light')
  await page.getByRole('link', { name: 'Single sign-on' }).click()
  await atIssuer(page, 'ada')
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.notes)

  await page.goto(full.tickets)
  await page.getByRole('link', { name: 'Sign in' }).first().click()
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.match(await page.locator('header').innerText(), /Ada Lovelace/)

  const [row] = await full.db.sql<
    { issuer: string; subject: string; is_owner: boolean; display_name: string }[]
  >`
    select i.issuer, i.subject, a.is_owner, a.display_name from idp_oidc_identities i join idp_accounts a on a.id = i.account_id`
  assert.deepEqual(
    { ...row },
    { issuer: issuer.issuer, subject: 'ada', is_owner: true, display_name: 'Ada Lovelace' },
  )
  // The provider's verified email is her confirmed address, and the tracker mails it.
  const [address] = await full.db.sql`
    select a.email as account, u.email as tracker from idp_accounts a join users u on u.idp_id = a.id`
  assert.deepEqual({ ...address }, { account: 'ada@example.org', tracker: 'ada@example.org' })
  assert.deepEqual(refused, [])
  await context.close()
})

test('after the provider rotates its signing key (its JWKS changes), people still sign in: the app reads the new keys', async () => {
  await issuer.stop()
  await issuer.start({ rotate: true })
  const { context, page } = await full.person()
  await signInToNotes(page, 'ada')
  // openid-client reads the keys again for an unknown key once the cached ones are a minute
  // old; before that the sign-in fails with this reason, and the app reads them at the next.
  await page.waitForURL((url) => url.origin === full.notes && url.pathname !== '/login/callback')
  if (new URL(page.url()).pathname === '/login/failed') {
    assert.match(await page.locator('body').innerText(), new RegExp(escape(OIDC_TEXT.unknownKey)))
    await signInToNotes(page, 'ada')
  }
  await signedIn(page).waitFor({ timeout: 20_000 })
  await context.close()
})

test('a person without an account, a sign-up link or an invite is told that an owner must invite them', async () => {
  for (const [viewport, colorScheme, name] of [
    [undefined, 'light', '1280-light'],
    [PHONE, 'dark', '390-dark'],
  ] as const) {
    const { context, page } = await full.person({ viewport, colorScheme })
    await page.goto(full.notes)
    await page.getByRole('link', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await screenshot(page, `oidc-signin-${name}`)
    await assertAccessible(page, `the sign-in page with single sign-on at ${name}`)
    await page.getByRole('link', { name: 'Single sign-on' }).click()
    await atIssuer(page, 'grace')
    await page.getByRole('heading', { name: 'Ask for an invite' }).waitFor()
    assert.match(
      await page.locator('main').innerText(),
      /You signed in at Single sign-on as grace, but you have no account here yet\. An owner of this site must invite you/,
    )
    await screenshot(page, `oidc-must-invite-${name}`)
    await assertAccessible(page, `the ask-for-an-invite page at ${name}`)
    await context.close()
  }
  const [count] = await full.db.sql<
    { n: number }[]
  >`select count(*)::int as n from idp_oidc_identities where subject = 'grace'`
  assert.equal(count!.n, 0)
})

test('a sign-up link from the owner lets a person in through the provider, named by preferred_username', async () => {
  const owner = await full.person()
  await signInToNotes(owner.page, 'ada')
  await signedIn(owner.page).waitFor({ timeout: 20_000 })
  await owner.page.goto(`${full.idp}/admin`)
  await owner.page.getByRole('button', { name: 'Make a sign-up link' }).click()
  const link = (await owner.page.locator('#made-link').innerText()).trim()

  const { context, page } = await full.person()
  await page.goto(link)
  await page.getByRole('link', { name: 'Single sign-on' }).click()
  await atIssuer(page, 'grace')
  await page.getByRole('heading', { name: 'Your account' }).waitFor()
  assert.match(await page.locator('header').innerText(), /Signed in as grace/)
  assert.match(
    await page.locator('main').innerText(),
    /This account has no password: you sign in through your organisation's provider\./,
  )
  assert.equal(await page.getByRole('button', { name: 'Change password' }).count(), 0)
  await context.close()
  await owner.context.close()
})

test('a project invite lets a person in through the provider, and the tracker joins them to the project', async () => {
  const owner = await full.person()
  await owner.page.goto(full.tickets)
  await owner.page.getByRole('link', { name: 'Sign in' }).first().click()
  await owner.page.getByRole('link', { name: 'Single sign-on' }).click()
  await atIssuer(owner.page, 'ada')
  await signedIn(owner.page).waitFor({ timeout: 20_000 })
  const made = await owner.page.evaluate(async () => {
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
  const { context, page } = await full.person()
  await page.goto(made.url)
  await page.getByRole('heading', { name: 'Join Web site' }).waitFor()
  await page.getByRole('link', { name: 'Single sign-on' }).click()
  await atIssuer(page, 'emailonly')
  await signedIn(page).waitFor({ timeout: 20_000 })
  assert.equal(new URL(page.url()).origin, full.tickets)
  assert.match(new URL(page.url()).pathname, /^\/web-site/)
  assert.match(await page.locator('header').innerText(), /edsger@example\.org/)
  await context.close()
  await owner.context.close()
})

test('the owner links a password account to the provider on /admin, and its notes stay its own', async () => {
  // Bob signs up with a password through a link, and writes a note.
  const owner = await full.person()
  await signInToNotes(owner.page, 'ada')
  await signedIn(owner.page).waitFor({ timeout: 20_000 })
  await owner.page.goto(`${full.idp}/admin`)
  await owner.page.getByRole('button', { name: 'Make a sign-up link' }).click()
  const signupLink = (await owner.page.locator('#made-link').innerText()).trim()
  const bob = await full.person()
  await bob.page.goto(`${full.notes}`)
  await bob.page.getByRole('link', { name: 'Sign in' }).click()
  await bob.page.goto(signupLink)
  await bob.page.getByLabel('Name').fill('Bob')
  await bob.page.getByLabel('Password').fill('bobs long password')
  await bob.page.getByRole('button', { name: 'Create account' }).click()
  await bob.page.getByRole('heading', { name: 'Your account' }).waitFor()
  await bob.page.goto(full.notes)
  await bob.page.getByRole('link', { name: 'Sign in' }).click()
  await bob.page.getByRole('button', { name: 'New note' }).click()
  await bob.page
    .getByRole('textbox', { name: 'Note' })
    .fill("Bob's plans\nmove to single sign-on\n")
  await bob.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: 20_000 })
  // Stored at the server under Bob's account (the app saves in the browser first, then syncs).
  const [bobAccount] = await full.db.sql<
    { id: string }[]
  >`select id from idp_accounts where name = 'Bob'`
  for (
    let waited = 0;
    (
      await full.db
        .sql`select 1 from notes where user_id = ${bobAccount!.id} and text like 'Bob''s plans%'`
    ).length === 0;
    waited += 100
  ) {
    assert.ok(waited < 20_000, 'the note reached the server')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await bob.context.close()

  // The owner makes Bob's link.
  await owner.page.goto(`${full.idp}/admin`)
  await screenshot(owner.page, 'oidc-admin-1280-light')
  await owner.page.getByRole('button', { name: 'Link Bob to Single sign-on' }).click()
  const link = (await owner.page.locator('#made-link').innerText()).trim()
  assert.match(link, /\/oidc\/link\?link=/)
  for (const [viewport, colorScheme, name] of [
    [PHONE, 'light', '390-light'],
    [undefined, 'dark', '1280-dark'],
  ] as const) {
    const look = await full.person({ viewport, colorScheme })
    await look.page.goto(`${full.idp}/login`)
    await look.page.getByRole('link', { name: 'Single sign-on' }).click()
    await atIssuer(look.page, 'ada')
    await look.page.goto(`${full.idp}/admin`)
    await screenshot(look.page, `oidc-admin-${name}`)
    await look.context.close()
  }

  // Bob opens it and signs in at the organisation's provider as bob.b.
  const moved = await full.person()
  await moved.page.goto(link)
  await moved.page.getByRole('link', { name: 'Continue with Single sign-on' }).click()
  await atIssuer(moved.page, 'bob.b')
  await moved.page.getByRole('heading', { name: 'Your account' }).waitFor()
  await moved.context.close()

  // From now on, one click through the provider opens Bob's notes.
  const later = await full.person()
  await signInToNotes(later.page, 'bob.b')
  await signedIn(later.page).waitFor({ timeout: 20_000 })
  await later.page.getByText("Bob's plans").first().waitFor()
  const [linked] = await full.db.sql<
    { account_id: string }[]
  >`select account_id from idp_oidc_identities where subject = 'bob.b'`
  assert.equal(linked!.account_id, bobAccount!.id)
  await owner.page.goto(`${full.idp}/admin`)
  assert.equal(
    await owner.page.getByRole('button', { name: 'Link Bob to Single sign-on' }).count(),
    0,
  )
  await later.context.close()
  await owner.context.close()
})

test("a denied consent (error=access_denied) ends on the app's failure page with its reason", async () => {
  const { context, page } = await full.person()
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByRole('link', { name: 'Single sign-on' }).click()
  await page.waitForURL((url) => url.origin === issuer.issuer)
  await page.getByRole('link', { name: '[ Cancel ]' }).click()
  assert.match(await notesFailure(page), new RegExp(escape(OIDC_TEXT.denied('Single sign-on'))))
  await screenshot(page, 'oidc-failed-notes-1280-light')
  await context.close()
})

test('a tampered state is refused with "wrong state" on the tracker\'s failure page', async () => {
  const { context, page } = await full.person()
  issuer.onCallback = (url) => {
    url.searchParams.set('state', `${url.searchParams.get('state')}x`)
    return { url }
  }
  try {
    await page.goto(full.tickets)
    await page.getByRole('link', { name: 'Sign in' }).first().click()
    await page.getByRole('link', { name: 'Single sign-on' }).click()
    await atIssuer(page, 'ada')
    await page.getByRole('heading', { name: 'Login failed' }).waitFor()
  } finally {
    issuer.onCallback = null
  }
  assert.equal(new URL(page.url()).origin, full.tickets)
  assert.match(await page.locator('body').innerText(), /wrong state/)
  await screenshot(page, 'oidc-failed-tickets-1280-light')
  await context.close()
})

test("a replayed code is refused as expired or used, even with the browser's own flow cookie", async () => {
  const { context, page } = await full.person()
  let callback = ''
  issuer.onCallback = (url) => {
    callback = url.href
  }
  const flowCookie = new Promise<string>((resolve) =>
    page.on('response', async (response) => {
      if (response.url().startsWith(`${full.idp}/oidc/start`))
        resolve((await response.headerValue('set-cookie')) ?? '')
    }),
  )
  try {
    await signInToNotes(page, 'ada')
    await signedIn(page).waitFor({ timeout: 20_000 })
  } finally {
    issuer.onCallback = null
  }
  const value = /idp_oidc=([^;]+)/.exec(await flowCookie)![1]!
  await context.addCookies([{ name: 'idp_oidc', value, url: `${full.idp}/oidc/` }])
  await page.goto(callback)
  assert.match(await notesFailure(page), new RegExp(escape(OIDC_TEXT.codeUsed)))
  await context.close()
})

test('an ID token made for another client is refused', async () => {
  issuer.tokensForAnotherClient = true
  try {
    const { context, page } = await full.person()
    await signInToNotes(page, 'ada')
    assert.match(
      await notesFailure(page),
      /meant for another app \(an ID token for another client\)/,
    )
    await context.close()
  } finally {
    issuer.tokensForAnotherClient = false
  }
})

test('a provider stopped mid-flow, between its answer and the token request, is reported unreachable', async () => {
  const { context, page } = await full.person()
  issuer.onCallback = () => ({ stop: true })
  try {
    await signInToNotes(page, 'ada')
    assert.match(
      await notesFailure(page),
      new RegExp(escape(OIDC_TEXT.unreachable('Single sign-on'))),
    )
  } finally {
    issuer.onCallback = null
    await issuer.start()
  }
  await context.close()
})

test('a callback in a browser that did not start the sign-in is refused (no login CSRF)', async () => {
  const attacker = await full.person()
  let callback = ''
  issuer.onCallback = (url) => {
    callback = url.href
  }
  try {
    await signInToNotes(attacker.page, 'ada')
    await signedIn(attacker.page).waitFor({ timeout: 20_000 })
  } finally {
    issuer.onCallback = null
  }
  const victim = await full.person()
  await victim.page.goto(callback)
  await victim.page.getByRole('heading', { name: 'Sign-in failed' }).waitFor()
  assert.match(await victim.page.locator('main').innerText(), new RegExp(escape(OIDC_TEXT.noFlow)))
  const cookies = await victim.context.cookies(full.idp)
  assert.equal(
    cookies.some((c) => c.name === 'idp_session'),
    false,
  )
  await attacker.context.close()
  await victim.context.close()
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
