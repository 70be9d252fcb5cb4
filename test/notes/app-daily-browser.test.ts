/**
 * The notes web app in real Chromium, for the things a person meets every day on a phone and a
 * laptop (issue 30): back and reload keep their place, the history tells versions and devices
 * apart, a conflict is told on both devices in the right words, the search finds words by their
 * beginning and is driven by the keyboard, and every page passes an axe-core scan.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessibleLightAndDark } from '../support/axe.ts'
import { notesBrowserApp, PHONE, ready, saved } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 90_000 }

async function serverTexts(user: string): Promise<string[]> {
  return (
    await app.sql<
      { text: string }[]
    >`select text from notes where user_id = ${user} and not gone order by edited`
  ).map((n) => n.text)
}

async function onServer(user: string, text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await serverTexts(user)).includes(text)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.fail(`the server never got ${JSON.stringify(text)}`)
}

const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })
const notesList = (page: Page) => page.getByRole('list', { name: 'Notes' })
const search = (page: Page) => page.getByRole('searchbox', { name: 'Search notes' })

async function write(page: Page, user: string, text: string): Promise<void> {
  await page.getByRole('button', { name: 'New note' }).click()
  await editor(page).fill(text)
  await onServer(user, text)
  await saved(page)
}

async function syncNow(page: Page): Promise<void> {
  await page.evaluate(() => window.dispatchEvent(new Event('focus')))
}

test(
  "on a phone, the browser's back button returns from a note to the list, and a reload keeps the open note",
  T,
  async () => {
    const { page, context } = await app.device('backer', { viewport: PHONE })
    await write(page, 'backer', 'Shopping\nmilk\n')
    await page.getByRole('button', { name: 'Back' }).click()
    await write(page, 'backer', 'Packing\nsocks\n')
    await page.getByRole('button', { name: 'Back' }).click()
    assert.equal(await editor(page).isVisible(), false)
    await notesList(page).getByRole('button', { name: 'Shopping' }).click()
    assert.equal(await editor(page).inputValue(), 'Shopping\nmilk\n')
    assert.match(page.url(), /\/#\/.+/, 'the open note has its own address')

    await page.goBack()
    await notesList(page).waitFor()
    assert.equal(new URL(page.url()).origin, app.url, 'still in the app')
    assert.equal(await editor(page).isVisible(), false, 'the list fills the phone again')

    await notesList(page).getByRole('button', { name: 'Packing' }).click()
    await editor(page).waitFor()
    await editor(page).fill('Packing\nsocks\nmap\n')
    await page.reload()
    await ready(page)
    await editor(page).waitFor()
    assert.equal(
      await editor(page).inputValue(),
      'Packing\nsocks\nmap\n',
      'the reload opened the same note, with what was typed',
    )
    assert.equal(await notesList(page).isVisible(), false)

    await page.goBack()
    await notesList(page).waitFor()
    assert.equal(new URL(page.url()).origin, app.url)
    await page.goForward()
    await editor(page).waitFor()
    assert.equal(await editor(page).inputValue(), 'Packing\nsocks\nmap\n')

    // A note's address opened in a new tab (a bookmark, a link) opens the note, and back goes
    // to the list, not out of the app.
    const address = page.url()
    const linked = await context.newPage()
    await linked.goto(address)
    await ready(linked)
    await editor(linked).waitFor()
    assert.equal(await editor(linked).inputValue(), 'Packing\nsocks\nmap\n')
    await linked.goBack()
    await notesList(linked).waitFor()
    assert.equal(new URL(linked.url()).origin, app.url)
    await context.close()
  },
)

test(
  'history: a line appended after a last line without a line end is the only change, versions of one minute show their seconds, and each names its device',
  T,
  async () => {
    const a = await app.device('chronicler')
    await write(a.page, 'chronicler', 'Groceries\nbutter')
    await a.page.waitForTimeout(1100)
    await editor(a.page).fill('Groceries\nbutter\neggs')
    await onServer('chronicler', 'Groceries\nbutter\neggs')
    await saved(a.page)
    await a.page.waitForTimeout(1100)
    const b = await app.device('chronicler')
    await notesList(b.page).getByRole('button', { name: 'Groceries' }).click()
    await editor(b.page).fill('Groceries\nbutter\neggs\nbread')
    await onServer('chronicler', 'Groceries\nbutter\neggs\nbread')
    await syncNow(a.page)
    await a.page.waitForFunction(() =>
      (document.getElementById('editor') as HTMLTextAreaElement).value.endsWith('bread'),
    )
    await a.page.getByRole('button', { name: 'History' }).click()
    const versions = a.page.locator('#revisions > li')
    await versions.nth(2).waitFor()
    // Newest first: b's line, then a's appended line with nothing struck through.
    assert.equal(
      await versions.nth(1).locator('del').count(),
      0,
      'the unchanged last line is not struck through',
    )
    assert.equal(await versions.nth(1).locator('ins').innerText(), 'eggs')
    assert.equal(await versions.nth(1).locator('pre').innerText(), 'Groceries\nbutter\neggs')
    const heads = await versions.locator('.revision-head strong').allInnerTexts()
    assert.equal(new Set(heads).size, 3, `every version's time differs: ${heads.join(' | ')}`)
    assert.ok(
      heads.some((h) => /\d:\d\d:\d\d/.test(h)),
      `versions of one minute show seconds: ${heads.join(' | ')}`,
    )
    const devices = await versions.locator('.revision-head .muted').allInnerTexts()
    assert.deepEqual(devices, ['Chrome on Linux', 'this device', 'this device'])
    await a.context.close()
    await b.context.close()
  },
)

test(
  'a conflict is told on both devices, each naming "this device" and "the other device" from its own side',
  T,
  async () => {
    const a = await app.device('clash')
    const b = await app.device('clash')
    await write(a.page, 'clash', 'Colour\nblue\n')
    await syncNow(b.page)
    await notesList(b.page).getByRole('button', { name: 'Colour' }).click()
    await a.context.setOffline(true)
    await b.context.setOffline(true)
    await editor(a.page).fill('Colour\ngreen\n')
    await editor(b.page).fill('Colour\nred\n')
    await b.page.getByRole('status').filter({ hasText: 'Waiting to sync (1)' }).waitFor()
    await a.context.setOffline(false)
    await onServer('clash', 'Colour\ngreen\n')
    await b.context.setOffline(false)
    await onServer('clash', 'Colour\nred\n')

    // b sent second: its text is the copy, so the copy is "this device's version".
    const bNotice = b.page.locator('#notice')
    await bNotice
      .getByText(
        'Conflict in “Colour”: the other device changed the same lines while you edited them here.',
      )
      .waitFor()
    assert.equal(
      await b.page.locator('#compare-original-title').textContent(),
      "The other device's version",
    )
    assert.equal(
      await b.page.locator('#compare-copy-title').textContent(),
      "This device's version (conflicted copy)",
    )
    assert.equal(await b.page.locator('#compare-copy ins').innerText(), 'red\n')
    await b.page.getByRole('button', { name: "Keep only this device's version" }).waitFor()
    assert.doesNotMatch(await b.page.locator('#compare').innerText(), /saved on another device/)

    // a kept its text in the note; it is told too, and the copy is "the other device's version".
    await syncNow(a.page)
    await a.page
      .locator('#notice')
      .getByText('Conflict in “Colour”: the other device changed the same lines as this device.')
      .waitFor()
    await a.page.getByRole('button', { name: 'Compare' }).click()
    await a.page.getByRole('button', { name: "Keep only the other device's version" }).waitFor()
    assert.equal(
      await a.page.locator('#compare-original-title').textContent(),
      "This device's version",
    )
    assert.equal(
      await a.page.locator('#compare-copy-title').textContent(),
      "The other device's version (conflicted copy)",
    )
    assert.equal(await a.page.locator('#compare-original del').innerText(), 'green\n')
    await a.context.close()
    await b.context.close()
  },
)

/** Puts notes straight into the server's table (oldest first) and has the page pull them. */
async function seed(page: Page, user: string, texts: string[]): Promise<void> {
  for (const [i, text] of texts.entries()) {
    await app.sql`insert into notes (user_id, id, text, created, edited, gone) values (${user}, ${`seed-${i}`}, ${text}, ${i + 1}, ${i + 1}, false)`
  }
  await app.sql`insert into note_clocks (user_id, last_edited) values (${user}, ${texts.length}) on conflict (user_id) do update set last_edited = ${texts.length}`
  await syncNow(page)
  await page.waitForFunction(
    (n) => document.querySelectorAll('#list button.item').length === n,
    texts.length,
    { timeout: 20_000 },
  )
}

