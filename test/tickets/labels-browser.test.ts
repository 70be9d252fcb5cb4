/**
 * Labels, milestones and due dates in real Chromium, as people use them: the label picker on the
 * ticket page (suggests as you type, adds, removes; an admin creates a label from it) and in the
 * new-ticket form, the labels on the project settings page, a milestone's progress, and a due
 * date shown overdue in words. Each new page and control is checked with axe-core at 1280 and
 * 390 px, light and dark (every label colour pair passes the contrast rule); pictures go to
 * `SCREENSHOTS` when it is set.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessible } from '../support/axe.ts'
import { PHONE, pictures, ticketsBrowserApp, WIDE } from './browser-support.ts'

const T = { timeout: 120_000 }
const app = await ticketsBrowserApp()
after(() => app.close())
const { call } = app.app

const alice = await app.app.login('alice', 'idp-alice')
const bob = await app.app.login('bob', 'idp-bob')
const web = await app.app.project(alice, 'Web site', { slug: 'web' })
await app.app.member(alice, web.slug, bob, 'edit')

// Colours from dark to light, so the chips' text is white on some and black on others.
for (const [name, color] of [
  ['bug', '#b60205'],
  ['needs review', '#fbca04'],
  ['docs', '#0075ca'],
  ['good first issue', '#7057ff'],
  ['wontfix', '#ffffff'],
  ['ui', '#c2e0c6'],
])
  await call('POST', `/api/projects/${web.slug}/labels`, {
    token: alice.token,
    body: { name: name!, color: color! },
  })
const today = new Date().toISOString().slice(0, 10)
const dayOffset = (days: number) =>
  new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
await call('POST', `/api/projects/${web.slug}/milestones`, {
  token: alice.token,
  body: { title: 'v1.0', due: dayOffset(20), description: 'The first public release.' },
})
await call('POST', `/api/projects/${web.slug}/milestones`, {
  token: alice.token,
  body: { title: 'Spring cleaning', due: dayOffset(-3) },
})

async function ticketWith(
  subject: string,
  extra: { labels?: string[]; milestone?: string; due?: string; state?: string } = {},
) {
  const t = await app.app.ticket(alice, web.slug, { subject })
  for (const add of extra.labels ?? [])
    await call('POST', `/api/tickets/${t.id}/labels`, { token: alice.token, body: { add } })
  if (extra.milestone)
    await call('POST', `/api/tickets/${t.id}/milestone`, {
      token: alice.token,
      body: { milestone: extra.milestone },
    })
  if (extra.due)
    await call('POST', `/api/tickets/${t.id}/due`, { token: alice.token, body: { due: extra.due } })
  if (extra.state)
    await call('POST', `/api/tickets/${t.id}/state`, {
      token: alice.token,
      body: { state: extra.state },
    })
  return t
}

const login = await ticketWith('Login loops on Safari', {
  labels: ['bug', 'ui'],
  milestone: 'v1.0',
  due: dayOffset(-2),
})
await ticketWith('Write the install guide', {
  labels: ['docs', 'good first issue'],
  milestone: 'v1.0',
})
await ticketWith('Old banner removed', { labels: ['wontfix'], milestone: 'v1.0', state: 'done' })
await ticketWith('Release notes', { labels: ['needs review'], milestone: 'v1.0', due: today })

/** axe-core clean at 1280 and 390 px, light and dark; the pictures when asked for. */
async function accessibleEverywhere(page: Page, name: string): Promise<void> {
  for (const viewport of [WIDE, PHONE])
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize(viewport)
      await page.emulateMedia({ colorScheme: scheme })
      await assertAccessible(page, `${name} at ${viewport.width} px, ${scheme}`)
    }
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'light' })
  await pictures(page, name)
}

const { page: bobPage } = await app.person('bob', { idpId: 'idp-bob' })
const { page: alicePage } = await app.person('alice', { idpId: 'idp-alice' })

