/**
 * Reading a note as Markdown in real Chromium: Write / Read kept per note across reloads, a
 * reading view with no script and no remote image, task boxes that tick as an ordinary edit of
 * the `[ ]` in the text, Pin keeping a note at the top, and axe-core on the reading view.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessibleLightAndDark } from '../support/axe.ts'
import { until } from '../support/wait.ts'
import { notesBrowserApp, PHONE, ready, saved } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 120_000 }

const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })
const reading = (page: Page) => page.getByRole('article', { name: 'Note, read as Markdown' })
const notesList = (page: Page) => page.getByRole('list', { name: 'Notes' })
const item = (page: Page, title: string) => notesList(page).getByRole('button', { name: title })

async function serverTexts(user: string): Promise<string[]> {
  return (
    await app.sql<
      { text: string }[]
    >`select text from notes where user_id = ${user} and not gone order by edited`
  ).map((n) => n.text)
}

async function write(page: Page, text: string): Promise<void> {
  await page.getByRole('button', { name: 'New note' }).click()
  await editor(page).fill(text)
  await editor(page).blur()
}

const ERRANDS =
  'Errands\n\n- [ ] call **Ana**\n- [x] buy milk\n\nSee [the list](https://example.org/list).\n'
const HOSTILE =
  'Hostile\n<script>window.pwned = 1</script>\n<img src=x onerror="window.pwned = 2">\n![pixel](http://127.0.0.1:9/pixel.png)\n[bad](javascript:window.pwned=3)\n'

test(
  'Read shows the note as Markdown and stays chosen for that note across a reload; Write goes back to the text',
  T,
  async () => {
    const { page } = await app.device('reader')
    await write(page, 'Plain\nstays in Write\n')
    await write(page, ERRANDS)
    await saved(page)
    await page.getByRole('button', { name: 'Read', exact: true }).click()
    assert.equal(
      await page.getByRole('button', { name: 'Read', exact: true }).getAttribute('aria-pressed'),
      'true',
    )
    await reading(page).getByRole('listitem').filter({ hasText: 'call Ana' }).waitFor()
    assert.equal(await editor(page).isVisible(), false)
    assert.equal(await reading(page).locator('strong').innerText(), 'Ana')
    const link = reading(page).getByRole('link', { name: 'the list' })
    assert.equal(await link.getAttribute('href'), 'https://example.org/list')
    assert.equal(await link.getAttribute('rel'), 'nofollow noopener noreferrer')

    await item(page, 'Plain').click()
    assert.equal(await editor(page).isVisible(), true, 'another note keeps its own choice')
    await page.reload()
    await ready(page)
    await item(page, 'Errands').click()
    await reading(page).waitFor()
    assert.equal(await editor(page).isVisible(), false, 'Read is kept across the reload')
    await page.getByRole('button', { name: 'Write', exact: true }).click()
    assert.equal(await editor(page).isVisible(), true)
    assert.equal(await editor(page).evaluate((e) => e === document.activeElement), true)
  },
)

test(
  'a task box ticks as an ordinary edit of the [ ] in the text, which reaches the server',
  T,
  async () => {
    const { page } = await app.device('ticker')
    await write(page, ERRANDS)
    await saved(page)
    await page.getByRole('button', { name: 'Read', exact: true }).click()
    const call = reading(page).getByRole('checkbox', { name: 'call Ana' })
    const milk = reading(page).getByRole('checkbox', { name: 'buy milk' })
    assert.equal(await call.isChecked(), false)
    assert.equal(await milk.isChecked(), true)
    await call.check()
    await milk.uncheck()
    const ticked = ERRANDS.replace('[ ] call', '[x] call').replace('[x] buy', '[ ] buy')
    await until(async () => (await serverTexts('ticker')).includes(ticked))
    await saved(page)
    await page.getByRole('button', { name: 'Write', exact: true }).click()
    assert.equal(await editor(page).inputValue(), ticked)
  },
)

test('the reading view runs no script from the text and loads no remote image', T, async () => {
  const { page } = await app.device('hostile')
  const remote: string[] = []
  page.on('request', (r) => {
    if (!r.url().startsWith(app.url)) remote.push(r.url())
  })
  await write(page, HOSTILE)
  await page.getByRole('button', { name: 'Read', exact: true }).click()
  await reading(page).getByText('<script>window.pwned = 1</script>').waitFor()
  assert.equal(await reading(page).locator('script, img, iframe, [onerror]').count(), 0)
  assert.equal(
    await reading(page).getByRole('link', { name: 'bad' }).count(),
    0,
    'a javascript: link stays text',
  )
  assert.equal(
    await reading(page).getByRole('link', { name: 'pixel' }).getAttribute('href'),
    'http://127.0.0.1:9/pixel.png',
  )
  assert.equal(
    await page.evaluate(() => (window as unknown as { pwned?: number }).pwned),
    undefined,
  )
  assert.deepEqual(remote, [])
})

test(
  'Pin keeps a note at the top of the list, across a reload, until it is unpinned',
  T,
  async () => {
    const { page } = await app.device('pinner')
    await write(page, 'Oldest\n')
    await write(page, 'Middle\n')
    await write(page, 'Newest\n')
    await item(page, 'Oldest').click()
    await page.getByRole('button', { name: 'Pin', exact: true }).click()
    assert.equal(
      await page.getByRole('button', { name: 'Pin', exact: true }).getAttribute('aria-pressed'),
      'true',
    )
    const titles = () => notesList(page).locator('.title').allInnerTexts()
    assert.deepEqual(await titles(), ['Oldest', 'Newest', 'Middle'])
    assert.equal(await item(page, 'Oldest').getByText('Pinned').count(), 1)
    await item(page, 'Middle').click()
    await editor(page).fill('Middle\nedited now\n')
    await editor(page).blur()
    // Kept a moment after the blur; then it is the newest edit, below the pinned note.
    await until(async () => (await titles()).join() === 'Oldest,Middle,Newest')
    await page.reload()
    await ready(page)
    await until(async () => (await titles()).join() === 'Oldest,Middle,Newest')
    await item(page, 'Oldest').click()
    await page.getByRole('button', { name: 'Pin', exact: true }).click()
    assert.deepEqual(await titles(), ['Middle', 'Newest', 'Oldest'])
  },
)

test(
  "a pin follows the person to their other device, and so does an unpin; Read stays each browser's own",
  T,
  async () => {
    const laptop = await app.device('two-devices-pinner')
    await write(laptop.page, 'Keep on top\n')
    await write(laptop.page, 'Other note\n')
    await saved(laptop.page)
    const phone = await app.device('two-devices-pinner')
    await item(phone.page, 'Keep on top').waitFor()
    await item(laptop.page, 'Keep on top').click()
    await laptop.page.getByRole('button', { name: 'Pin', exact: true }).click()
    await laptop.page.getByRole('button', { name: 'Read', exact: true }).click()
    // The phone takes it at its next sync (focus starts one at once).
    await phone.page.evaluate(() => window.dispatchEvent(new Event('focus')))
    await item(phone.page, 'Keep on top').getByText('Pinned').waitFor({ timeout: 30_000 })
    const titles = () => notesList(phone.page).locator('.title').allInnerTexts()
    assert.deepEqual(await titles(), ['Keep on top', 'Other note'])
    await item(phone.page, 'Keep on top').click()
    assert.equal(await editor(phone.page).isVisible(), true, 'Read is the laptop’s choice only')
    await phone.page.getByRole('button', { name: 'Pin', exact: true }).click()
    await laptop.page.evaluate(() => window.dispatchEvent(new Event('focus')))
    await until(
      async () => (await item(laptop.page, 'Keep on top').getByText('Pinned').count()) === 0,
    )
    await laptop.context.close()
    await phone.context.close()
  },
)

test(
  'the reading view with task boxes passes axe-core, light and dark, 1280 and 390 px',
  T,
  async () => {
    for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
      const { page, context } = await app.device(`read-${viewport.width}`, { viewport })
      await write(
        page,
        `${ERRANDS}\n# Heading\n\n> a quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\`\`\`\ncode #not-a-tag\n\`\`\`\n`,
      )
      await page.getByRole('button', { name: 'Pin', exact: true }).click()
      await page.getByRole('button', { name: 'Read', exact: true }).click()
      await reading(page).getByRole('checkbox', { name: 'call Ana' }).waitFor()
      await assertAccessibleLightAndDark(
        page,
        `the reading view, ${viewport.width} px`,
        `notes-read-${viewport.width}`,
      )
      await context.close()
    }
  },
)

test(
  'the Markdown of the reading view loads on the first Read, offline too: the service worker keeps it',
  T,
  async () => {
    const { page, context } = await app.device('offline-reader')
    const chunks: { url: string; fromWorker: boolean }[] = []
    page.on('response', (r) => {
      if (/\/assets\/chunk-/.test(r.url()))
        chunks.push({ url: r.url(), fromWorker: r.fromServiceWorker() })
    })
    await write(page, ERRANDS)
    await saved(page)
    await page.evaluate(() => navigator.serviceWorker.ready)
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null)
    await context.setOffline(true)
    await page.reload()
    await ready(page)
    await item(page, 'Errands').click()
    const before = new Set(chunks.map((c) => c.url))
    await page.getByRole('button', { name: 'Read', exact: true }).click()
    await reading(page).getByRole('listitem').filter({ hasText: 'call Ana' }).waitFor()
    assert.equal(await reading(page).locator('strong').innerText(), 'Ana')
    const lazy = chunks.filter((c) => !before.has(c.url))
    assert.equal(lazy.length, 1, 'the renderer came on the first Read, as a chunk of its own')
    assert.equal(lazy[0]!.fromWorker, true, 'from the service worker, offline')
  },
)
