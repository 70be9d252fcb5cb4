/**
 * The notes app on a touch screen in real Chromium: no keyboard hints where there is no keyboard
 * (the search's "(/)", "Alt+N"), and both still shown where there is one; at 390 px nothing is
 * wider than the screen and no word is cut.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { cutElements } from '../support/layout.ts'
import { notesBrowserApp, PHONE } from './browser-support.ts'

const app = await notesBrowserApp()
after(() => app.close())

const T = { timeout: 90_000 }
const search = { name: 'Search notes' } as const

test(
  'a touch screen shows no keyboard hints in the notes app; a screen with a mouse does',
  T,
  async () => {
    const phone = await app.device('tess', { viewport: PHONE, touch: true })
    assert.equal(
      await phone.page.getByRole('searchbox', search).getAttribute('placeholder'),
      'Search',
    )
    assert.equal(
      await phone.page.evaluate(
        () =>
          Array.from(document.querySelectorAll('kbd')).filter((k) => k.checkVisibility()).length,
      ),
      0,
    )
    assert.deepEqual(await cutElements(phone.page), [])
    await phone.context.close()
    const laptop = await app.device('tess')
    assert.equal(
      await laptop.page.getByRole('searchbox', search).getAttribute('placeholder'),
      'Search  (/)',
    )
    await laptop.page.getByText('Alt+N').waitFor()
    await laptop.context.close()
  },
)