const titles = (page: Page) => notesList(page).locator('.title').allInnerTexts()

test(
  'search: words match the beginnings of words, an exact title comes first, and "no match" shows right under the search box',
  T,
  async () => {
    const { page, context } = await app.device('seeker')
    await seed(page, 'seeker', [
      'Errand 5',
      'Shopping\nerrand 5 is the bakery',
      'Errand 15',
      'Errand 52 and the post office',
      'Errands',
    ])
    await search(page).fill('Errand 5')
    await page.waitForFunction(
      () => !document.querySelector('#list')!.textContent.includes('Errand 15'),
    )
    assert.deepEqual(await titles(page), ['Errand 5', 'Errand 52 and the post office', 'Shopping'])
    await search(page).fill('errands')
    assert.deepEqual(await titles(page), ['Errands'])

    await search(page).fill('zebra')
    const empty = page.getByText('No note has these words.')
    await empty.waitFor()
    const box = (await search(page).boundingBox())!
    const message = (await empty.boundingBox())!
    assert.ok(
      message.y >= box.y + box.height && message.y - (box.y + box.height) < 40,
      `the message sits under the search box (box ends at ${box.y + box.height}, message at ${message.y})`,
    )
    await context.close()
  },
)

test(
  'keyboard: the first Tab stop is the search box, arrow keys move through the results and Enter opens one',
  T,
  async () => {
    const { page, context } = await app.device('typist')
    await seed(page, 'typist', ['Apples\nred', 'Apricots\norange', 'Bananas\nyellow'])
    await page.reload()
    await ready(page)
    await page.keyboard.press('Tab')
    assert.equal(
      await search(page).evaluate((e) => e === document.activeElement),
      true,
      'Tab goes to the search box first, not to "Sign out"',
    )
    await page.keyboard.type('ap')
    await page.waitForFunction(() => document.querySelectorAll('#list button.item').length === 2)
    await page.keyboard.press('ArrowDown')
    const focused = () =>
      page.evaluate(
        () =>
          document.activeElement?.querySelector('.title')?.textContent ??
          document.activeElement?.id,
      )
    assert.equal(await focused(), 'Apricots', 'Down from the box is the first result')
    await page.keyboard.press('ArrowDown')
    assert.equal(await focused(), 'Apples')
    await page.keyboard.press('ArrowUp')
    await page.keyboard.press('ArrowUp')
    assert.equal(
      await search(page).evaluate((e) => e === document.activeElement),
      true,
      'Up from the first result is the search box',
    )
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await page.waitForFunction(
      () => (document.getElementById('editor') as HTMLTextAreaElement).value === 'Apples\nred',
    )
    // Enter in the search box opens the first result.
    await search(page).fill('banan')
    await page.keyboard.press('Enter')
    await page.waitForFunction(
      () => (document.getElementById('editor') as HTMLTextAreaElement).value === 'Bananas\nyellow',
    )
    await context.close()
  },
)

