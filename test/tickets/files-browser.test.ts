/**
 * Attaching files in Chromium (issue 39), the way a person does: an image pasted into a comment
 * (a real ClipboardEvent carrying a DataTransfer) shows its progress, then the image inline; a log
 * file dragged into the new-ticket form (real drag events) becomes a link; Attach files shows the
 * limit, and a file over it says so without touching the text. Each page passes an axe-core scan.
 * `SCREENSHOTS=<folder>` writes `tickets-files-<1280|390>-<light|dark>.png`.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Page, Route } from 'playwright-core'
import { assertAccessible } from '../support/axe.ts'
import { PHONE, pictures, ticketsBrowserApp, WIDE } from './browser-support.ts'

const b = await ticketsBrowserApp({ env: { UPLOAD_MAX_MB: '1' } })
after(() => b.close())
const { app, url } = b

const aliceApi = await app.login('alice', 'idp-alice')
await app.project(aliceApi, 'Shots', { slug: 'shots' })

async function alicePage(): Promise<Page> {
  const { page } = await b.person('alice', { idpId: 'idp-alice' })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  after(() => assert.deepEqual(errors, []))
  return page
}

/** Holds the uploads' requests until `release()`, so the page can be seen mid-upload. */
async function holdUploads(page: Page): Promise<{ held: Promise<void>; release(): void }> {
  let release!: () => void
  let seen!: () => void
  const held = new Promise<void>((resolve) => (seen = resolve))
  const gate = new Promise<void>((resolve) => (release = resolve))
  await page.route(/\/api\/projects\/[^/]+\/files\?/, async (route: Route) => {
    seen()
    await gate
    await route.continue().catch(() => {})
  })
  return { held, release }
}

test(
  'an image pasted into a comment shows its progress, then is shown inline once the comment is sent',
  { timeout: 90_000 },
  async () => {
    const ticket = await app.ticket(aliceApi, 'shots', { subject: 'The header overlaps the menu' })
    const page = await alicePage()
    await page.goto(`${url}/shots/${ticket.number}`)
    const hold = await holdUploads(page)
    const comment = page.getByLabel('Comment', { exact: true })
    await comment.fill('It looks like this:')
    // A real paste: a ClipboardEvent whose DataTransfer carries a PNG drawn on a canvas.
    await comment.evaluate(async (box) => {
      const canvas = document.createElement('canvas')
      canvas.width = 640
      canvas.height = 320
      const g = canvas.getContext('2d')!
      g.fillStyle = '#2860c4'
      g.fillRect(0, 0, 640, 320)
      g.fillStyle = '#ffffff'
      g.fillRect(40, 40, 560, 60)
      const blob = await new Promise<Blob>((resolve) =>
        canvas.toBlob((b) => resolve(b!), 'image/png'),
      )
      const data = new DataTransfer()
      data.items.add(new File([blob], 'image.png', { type: 'image/png' }))
      box.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
      )
    })
    await hold.held
    const progress = page.getByRole('progressbar', { name: /^Uploading pasted .*\.png$/ })
    await progress.waitFor()
    await page.getByRole('button', { name: /^Cancel uploading pasted/ }).waitFor()
    await assertAccessible(page, 'the ticket page with an upload under way')
    await pictures(page, 'files-uploading')
    hold.release()
    await progress.waitFor({ state: 'detached' })
    const text = await comment.inputValue()
    assert.match(
      text,
      /^It looks like this:\n!\[pasted [^\]]+\.png\]\(\/files\/[A-Za-z0-9_-]{22}\/pasted%20[^)]+\.png\)\n$/,
    )
    await page.getByRole('button', { name: 'Comment', exact: true }).click()

    const image = page
      .getByRole('list', { name: 'History' })
      .getByRole('img', { name: /^pasted .*\.png$/ })
    await image.waitFor()
    // Loaded from this tracker (the page's policy allows its own images), scaled to the column.
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.history img')
      return img !== null && img.complete && img.naturalWidth === 640
    })
    const link = page
      .getByRole('list', { name: 'History' })
      .getByRole('link', { name: /^pasted .*\.png$/ })
    assert.match((await link.getAttribute('href'))!, /^\/files\/[A-Za-z0-9_-]{22}\//)
    const files = page.locator('[data-live="files-box"]')
    await files.getByRole('link', { name: /^pasted .*\.png$/ }).waitFor()
    assert.match(await files.innerText(), /alice/)
    await assertAccessible(page, 'the ticket page with an image')
    await pictures(page, 'files')
    await page.setViewportSize(PHONE)
    assert.ok(
      await page.evaluate(
        () =>
          document.querySelector('.history img')!.getBoundingClientRect().width <=
          window.innerWidth,
      ),
      'the image fits a phone',
    )
    await page.setViewportSize(WIDE)
    // Clicked, it opens full size: the file itself, an image.
    const full = await page.request.get(new URL((await link.getAttribute('href'))!, url).toString())
    assert.equal(full.headers()['content-type'], 'image/png')
  },
)

