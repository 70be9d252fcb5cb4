/**
 * An accessibility scan of the page a browser test has open, with axe-core. The script is handed
 * to the page through the DevTools protocol (`page.evaluate`), which the page's
 * Content-Security-Policy does not govern, so the scan sees the page exactly as served.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { screenshot } from './screenshot.ts'

let source: Promise<string> | null = null

interface Violation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[] }[]
}

/** The serious and critical violations axe-core finds on the page as it is now. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  source ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  // Once a document: a second scan of the same page finds axe-core there already.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(await source)
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(context: Document, options: object): Promise<{ violations: Violation[] }>
        }
      }
    ).axe
    // Only the violations are read: axe-core then skips the details of what passed.
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }))
  })
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** Fails the test with a readable list when the page has a serious or critical violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const found = await seriousViolations(page)
  assert.deepEqual(
    found.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`,
    ),
    [],
    `${what} has accessibility violations`,
  )
}

/**
 * `assertAccessible` in both colour schemes: the page is switched to dark and back to light
 * (`prefers-color-scheme`, as the system setting would), so one set-up serves both scans. For a
 * page opened light, as browser contexts are by default; with `shot`, a screenshot of each
 * (test/support/screenshot.ts).
 */
export async function assertAccessibleLightAndDark(
  page: Page,
  what: string,
  shot?: string,
): Promise<void> {
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme })
    await assertAccessible(page, `${what}, ${colorScheme}`)
    if (shot) await screenshot(page, `${shot}-${colorScheme}`)
  }
}
