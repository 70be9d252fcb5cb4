/**
 * Differences between two texts, drawn as text: lines only in the older text are `<del>`, lines
 * only in the newer one `<ins>`, through `diff`'s line diff. Every piece of note text is set
 * with `textContent`, never as HTML.
 *
 * @module
 */
import { diffLines } from 'diff'

/** One run of lines: in both texts, only in the older one, or only in the newer one. */
export interface Part {
  kind: 'same' | 'removed' | 'added'
  text: string
}

/** The line differences from `before` to `after`. */
export function lineParts(before: string, after: string): Part[] {
  return diffLines(before, after).map((p) => ({ kind: p.added ? 'added' : p.removed ? 'removed' : 'same', text: p.value }))
}

/**
 * Both texts in one, for editing a conflict by hand: lines they share once, and where they
 * differ the lines of each, `before`'s first. Nothing of either is lost.
 */
export function combined(before: string, after: string): string {
  const parts = lineParts(before, after)
  return parts.map((p, i) => (p.text.endsWith('\n') || i === parts.length - 1 ? p.text : `${p.text}\n`)).join('')
}

/** Draws into `into` the parts of `parts` of the kinds in `show` (the others are left out). */
export function drawParts(into: HTMLElement, parts: readonly Part[], show: ReadonlySet<Part['kind']>): void {
  into.replaceChildren()
  for (const part of parts) {
    if (!show.has(part.kind)) continue
    const el = document.createElement(part.kind === 'added' ? 'ins' : part.kind === 'removed' ? 'del' : 'span')
    el.textContent = part.text
    into.append(el)
  }
}
