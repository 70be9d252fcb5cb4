/**
 * Tags in the notes web app, in real Chromium: the tag list beside the notes with counts and
 * folded sub-tags, choosing a tag and `#tag` in the search box, all of it offline from the
 * browser's copy, renaming a tag in every note as ordinary edits that reach the server, and the
 * list at 1280 and 390 px, light and dark, clean under axe-core.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessibleLightAndDark } from '../support/axe.ts'
import { until } from '../support/wait.ts'
import { notesBrowserApp, PHONE, saved } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 120_000 }

const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })
const notesList = (page: Page) => page.getByRole('list', { name: 'Notes' })
const tagList = (page: Page) => page.getByRole('navigation', { name: 'Tags' })
const search = (page: Page) => page.getByRole('searchbox', { name: 'Search notes' })
const tag = (page: Page, name: string) =>
  tagList(page).getByRole('button', { name: new RegExp(`^${name} \\d+ notes?$`) })

async function serverTexts(user: string): Promise<string[]> {
  return (
    await app.sql<
      { text: string }[]
    >`select text from notes where user_id = ${user} and not gone order by edited`
  ).map((n) => n.text)
}

async function titles(page: Page): Promise<string[]> {
  return await notesList(page).locator('.title').allInnerTexts()
}

async function write(page: Page, text: string): Promise<void> {
  await page.getByRole('button', { name: 'New note' }).click()
  await editor(page).fill(text)
  await editor(page).blur()
}

const NOTES = [
  'Budget\nNumbers for #work/plans and #home.\n',
  'Standup\nEvery morning. #work\n',
  'Roadmap\n#work/plans/q3 goals, `#not-a-tag` in code\n',
  'Groceries\nmilk, eggs #home\n',
]

test(
  'the tag list counts notes a tag, folds sub-tags under their parent, and choosing a tag or typing #tag filters the list, offline too',
  T,
  async () => {
    const { page, context } = await app.device('tagger')
    for (const text of NOTES) await write(page, text)
    await saved(page)

    // The list is drawn again after each save: wait until it counts the last note written.
    await tag(page, '#home')
      .filter({ hasText: /2 notes$/ })
      .waitFor()
    assert.match(
      (await tag(page, '#home').textContent()) ?? '',
      /^#home2 notes$/,
      'the count is beside the tag',
    )
    assert.match((await tag(page, '#work').textContent()) ?? '', /^#work3 notes$/)
    assert.equal(
      await tagList(page)
        .getByRole('button', { name: /^#plans/ })
        .count(),
      0,
      'sub-tags start folded',
    )
    assert.equal(
      await tagList(page)
        .getByRole('button', { name: /not-a-tag/ })
        .count(),
      0,
      'no tag from code',
    )

    await tagList(page).getByRole('button', { name: 'Sub-tags of #work', exact: true }).click()
    assert.equal(
      await tagList(page)
        .getByRole('button', { name: 'Sub-tags of #work', exact: true })
        .getAttribute('aria-expanded'),
      'true',
    )
    await tag(page, '#plans').click()
    assert.equal(
      await search(page).inputValue(),
      '#work/plans',
      'choosing a tag types it into the search box',
    )
    assert.deepEqual(await titles(page), ['Roadmap', 'Budget'])
    assert.equal(await tag(page, '#plans').getAttribute('aria-pressed'), 'true')

    await tag(page, '#work').click()
    assert.deepEqual(
      await titles(page),
      ['Roadmap', 'Standup', 'Budget'],
      'a parent finds the notes of its sub-tags too',
    )
    await tag(page, '#work').click()
    assert.equal(
      await search(page).inputValue(),
      '',
      'choosing the chosen tag again shows every note',
    )
    assert.equal((await titles(page)).length, 4)

    await search(page).fill('#home milk')
    assert.deepEqual(await titles(page), ['Groceries'])
    await search(page).fill('#nothing')
    await page.getByText('No note has this tag.').waitFor()
    await search(page).fill('')

    // Offline, from the browser's copy: a new tag appears and filters at once.
    await context.setOffline(true)
    await write(page, 'Packing\nsocks #trip')
    await tag(page, '#trip').click()
    assert.deepEqual(await titles(page), ['Packing'])
    await page.getByRole('status').filter({ hasText: 'Offline' }).waitFor()
    await context.setOffline(false)
    await saved(page)
    await context.close()
  },
)

test(
  "renaming a tag rewrites it and its sub-tags in every note as ordinary edits that reach the server and merge with another device's",
  T,
  async () => {
    const a = await app.device('renamer')
    for (const text of NOTES) await write(a.page, text)
    await saved(a.page)

    // Another device edits another line of a tagged note offline meanwhile.
    const b = await app.device('renamer')
    await notesList(b.page).getByRole('button', { name: 'Budget' }).click()
    await b.context.setOffline(true)
    await editor(b.page).fill('Budget for 2027\nNumbers for #work/plans and #home.\n')
    await editor(b.page).blur()

    await tag(a.page, '#work').click()
    await a.page.getByRole('button', { name: 'Rename tag' }).click()
    const field = a.page.getByRole('textbox', { name: 'New name' })
    assert.equal(await field.inputValue(), 'work')
    await field.fill('two words')
    await a.page.getByRole('button', { name: 'Rename', exact: true }).click()
    await a.page.getByText('A tag starts with a letter and has no spaces').waitFor()
    assert.equal(await field.getAttribute('aria-invalid'), 'true')
    await field.fill('#job')
    await a.page.getByRole('button', { name: 'Rename', exact: true }).click()
    await a.page.getByText('Renamed #work to #job in 3 notes.').waitFor()
    assert.equal(await search(a.page).inputValue(), '#job')
    // The three were saved at once, so their order in the list is the order of their saves' times.
    assert.deepEqual((await titles(a.page)).sort(), ['Budget', 'Roadmap', 'Standup'])
    assert.equal(
      await tagList(a.page)
        .getByRole('button', { name: /^#work/ })
        .count(),
      0,
    )
    await saved(a.page)
    await until(async () =>
      (await serverTexts('renamer')).includes('Standup\nEvery morning. #job\n'),
    )
    const texts = await serverTexts('renamer')
    assert.ok(
      texts.includes('Roadmap\n#job/plans/q3 goals, `#not-a-tag` in code\n'),
      texts.join(' | '),
    )

    await b.context.setOffline(false)
    await until(async () =>
      (await serverTexts('renamer')).includes(
        'Budget for 2027\nNumbers for #job/plans and #home.\n',
      ),
    )
    await b.page.evaluate(() => window.dispatchEvent(new Event('focus')))
    await tag(b.page, '#job').waitFor()
    await a.context.close()
    await b.context.close()
  },
)

test(
  'the tag list on a phone is folded under "Tags", chosen from there, and every tag view passes axe-core, light and dark, 1280 and 390 px',
  T,
  async () => {
    for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
      const what = `${viewport.width} px`
      const user = `tags-${viewport.width}`
      const { page, context } = await app.device(user, { viewport })
      if (viewport !== PHONE) await page.getByText('No tags yet: write #word in a note.').waitFor()
      for (const text of NOTES) {
        await write(page, text)
        if (viewport === PHONE) await page.getByRole('button', { name: 'Back' }).click()
      }
      await saved(page)
      const summary = tagList(page).getByText('Tags', { exact: true })
      if (viewport === PHONE) {
        assert.equal(await tag(page, '#home').isVisible(), false, `folded on a phone (${what})`)
        await summary.click()
      }
      await tagList(page).getByRole('button', { name: 'Sub-tags of #work', exact: true }).click()
      await tag(page, '#plans').click()
      await assertAccessibleLightAndDark(page, `the tag list with a tag chosen, ${what}`)
      await page.getByRole('button', { name: 'Rename tag' }).click()
      await assertAccessibleLightAndDark(
        page,
        `the rename form, ${what}`,
        `notes-tags-${viewport.width}`,
      )
      await context.close()
    }
  },
)