test(
  'a log file dragged into the new-ticket form becomes a link, and the ticket lists it',
  { timeout: 90_000 },
  async () => {
    const page = await alicePage()
    await page.goto(`${url}/shots`)
    await page.locator('summary', { hasText: 'New ticket' }).click()
    await page.getByLabel('Subject').fill('Crash on start')
    const summary = page.getByLabel('Summary', { exact: true })
    await summary.fill('It crashed. Log:')
    const data = await page.evaluateHandle(() => {
      const d = new DataTransfer()
      d.items.add(
        new File(['2026-12-06 panic: nil map\n  at main.go:12\n'], 'crash.log', {
          type: 'text/plain',
        }),
      )
      return d
    })
    for (const type of ['dragenter', 'dragover', 'drop'])
      await summary.dispatchEvent(type, { dataTransfer: data })
    await page.waitForFunction(() =>
      (document.getElementById('ticket-summary') as HTMLTextAreaElement).value.includes('/files/'),
    )
    assert.match(
      await summary.inputValue(),
      /^It crashed\. Log: \[crash\.log \(\d+ B\)\]\(\/files\/[A-Za-z0-9_-]{22}\/crash\.log\)$/,
    )
    await page.getByRole('button', { name: 'New ticket', exact: true }).click()
    await page.waitForURL(/\/shots\/\d+$/)
    await page
      .locator('.summary')
      .getByRole('link', { name: /^crash\.log \(\d+ B\)$/ })
      .waitFor()
    await page.locator('[data-live="files-box"]').getByRole('link', { name: 'crash.log' }).waitFor()
    await assertAccessible(page, 'a ticket with a log file')
  },
)

test(
  'Attach files shows the limit; a file over it says so and leaves the text alone, and Cancel stops an upload',
  { timeout: 90_000 },
  async () => {
    const ticket = await app.ticket(aliceApi, 'shots', { subject: 'Big attachments' })
    const page = await alicePage()
    await page.goto(`${url}/shots/${ticket.number}`)
    const comment = page.getByLabel('Comment', { exact: true })
    await comment.fill('Untouched')
    const attach = page.getByRole('button', { name: 'Attach files' }).last()
    await page.getByText('up to 1 MB a file').last().waitFor()

    const chooser = page.waitForEvent('filechooser')
    await attach.click()
    await (
      await chooser
    ).setFiles({
      name: 'dump.zip',
      mimeType: 'application/zip',
      buffer: Buffer.alloc(2 * 1024 * 1024, 1),
    })
    await page
      .getByRole('alert')
      .filter({ hasText: 'dump.zip is 2 MB: a file may be at most 1 MB.' })
      .waitFor()
    assert.equal(await comment.inputValue(), 'Untouched')
    await assertAccessible(page, 'a file over the limit')
    await page.getByRole('button', { name: 'Dismiss' }).click()

    const hold = await holdUploads(page)
    const again = page.waitForEvent('filechooser')
    await attach.click()
    await (
      await again
    ).setFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('some notes') })
    await hold.held
    await page.getByRole('button', { name: 'Cancel uploading notes.txt' }).click()
    await page
      .getByRole('progressbar', { name: 'Uploading notes.txt' })
      .waitFor({ state: 'detached' })
    hold.release()
    assert.equal(await comment.inputValue(), 'Untouched')
  },
)
