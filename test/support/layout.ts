/**
 * What a person on a narrow screen would find cut: elements reaching past the screen's edges,
 * and elements whose content is clipped or scrolled inside them (a tab strip showing "Do" of
 * "Done"). Form fields are left out (a long value scrolls inside its box by design), and so are
 * elements hidden for screen readers only.
 */
import type { Page } from 'playwright-core'

/** Descriptions (tag, class, text) of the elements that are wider than the screen or cut their words. */
export function cutElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = []
    const width = document.documentElement.clientWidth
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (
        el.closest(
          '.visually-hidden, .skip, [hidden], dialog:not([open]), input, textarea, select, pre, svg',
        )
      )
        continue
      const box = el.getBoundingClientRect()
      if (box.width === 0 || box.height === 0) continue
      const style = getComputedStyle(el)
      if (style.visibility === 'hidden' || style.position === 'fixed') continue
      // (Inline, not a named helper: the test runner's transform would name it with a function the page lacks.)
      const what = `${el.tagName.toLowerCase()}${typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} "${(el.textContent ?? '').trim().slice(0, 40)}"`
      if (box.right > width + 0.5 || box.left < -0.5)
        found.push(
          `${what} reaches past the screen (${Math.round(box.left)}–${Math.round(box.right)} of ${width})`,
        )
      else if (style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1)
        found.push(`${what} cuts its content (${el.scrollWidth} in ${el.clientWidth})`)
    }
    return found
  })
}
