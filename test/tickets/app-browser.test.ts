/**
 * The ticket tracker in a real browser (Chromium through playwright-core), following the
 * issue's list: a person signs in, makes a project and a ticket, comments, changes state,
 * assigns, edits, sets parent and blocked-by, finds it through search and filters, sees it in
 * the inbox, makes and revokes a token, invites a second person who joins, and removes a
 * connected app; a second browser watching the ticket sees each change without reloading; a
 * `use` member sees no control it cannot use; at 390 px no page scrolls sideways; and the XSS
 * payloads make no element. `SCREENSHOTS=<folder>` keeps a picture of each page.
 *
 * Each test stands alone: what it needs beyond alice's signed-in page it makes itself, or takes
 * from `web()` and `bob()`, which make the shared project and second person once, for whichever
 * test asks first.
 */
import assert from 'node:assert/strict'
import { after, afterEach, test } from 'node:test'
import type { Page } from 'playwright-core'
import { PHONE, screenshot, scrollsSideways, ticketsBrowserApp, WIDE } from './browser-support.ts'

const b = await ticketsBrowserApp()
after(() => b.close())
const { app, url } = b

// alice in the browser and alice through the API are one person (the same provider id).
const { page } = await b.person('alice', { idpId: 'idp-alice' })
const aliceApi = await app.login('alice', 'idp-alice')
const errors: string[] = []
page.on('pageerror', (e) => errors.push(e.message))
page.on('console', (m) => {
  // The search page with a refused query answers 400 on purpose; Chromium logs that.
  if (m.type() === 'error' && !m.text().includes('status of 400')) errors.push(m.text())
})
// Each test's own pages logged no script error.
afterEach(() => assert.deepEqual(errors.splice(0), []))

const history = (p: Page) => p.getByRole('list', { name: 'History' })
const form = (p: Page, api: string) => p.locator(`form[data-api$="${api}"]`)

let shared: Promise<{ first: { number: number } }> | null = null
/** alice's project `web` (Web site) with its ticket #1, "Login loops on Safari". */
function web(): Promise<{ first: { number: number } }> {
  return (shared ??= (async () => {
    const made = await app.call('POST', '/api/projects', {
      token: aliceApi.token,
      body: { title: 'Web site', slug: 'web' },
    })
    assert.equal(made.status, 201, made.text)
    const first = await app.ticket(aliceApi, 'web', {
      subject: 'Login loops on Safari',
      summary: 'It **reloads** forever.',
    })
    return { first }
  })())
}

let second: Promise<{ api: Awaited<ReturnType<typeof app.login>>; page: Page }> | null = null
/** bob, an edit member of `web`, signed in in a browser of his own. */
function bob(): Promise<{ api: Awaited<ReturnType<typeof app.login>>; page: Page }> {
  return (second ??= (async () => {
    await web()
    const api = await app.login('bob', 'idp-bob')
    await app.member(aliceApi, 'web', api, 'edit')
    const { page } = await b.person('bob', { idpId: 'idp-bob' })
    return { api, page }
  })())
}

/** How many times the page in `p` redrew its live parts (src/tickets/app/main.ts counts them). */
const redraws = (p: Page) => p.evaluate(() => Number(document.documentElement.dataset.redrawn ?? 0))

/** Opens a ticket page in `p` and waits for its live updates to be listened for. */
async function watch(p: Page, path: string): Promise<void> {
  const polling = p.waitForRequest((r) => r.url().includes('/api/live'))
  await p.goto(`${url}${path}`)
  await polling
}