test(
  'accessibility: every page of the notes app has no serious or critical axe-core violation, light and dark, wide and phone',
  { timeout: 120_000 },
  async () => {
    for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
      const what = `at ${viewport.width} px`
      const welcome = await app.browser.newContext({ viewport })
      const page = await welcome.newPage()
      await page.goto(app.url)
      await assertAccessibleLightAndDark(page, `the welcome page, ${what}`)
      await page.goto(`${app.url}/login/failed`)
      await assertAccessibleLightAndDark(
        page,
        `the login-failed page with nothing recorded, ${what}`,
      )
      await page.goto(`${app.url}/login/callback?idp_code=not-a-code`)
      await page.waitForURL(/\/login\/failed$/)
      await assertAccessibleLightAndDark(page, `the login-failed page with a reason, ${what}`)
      await welcome.close()

      const user = `axe-${viewport.width}`
      const a = await app.device(user, { viewport, name: 'Ana Lima' })
      await assertAccessibleLightAndDark(a.page, `the empty app, ${what}`)
      await write(a.page, user, 'Colour\nblue\n')
      await assertAccessibleLightAndDark(a.page, `an open note, ${what}`)
      await a.page.getByRole('button', { name: 'History' }).click()
      await a.page.locator('#revisions > li').first().waitFor()
      await assertAccessibleLightAndDark(a.page, `the history, ${what}`)
      await a.page.getByRole('button', { name: 'Close history' }).click()
      if (viewport === PHONE) await a.page.getByRole('button', { name: 'Back' }).click()
      await search(a.page).fill('nothing like this')
      await a.page.getByText('No note has these words.').waitFor()
      await assertAccessibleLightAndDark(a.page, `the list with no match, ${what}`)
      await search(a.page).fill('')

      // A conflicted copy, on the device whose save became the copy.
      const b = await app.device(user, { viewport })
      await notesList(b.page).getByRole('button', { name: 'Colour' }).click()
      await notesList(a.page).getByRole('button', { name: 'Colour' }).click()
      await b.context.setOffline(true)
      await editor(a.page).fill('Colour\ngreen\n')
      await onServer(user, 'Colour\ngreen\n')
      await editor(b.page).fill('Colour\nred\n')
      await b.page.waitForTimeout(800)
      await b.context.setOffline(false)
      await b.page.getByRole('button', { name: 'Keep both' }).waitFor({ timeout: 20_000 })
      await assertAccessibleLightAndDark(b.page, `a conflicted copy with its notice, ${what}`)
      await a.context.close()
      await b.context.close()
    }
  },
)
