/**
 * The signed-in person's name is in sight on every page of the tracker, on a desk and on a
 * phone: the login return takes any valid code (docs/core.md, "Signing in from another site"),
 * so a person signed in as someone else by another site must be able to notice.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { PHONE, screenshot, ticketsBrowserApp, WIDE } from './browser-support.ts'

const served = await ticketsBrowserApp()
after(() => served.close())
const { app } = served
// Ana's account at the provider; through the API she makes a project, which is then hers in
// the browser, where she signs in with the provider's form.
const owner = await app.login('Ana Lima', await served.account('Ana Lima'))
const project = await app.project(owner, 'Garden')
const ticket = await app.ticket(owner, project.slug, { subject: 'Water the tomatoes' })
const pages = [
  '/',
  '/inbox',
  '/settings',
  '/tickets?q=water',
  `/${project.slug}`,
  `/${project.slug}/${ticket.number}`,
  `/${project.slug}/settings`,
  '/no-such-project',
]

for (const [size, viewport] of [
  ['1280 px', WIDE],
  ['390 px', PHONE],
] as const) {
  test(`the signed-in name is visible on every page at ${size}`, async () => {
    const { context, page } = await served.signIn('Ana Lima', { viewport })
    try {
      for (const path of pages) {
        await page.goto(`${served.url}${path}`)
        const name = page.locator('header').getByText('Ana Lima', { exact: true })
        assert.equal(await name.isVisible(), true, `${path} at ${size}`)
        await screenshot(
          page,
          `signed-in-name-${size.replace(' ', '')}${path.replace(/[/?=]/g, '_')}`,
        )
      }
      // The page where a connected app is confirmed says who confirms it.
      const query = new URLSearchParams({
        app: 'calendar',
        label: 'Calendar',
        return: 'http://127.0.0.1:9/connected',
        state: 's1',
      })
      await page.goto(`${served.url}/connect?${query}`)
      assert.equal(
        await page.getByText('Ana Lima', { exact: true }).isVisible(),
        true,
        `/connect at ${size}`,
      )
      await screenshot(page, `signed-in-name-${size.replace(' ', '')}_connect`)
    } finally {
      await context.close()
    }
  })
}