test('an editor adds a label with the picker as they type, and removes it', T, async () => {
  const page = bobPage
  const t = await ticketWith('Search is slow on large projects')
  await page.goto(`${app.url}/${web.slug}/${t.number}`)
  const labels = page.getByRole('region', { name: 'Labels' })
  await labels.getByText('None').waitFor()
  const picker = page.getByRole('combobox', { name: 'Add a label' })
  await picker.click()
  await picker.pressSequentially('rev')
  const options = page.getByRole('listbox', { name: 'Matching labels' })
  await options.getByRole('option', { name: 'needs review' }).waitFor()
  assert.equal(
    await options.getByRole('option', { name: /^Create label/ }).count(),
    0,
    'an editor is not offered to create a label',
  )
  await options.getByRole('option', { name: 'needs review' }).click()
  await labels.getByRole('button', { name: 'Remove label needs review' }).waitFor()
  const chip = labels.locator('.label-chip', { hasText: 'needs review' })
  // The page's live update may draw the chips again as one is read (a chip read while it is
  // taken out has no style at all: '' in one CI run): the colour is read once a chip shown has it.
  await page
    .waitForFunction(
      () =>
        [...document.querySelectorAll('.label-chip')].some(
          (el) =>
            el.textContent?.includes('needs review') &&
            getComputedStyle(el).backgroundColor === 'rgb(251, 202, 4)',
        ),
      null,
      { timeout: 5_000 },
    )
    .catch(() => {})
  assert.equal(
    await chip.evaluate((el) => getComputedStyle(el).backgroundColor),
    'rgb(251, 202, 4)',
    'the chip has its label’s colour',
  )
  assert.equal(await chip.evaluate((el) => getComputedStyle(el).color), 'rgb(0, 0, 0)')
  // The keyboard: type, arrow to the suggestion, Enter.
  await picker.click()
  await picker.pressSequentially('bu')
  await picker.press('ArrowDown')
  await picker.press('Enter')
  await labels.getByRole('button', { name: 'Remove label bug' }).waitFor()
  await accessibleEverywhere(page, 'ticket-labels')
  await labels.getByRole('button', { name: 'Remove label needs review' }).click()
  await labels
    .getByRole('button', { name: 'Remove label needs review' })
    .waitFor({ state: 'detached' })
  const read = await call('GET', `/api/tickets/${t.id}`)
  assert.deepEqual(read.body.ticket.labels, ['bug'])
})

test('an admin creates a new label from the picker, and it is added', T, async () => {
  const page = alicePage
  const t = await ticketWith('Crash after upgrade')
  await page.goto(`${app.url}/${web.slug}/${t.number}`)
  const picker = page.getByRole('combobox', { name: 'Add a label' })
  await picker.click()
  await picker.pressSequentially('regression')
  await page.getByRole('option', { name: 'Create label “regression”' }).click()
  await page
    .getByRole('region', { name: 'Labels' })
    .getByRole('button', { name: 'Remove label regression' })
    .waitFor()
  const listed = await call('GET', `/api/projects/${web.slug}/labels`)
  assert.ok(listed.body.labels.some((l: { name: string }) => l.name === 'regression'))
  const read = await call('GET', `/api/tickets/${t.id}`)
  assert.deepEqual(read.body.ticket.labels, ['regression'])
})

test(
  'the new-ticket form gathers labels with the picker and the new ticket has them',
  T,
  async () => {
    const page = alicePage
    await page.goto(`${app.url}/${web.slug}`)
    await page.getByText('New ticket', { exact: true }).first().click()
    await page.getByLabel('Subject').fill('Dark mode for the settings page')
    const picker = page.getByRole('combobox', { name: 'Labels' })
    await picker.click()
    await picker.pressSequentially('u')
    await page.getByRole('option', { name: 'ui' }).click()
    await picker.pressSequentially('good')
    await picker.press('Enter')
    const chosen = page.getByRole('list', { name: 'Chosen labels' })
    await chosen.getByText('good first issue').waitFor()
    await chosen.getByText('ui').waitFor()
    await accessibleEverywhere(page, 'new-ticket-labels')
    await page.getByRole('button', { name: 'New ticket', exact: true }).last().click()
    await page.waitForURL(/\/web\/\d+$/)
    const labels = page.getByRole('region', { name: 'Labels' })
    await labels.getByRole('button', { name: 'Remove label good first issue' }).waitFor()
    await labels.getByRole('button', { name: 'Remove label ui' }).waitFor()
  },
)

test(
  'the project list shows labels by name, milestones and due dates, overdue in words',
  T,
  async () => {
    const page = bobPage
    await page.goto(`${app.url}/${web.slug}`)
    const row = page.getByRole('list', { name: 'Tickets' }).getByRole('listitem').filter({
      hasText: 'Login loops on Safari',
    })
    await row.getByText('bug', { exact: true }).waitFor()
    await row.getByText('v1.0').waitFor()
    assert.match(await row.innerText(), /due \d{4}-\d{2}-\d{2} overdue/i)
    const notes = page.getByRole('listitem').filter({ hasText: 'Release notes' })
    assert.doesNotMatch(await notes.innerText(), /overdue/i, 'due today is not overdue yet')
    await page.goto(`${app.url}/${web.slug}?q=${encodeURIComponent('is:overdue')}`)
    const list = page.getByRole('list', { name: 'Tickets' })
    await list.getByText('Login loops on Safari').waitFor()
    assert.equal(await list.getByRole('listitem').count(), 1)
    await accessibleEverywhere(page, 'project-labels')
  },
)

