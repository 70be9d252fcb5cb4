/**
 * Sharing a note with another person, in real Chromium, two people side by side: each signs in
 * through the provider's form; Ann shares a note with Bob by name; it appears in Bob's list
 * marked as shared by Ann; an edit on either screen appears on the other while the note is open
 * there; "can read" makes Bob's editor refuse typing and say so; Stop sharing takes the note out
 * of Bob's list. The sharing views pass axe-core at 1280 and 390 px, light and dark.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertAccessibleLightAndDark } from '../support/axe.ts'
import { fullApp, PHONE, WIDE } from '../support/full-app.ts'
import { ready, saved } from './browser-support.ts'

const full = await fullApp({ DEV_SIGNIN: '1' })
after(() => full.close())

const T = { timeout: 180_000 }

/** A person signed in through the provider's form, with the notes app open. */
async function person(
  name: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const { page } = await full.person(options)
  await page.goto(full.notes)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Name').fill(name)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await ready(page)
  return page
}

const editor = (page: Page) => page.getByRole('textbox', { name: 'Note' })

async function write(page: Page, text: string): Promise<void> {
  await page.getByRole('button', { name: 'New note' }).click()
  await editor(page).fill(text)
  await editor(page).blur()
  await saved(page)
}

async function shareWith(page: Page, name: string, access: 'can edit' | 'can read') {
  await page.getByRole('button', { name: 'Share', exact: true }).click()
  await page.getByRole('textbox', { name: 'Name' }).fill(name)
  await page.getByRole('combobox', { name: 'Access', exact: true }).selectOption({ label: access })
  await page.getByRole('button', { name: 'Share', exact: true }).last().click()
  await page.getByRole('list', { name: 'Shared with' }).getByText(name).waitFor()
}

/** The list item of the note titled `title`. */
const item = (page: Page, title: string) =>
  page.getByRole('list', { name: 'Notes' }).getByRole('button', { name: new RegExp(title) })

/** Waits until the editor holds `text` (the other person's save arrived). */
async function shows(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (want) => (document.getElementById('editor') as HTMLTextAreaElement).value === want,
    text,
    { timeout: 30_000 },
  )
}

test(
  'two people write in one shared note side by side: each sees the other edit while it is open, then read only, then it leaves the list',
  T,
  async () => {
    const bob = await person('Bob')
    const ann = await person('Ann')
    await write(ann, 'Picnic\nbread\ncheese\n')
    await shareWith(ann, 'bob', 'can edit')
    await ann.getByRole('button', { name: 'Close' }).click()

    // Bob's list gets it at his next sync, marked with the owner's name.
    await item(bob, 'Picnic').waitFor({ timeout: 30_000 })
    assert.match(await item(bob, 'Picnic').innerText(), /Shared by Ann/)
    await item(bob, 'Picnic').click()
    await shows(bob, 'Picnic\nbread\ncheese\n')

    // Bob adds a line; Ann's open note shows it.
    await editor(bob).press('Control+End')
    await editor(bob).pressSequentially('grapes\n')
    await shows(ann, 'Picnic\nbread\ncheese\ngrapes\n')

    // Ann changes another line; Bob's open note shows it, his line kept.
    await editor(ann).fill('Picnic on Sunday\nbread\ncheese\ngrapes\n')
    await shows(bob, 'Picnic on Sunday\nbread\ncheese\ngrapes\n')

    // The history says who wrote each version.
    await bob.getByRole('button', { name: 'History' }).click()
    await bob.getByText('by Bob', { exact: false }).first().waitFor()
    await bob.getByText('by Ann', { exact: false }).first().waitFor()
    await bob.getByRole('button', { name: 'Close history' }).click()

    // To read only: Bob is told before he types, and his editor takes no typing.
    await ann.getByRole('button', { name: 'Share', exact: true }).click()
    await ann.getByRole('combobox', { name: 'Access for Bob' }).selectOption({ label: 'can read' })
    await ann.getByText('Shared with Bob: they can read it.').waitFor()
    await bob
      .getByText('Ann shared this note with you to read: you cannot change it.')
      .waitFor({ timeout: 30_000 })
    assert.equal(await editor(bob).getAttribute('readonly'), '')

    // Stop sharing: the note leaves Bob's list.
    await ann.getByRole('button', { name: 'Stop sharing with Bob' }).click()
    await ann.getByText('No longer shared with Bob.').waitFor()
    await item(bob, 'Picnic').waitFor({ state: 'detached', timeout: 30_000 })
    await ann.context().close()
    await bob.context().close()
  },
)

test('the sharing views pass axe-core, light and dark, at 1280 and 390 px', T, async () => {
  for (const viewport of [WIDE, PHONE]) {
    const what = `${viewport.width} px`
    const tag = `${viewport.width}`
    const dana = await person(`Dana ${tag}`, { viewport })
    const owner = await person(`Olga ${tag}`, { viewport })
    await write(owner, '# Team plan\n\n- [ ] book the room\n- [ ] send the agenda\n')
    await shareWith(owner, `dana ${tag}`, 'can read')
    await assertAccessibleLightAndDark(
      owner,
      `the Share panel with a person, ${what}`,
      `notes-sharing-${tag}`,
    )
    await item(dana, 'Team plan').waitFor({ timeout: 30_000 })
    await item(dana, 'Team plan').click()
    await dana.getByText(`Olga ${tag} shared this note with you to read`).waitFor()
    await assertAccessibleLightAndDark(
      dana,
      `a note shared to read, ${what}`,
      `notes-shared-${tag}`,
    )
    if (viewport === PHONE) {
      await dana.getByRole('button', { name: 'Back' }).click()
      await assertAccessibleLightAndDark(
        dana,
        `the list with a shared note, ${what}`,
        `notes-shared-list-${tag}`,
      )
    }
    await owner.context().close()
    await dana.context().close()
  }
})