test(
  'a first-run home page says what to do; a person makes a project with "New project"',
  { timeout: 60_000 },
  async () => {
    // Someone new, whom no project has yet.
    const { context, page } = await b.person('erin')
    await page.goto(`${url}/`)
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor()
    assert.match(
      await page.locator('main').innerText(),
      /Give your first one a title in the form on this page/,
    )
    assert.doesNotMatch(await page.locator('main').innerText(), /\/api\//)
    await screenshot(page, 'home-first-run')
    await page.getByLabel('Title', { exact: true }).fill('Home site')
    await page.getByLabel('Slug', { exact: true }).fill('home')
    await page.getByRole('button', { name: 'New project' }).click()
    await page.waitForURL(`${url}/home`)
    await page.getByRole('heading', { name: 'Home site' }).waitFor()
    await context.close()
  },
)

test(
  'a refused write shows the error at the field and keeps what was typed',
  { timeout: 60_000 },
  async () => {
    await page.goto(`${url}/`)
    await page.getByLabel('Title', { exact: true }).fill('Another')
    await page.getByLabel('Slug', { exact: true }).fill('api')
    await page.getByRole('button', { name: 'New project' }).click()
    await page.locator('[data-error-for="slug"]').getByText("'api' is reserved.").waitFor()
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Another')
    assert.equal(
      await page.getByLabel('Slug', { exact: true }).getAttribute('aria-invalid'),
      'true',
    )
  },
)

test(
  '"New ticket" with a Markdown preview makes a ticket and opens it',
  { timeout: 60_000 },
  async () => {
    await app.call('POST', '/api/projects', {
      token: aliceApi.token,
      body: { title: 'Preview', slug: 'preview' },
    })
    await page.goto(`${url}/preview`)
    await page.locator('summary', { hasText: 'New ticket' }).click()
    await page.getByLabel('Subject').fill('Login loops on Safari')
    await page.getByLabel('Summary').fill('It **reloads** forever.')
    await page.getByRole('button', { name: 'Preview' }).click()
    await page.locator('[data-preview="ticket-summary"] strong').getByText('reloads').waitFor()
    await page.getByRole('button', { name: 'Preview' }).click()
    await page.getByRole('button', { name: 'New ticket' }).click()
    await page.waitForURL(`${url}/preview/1`)
    await page.locator('.summary strong').getByText('reloads').waitFor()
  },
)

test(
  'a comment sent with Ctrl+Enter appears in the history, rendered as Markdown',
  { timeout: 60_000 },
  async () => {
    const { first } = await web()
    await page.goto(`${url}/web/${first.number}`)
    await page.getByLabel('Comment').fill('Seen on **iOS** too')
    await page.getByLabel('Comment').press('Control+Enter')
    await history(page).locator('strong').getByText('iOS').waitFor()
    assert.equal(await page.getByLabel('Comment').inputValue(), '')
  },
)

test(
  'choosing a state applies it and the history says so in words',
  { timeout: 60_000 },
  async () => {
    await web()
    const t = await app.ticket(aliceApi, 'web', { subject: 'Started by whoever starts it' })
    await page.goto(`${url}/web/${t.number}`)
    await page.getByLabel('State').selectOption('doing')
    await history(page).getByText('changed the state from open to doing').waitFor()
    // Doing on an unassigned ticket assigns it to the person who started it.
    await history(page).getByText('assigned alice').waitFor()
  },
)

test(
  'an invited person joins through the link and sees the project',
  { timeout: 60_000 },
  async () => {
    await web()
    await page.goto(`${url}/web/settings`)
    await page.getByLabel('Role', { exact: true }).first().waitFor()
    await form(page, '/invites').getByLabel('Role').selectOption('edit')
    await page.getByRole('button', { name: 'Create invite link' }).click()
    await page.waitForFunction(
      () => (document.getElementById('new-invite-value') as HTMLInputElement).value !== '',
    )
    const link = await page.getByLabel('Invite link', { exact: true }).inputValue()
    const invite = new URL(
      decodeURIComponent(new URL(link).searchParams.get('return')!),
    ).searchParams.get('invite')!
    await screenshot(page, 'project-settings')
    const frank = await b.person(null)
    await frank.page.goto(
      `${url}/login/callback?idp_code=${app.idp.code({ id: 'idp-frank', name: 'frank' })}&invite=${encodeURIComponent(invite)}`,
    )
    await frank.page.waitForURL(`${url}/web`)
    await frank.page
      .getByRole('list', { name: 'Tickets' })
      .getByText('Login loops on Safari')
      .waitFor()
    await frank.context.close()
  },
)

test(
  'a second browser watching the ticket sees assign, edit and comment without reloading, marked and announced',
  { timeout: 90_000 },
  async () => {
    const { page: bobPage } = await bob()
    const t = await app.ticket(aliceApi, 'web', { subject: 'Watched by two' })
    const assigned = await app.call('POST', `/api/tickets/${t.id}/assign`, {
      token: aliceApi.token,
      body: { assignee: aliceApi.id },
    })
    assert.equal(assigned.status, 201, assigned.text)
    await watch(bobPage, `/web/${t.number}`)
    let reloaded = false
    const onLoad = () => (reloaded = true)
    bobPage.on('load', onLoad)
    await page.goto(`${url}/web/${t.number}`)
    await page.getByLabel('Assignee').selectOption({ label: 'bob' })
    await history(bobPage).getByText('reassigned from alice to bob').waitFor({ timeout: 30_000 })
    await bobPage
      .locator('#announce')
      .getByText(`alice reassigned from alice to bob on web#${t.number}.`)
      .waitFor({ timeout: 10_000 })
    await page.locator('summary', { hasText: 'Edit' }).click()
    await page.getByLabel('Subject').fill('Watched by two, edited')
    await form(page, '/edit').getByRole('button', { name: 'Save' }).click()
    await bobPage
      .getByRole('heading', { name: 'Watched by two, edited' })
      .waitFor({ timeout: 30_000 })
    await page.getByLabel('Comment').fill('Fixed in the next build?')
    await page.getByRole('button', { name: 'Comment' }).click()
    const item = history(bobPage).locator('li', { hasText: 'Fixed in the next build?' })
    await item.waitFor({ timeout: 30_000 })
    assert.match((await item.getAttribute('class')) ?? '', /changed/)
    bobPage.off('load', onLoad)
    assert.equal(reloaded, false)
  },
)

test(
  'a comment box being typed in is not redrawn when a change arrives',
  { timeout: 60_000 },
  async () => {
    const { page: bobPage } = await bob()
    const { first } = await web()
    await watch(bobPage, `/web/${first.number}`)
    await bobPage.getByLabel('Comment').fill('half a thought')
    const before = await redraws(bobPage)
    await app.call('POST', `/api/projects/web/tickets/${first.number}/comments`, {
      token: aliceApi.token,
      body: { text: 'meanwhile' },
    })
    await history(bobPage).getByText('meanwhile').waitFor({ timeout: 30_000 })
    assert.ok((await redraws(bobPage)) > before)
    assert.equal(await bobPage.getByLabel('Comment').inputValue(), 'half a thought')
    assert.equal(await bobPage.evaluate(() => document.activeElement?.id), 'comment-text')
  },
)

test(
  "an edit's changes a person opened stay open when a change arrives",
  { timeout: 60_000 },
  async () => {
    const { page: bobPage } = await bob()
    const t = await app.ticket(aliceApi, 'web', {
      subject: 'Folded changes',
      summary: 'first words',
    })
    const edited = await app.call('POST', `/api/tickets/${t.id}/edit`, {
      token: aliceApi.token,
      body: { summary: 'second words' },
    })
    assert.equal(edited.status, 201, edited.text)
    await watch(bobPage, `/web/${t.number}`)
    const edit = history(bobPage).locator('li', { hasText: 'edited summary' })
    await edit.getByText('Show changes').click()
    await edit.locator('ins').getByText('second words').waitFor()
    const before = await redraws(bobPage)
    await app.call('POST', `/api/projects/web/tickets/${t.number}/comments`, {
      token: aliceApi.token,
      body: { text: 'a word meanwhile' },
    })
    await history(bobPage).getByText('a word meanwhile').waitFor({ timeout: 30_000 })
    assert.ok((await redraws(bobPage)) > before, 'the page was redrawn')
    assert.ok(await edit.locator('ins').getByText('second words').isVisible(), 'still open')
    // Opening a fold is not a change of the item: it is not marked as one.
    assert.equal(await edit.evaluate((li) => li.classList.contains('changed')), false)
  },
)

test(
  'parent and blocked-by are set by reference, shown as links, and removed',
  { timeout: 60_000 },
  async () => {
    await web()
    const child = await app.ticket(aliceApi, 'web', { subject: 'Part of the epic' })
    const parent = await app.ticket(aliceApi, 'web', { subject: 'Parent epic' })
    const blocker = await app.ticket(aliceApi, 'web', { subject: 'Blocking bug' })
    await page.goto(`${url}/web/${child.number}`)
    await page.getByLabel('Parent').fill(parent.ref)
    await form(page, '/parent').getByRole('button', { name: 'Save' }).last().click()
    await history(page).getByText(`set the parent to ${parent.ref}`).waitFor()
    await page.getByLabel('Blocked by').fill(blocker.ref)
    await page
      .locator('form')
      .filter({ has: page.getByLabel('Blocked by') })
      .getByRole('button', { name: 'Add' })
      .click()
    await history(page).getByText(`marked it blocked by ${blocker.ref}`).waitFor()
    await page.locator('[data-live="head"] .blocked').waitFor()
    await screenshot(page, 'ticket')
    await page.goto(`${url}/web/${parent.number}`)
    await page
      .locator('[data-live="children-box"]')
      .getByRole('link', { name: child.ref })
      .waitFor()
    await page.goto(`${url}/web/${child.number}`)
    await page.getByRole('button', { name: `Remove blocker ${blocker.ref}` }).click()
    await history(page).getByText(`removed blocker ${blocker.ref}`).waitFor()
  },
)

test(
  'search and filters find the ticket; an unknown key is explained',
  { timeout: 60_000 },
  async () => {
    const { api: bobApi } = await bob()
    const t = await app.ticket(aliceApi, 'web', { subject: 'Checkout fails in Firefox' })
    for (const [path, body] of [
      ['assign', { assignee: bobApi.id }],
      ['state', { state: 'doing' }],
    ] as const) {
      const changed = await app.call('POST', `/api/tickets/${t.id}/${path}`, {
        token: aliceApi.token,
        body,
      })
      assert.equal(changed.status, 201, changed.text)
    }
    await page.goto(`${url}/web`)
    await page.getByLabel('Search tickets').fill('assignee:bob firefox')
    await page.getByLabel('Search tickets').press('Enter')
    await page.waitForURL(/q=assignee%3Abob\+firefox/)
    const list = page.getByRole('list', { name: 'Tickets' })
    await list.getByText('Checkout fails in Firefox').waitFor()
    assert.equal(await list.locator('li').count(), 1)
    await page.getByRole('link', { name: /^Doing/ }).click()
    await list.getByText('Checkout fails in Firefox').waitFor()
    await page.getByRole('link', { name: /^Done/ }).click()
    await page.getByRole('heading', { name: 'No tickets match' }).waitFor()
    await page.goto(`${url}/web?q=priority:high`)
    await page.getByRole('alert').getByText("unknown search key 'priority:'").waitFor()
    await page.goto(`${url}/web`)
    await screenshot(page, 'project')
  },
)

test(
  'the inbox shows the ticket to the person it is assigned to, with the count in the bar',
  { timeout: 60_000 },
  async () => {
    await web()
    const ginaApi = await app.login('gina', 'idp-gina')
    await app.member(aliceApi, 'web', ginaApi, 'edit')
    const t = await app.ticket(aliceApi, 'web', { subject: 'Print styles are missing' })
    const assigned = await app.call('POST', `/api/tickets/${t.id}/assign`, {
      token: aliceApi.token,
      body: { assignee: ginaApi.id },
    })
    assert.equal(assigned.status, 201, assigned.text)
    const gina = await b.person('gina', { idpId: 'idp-gina' })
    await gina.page.goto(`${url}/inbox`)
    await gina.page
      .getByRole('list', { name: 'Waiting for you' })
      .getByText('Print styles are missing')
      .waitFor()
    assert.equal(
      await gina.page.locator('#inbox-count-text').textContent(),
      '1 ticket waits for you',
    )
    await screenshot(gina.page, 'inbox')
    await gina.context.close()
  },
)

test(
  'a token is made with a label, shown once to copy, works, and once revoked gets 401',
  { timeout: 60_000 },
  async () => {
    await page.goto(`${url}/settings`)
    await page.getByLabel('Token label').fill('laptop')
    await page.getByRole('button', { name: 'Create token' }).click()
    const secret = page.getByLabel('Your new token: copy it now, it is not shown again')
    await page.waitForFunction(() =>
      (document.getElementById('new-token-value') as HTMLInputElement).value.startsWith('tt_'),
    )
    const token = await secret.inputValue()
    await page.getByRole('table', { name: 'Your tokens' }).getByText('laptop').waitFor()
    await screenshot(page, 'settings')
    const me = await fetch(`${url}/api/inbox`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(me.status, 200)
    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Revoke laptop' }).click()
    await page
      .getByRole('table', { name: 'Your tokens' })
      .getByText('laptop')
      .waitFor({ state: 'detached' })
    const gone = await fetch(`${url}/api/inbox`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(gone.status, 401)
  },
)

test(
  'an admin removes a connected app and its key stops working',
  { timeout: 60_000 },
  async () => {
    await web()
    const started = await app.call(
      'GET',
      `/connect?${new URLSearchParams({ app: 'ci', label: 'Nightly build', return: 'https://ci.example/back', state: 's' })}`,
    )
    const nonce = String(started.headers.location).slice('/connect/'.length)
    await page.goto(`${url}/connect/${nonce}`)
    assert.match(
      (await page.getByRole('link', { name: 'Cancel' }).getAttribute('href')) ?? '',
      /^https:\/\/ci\.example\/back\?error=access_denied&state=s$/,
    )
    await page.getByLabel('Title').waitFor()
    assert.equal(await scrollsSideways(page), false)
    await screenshot(page, 'connect')
    const confirmed = await app.call('POST', `/api/connect/${nonce}/confirm`, {
      headers: { cookie: aliceApi.cookie, 'x-tag': aliceApi.tag },
      body: { project: 'web' },
    })
    const code = new URL(confirmed.body.location).searchParams.get('code')
    const exchanged = await app.call('POST', '/api/connect/exchange', { body: { code } })
    const key = exchanged.body.key as string
    await page.goto(`${url}/web/settings`)
    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Remove Nightly build' }).click()
    await page.getByText('No app is connected.').waitFor()
    const refused = await app.call('POST', '/api/projects/web/tickets', {
      token: key,
      body: { subject: 'x' },
    })
    assert.equal(refused.status, 401)
  },
)

test(
  'a use member sees comment and state but no control they cannot use; a stranger sees none',
  { timeout: 60_000 },
  async () => {
    await web()
    const carolApi = await app.login('carol', 'idp-carol')
    await app.member(aliceApi, 'web', carolApi, 'use')
    const carol = await b.person('carol', { idpId: 'idp-carol' })
    await carol.page.goto(`${url}/web/1`)
    await carol.page.getByLabel('Comment').waitFor()
    await carol.page.getByLabel('State').waitFor()
    for (const label of ['Assignee', 'Parent', 'Blocked by'])
      assert.equal(await carol.page.getByLabel(label).count(), 0, label)
    assert.equal(await carol.page.locator('summary', { hasText: 'Edit' }).count(), 0)
    assert.equal(await carol.page.getByRole('button', { name: /^Remove/ }).count(), 0)
    await carol.page.goto(`${url}/web`)
    assert.equal(await carol.page.getByRole('link', { name: 'Project settings' }).count(), 0)
    const stranger = await b.person('dave')
    await stranger.page.goto(`${url}/web/1`)
    assert.equal(await stranger.page.locator('main form').count(), 0)
    await stranger.page.getByText('Only members of this project can comment').waitFor()
    const out = await b.person(null)
    await out.page.goto(`${url}/web/1`)
    assert.equal(await out.page.locator('main form').count(), 0)
    await out.page.getByRole('link', { name: 'Sign in' }).first().waitFor()
  },
)

test(
  'keyboard: ? lists shortcuts, / searches, c writes a ticket, g i opens the inbox; none fires while typing',
  { timeout: 60_000 },
  async () => {
    await web()
    await page.goto(`${url}/web`)
    await page.keyboard.press('?')
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor()
    await page.keyboard.press('Escape')
    await page.keyboard.press('/')
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'search')
    await page.keyboard.type('c')
    assert.equal(await page.getByLabel('Search tickets').inputValue(), 'c')
    await page.getByLabel('Search tickets').fill('')
    await page.locator('h1').click()
    await page.keyboard.press('c')
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'ticket-subject')
    await page.locator('h1').click()
    await page.keyboard.press('g')
    await page.keyboard.press('i')
    await page.waitForURL(`${url}/inbox`)
  },
)

test('at 390 px no page scrolls sideways', { timeout: 90_000 }, async () => {
  await web()
  await page.setViewportSize(PHONE)
  for (const [path, name] of [
    ['/', 'home'],
    ['/web', 'project'],
    ['/web/1', 'ticket'],
    ['/inbox', 'inbox'],
    ['/settings', 'settings'],
    ['/web/settings', 'project-settings'],
  ] as const) {
    await page.goto(`${url}${path}`)
    assert.equal(await scrollsSideways(page), false, path)
    await screenshot(page, `${name}-phone`)
  }
  await page.setViewportSize(WIDE)
})

test(
  'the XSS payloads in subjects, summaries, comments, titles and names make no element',
  { timeout: 90_000 },
  async () => {
    const payloads = [
      '<script>window.__xss=1</script>',
      '"><svg onload=window.__xss=1>',
      '[x](javascript:window.__xss=1)',
      "'><img src=x onerror=window.__xss=1>",
    ]
    const evil = await b.person(payloads[1]!, { idpId: 'idp-evil' })
    const evilApi = await app.login(payloads[1]!, 'idp-evil')
    for (const [i, payload] of payloads.entries()) {
      const made = await app.call('POST', '/api/projects', {
        token: evilApi.token,
        body: { title: `${payload} ${i}`, description: payload },
      })
      assert.equal(made.status, 201, made.text)
      const slug = made.body.project.slug as string
      const t = await app.ticket(evilApi, slug, { subject: payload, summary: payload })
      await app.call('POST', `/api/tickets/${t.id}/comments`, {
        token: evilApi.token,
        body: { text: payload },
      })
      await app.call('POST', `/api/tickets/${t.id}/assign`, {
        token: evilApi.token,
        body: { assignee: evilApi.id },
      })
      for (const path of [
        '/',
        `/${slug}`,
        `/${slug}/${t.number}`,
        '/inbox',
        '/settings',
        `/${slug}/settings`,
        `/tickets?q=${encodeURIComponent(payload)}`,
      ]) {
        await evil.page.goto(`${url}${path}`)
        const found = await evil.page.evaluate(() => ({
          flag: (window as unknown as { __xss?: number }).__xss ?? null,
          bad: document.querySelectorAll(
            'main script, main svg, main img, main iframe, [onload], [onerror], a[href^="javascript:" i]',
          ).length,
        }))
        assert.deepEqual(found, { flag: null, bad: 0 }, `${path} with ${payload}`)
      }
    }
  },
)