test('a due date is set on the ticket page and shown overdue in words', T, async () => {
  const page = bobPage
  const t = await ticketWith('Renew the certificate')
  await page.goto(`${app.url}/${web.slug}/${t.number}`)
  const due = page.getByRole('region', { name: 'Due date' })
  await due.getByText('No due date').waitFor()
  await page.getByRole('textbox', { name: 'Due date' }).fill(dayOffset(-1))
  await due.getByRole('button', { name: 'Set' }).click()
  await due.getByText('overdue', { exact: true }).waitFor()
  assert.match(await due.innerText(), new RegExp(`due ${dayOffset(-1)} overdue`, 'i'))
  await page.getByRole('combobox', { name: 'Milestone' }).selectOption('v1.0')
  await page
    .getByRole('region', { name: 'Milestone' })
    .getByRole('link', { name: 'All milestones' })
    .waitFor()
  await page.waitForFunction(() =>
    document.querySelector('ol.history')?.textContent?.includes('set the milestone to'),
  )
  await accessibleEverywhere(page, 'ticket-due')
  const read = await call('GET', `/api/tickets/${t.id}`)
  assert.deepEqual([read.body.ticket.due, read.body.ticket.milestone], [dayOffset(-1), 'v1.0'])
})

test(
  'the milestones page shows each milestone’s progress, and editors make and close them',
  T,
  async () => {
    const page = bobPage
    await page.goto(`${app.url}/${web.slug}/milestones`)
    const v1 = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'v1.0' }) })
    await v1.getByText(/^1 of \d+ tickets closed/).waitFor()
    const before = await call('GET', `/api/projects/${web.slug}/milestones`)
    const progress = before.body.milestones.find(
      (m: { title: string }) => m.title === 'v1.0',
    ).progress
    assert.equal(
      await v1.getByText(/tickets closed/).innerText(),
      `${progress.closed} of ${progress.total} tickets closed (${Math.round((progress.closed / progress.total) * 100)}%)`,
    )
    // Closing one of its tickets moves the progress on the open page.
    await call('POST', `/api/tickets/${login.id}/state`, {
      token: alice.token,
      body: { state: 'done' },
    })
    await v1.getByText(`${progress.closed + 1} of ${progress.total} tickets closed`).waitFor()
    const spring = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Spring cleaning' }) })
    await spring.getByText('overdue', { exact: true }).waitFor()
    await page.getByText('New milestone', { exact: true }).click()
    await page.getByLabel('Title').fill('v2.0')
    await page.getByLabel('Due date').fill(dayOffset(60))
    await page.getByRole('button', { name: 'Create milestone' }).click()
    await page.getByRole('heading', { name: 'v2.0' }).waitFor()
    await page.getByRole('button', { name: 'Close milestone Spring cleaning' }).click()
    await page
      .getByRole('list', { name: 'Closed milestones' })
      .getByText('Spring cleaning')
      .waitFor()
    await accessibleEverywhere(page, 'milestones')
    // The title leads to the milestone's tickets.
    await v1.getByRole('link', { name: 'v1.0' }).click()
    await page.waitForURL(/q=milestone/)
    await page.getByRole('list', { name: 'Tickets' }).getByText('Release notes').waitFor()
  },
)

test('an admin makes, recolours and deletes labels on the project settings page', T, async () => {
  const page = alicePage
  await page.goto(`${app.url}/${web.slug}/settings`)
  const section = page.getByRole('region', { name: 'Labels' })
  await section.getByLabel('Name', { exact: true }).fill('security')
  await section.getByLabel('Colour', { exact: true }).fill('#5319e7')
  await section.getByLabel('Description', { exact: true }).fill('Found by an audit')
  await section.getByRole('button', { name: 'Create label' }).click()
  const table = section.getByRole('table', { name: 'Labels' })
  await table.getByText('security', { exact: true }).waitFor()
  await section.getByLabel('Colour of docs').fill('#006b75')
  await section.getByRole('button', { name: 'Save label docs' }).click()
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.label-chip')).some(
      (c) => c.textContent === 'docs' && c.dataset.color === '#006b75',
    ),
  )
  await section.getByLabel('Name of wontfix').fill('won’t fix')
  await section.getByRole('button', { name: 'Save label wontfix' }).click()
  await table.getByText('won’t fix', { exact: true }).waitFor()
  await accessibleEverywhere(page, 'settings-labels')
  page.once('dialog', (d) => void d.accept())
  await section.getByRole('button', { name: 'Delete label security' }).click()
  await table.getByText('security', { exact: true }).waitFor({ state: 'detached' })
  const listed = await call('GET', `/api/projects/${web.slug}/labels`)
  assert.deepEqual(
    listed.body.labels.map((l: { name: string; color: string }) => [l.name, l.color]).slice(0, 3),
    [
      ['bug', '#b60205'],
      ['docs', '#006b75'],
      ['good first issue', '#7057ff'],
    ],
  )
})
