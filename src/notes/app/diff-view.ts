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

/**
 * The line differences from `before` to `after`. A last line without a line end is the same
 * line as that line with one: a line appended after it does not change it.
 */
export function lineParts(before: string, after: string): Part[] {
  return diffLines(before, after, { ignoreNewlineAtEof: true }).map((p) => ({
    kind: p.added ? 'added' : p.removed ? 'removed' : 'same',
    text: p.value,
  }))
}

/**
 * The parts of `parts` of the kinds in `show`, each on lines of its own: a part that ends
 * without a line end (a last line) and has another after it gets one, so a removed last line
 * and the line that replaced it never run together ("butterbread").
 */
export function shownParts(parts: readonly Part[], show: ReadonlySet<Part['kind']>): Part[] {
  const kept = parts.filter((p) => show.has(p.kind))
  return kept.map((p, i) =>
    i < kept.length - 1 && !p.text.endsWith('\n') ? { ...p, text: `${p.text}\n` } : p,
  )
}

/**
 * Both texts in one, for editing a conflict by hand: lines they share once, and where they
 * differ the lines of each, `before`'s first. Nothing of either is lost.
 */
export function combined(before: string, after: string): string {
  const parts = lineParts(before, after)
  return parts
    .map((p, i) => (p.text.endsWith('\n') || i === parts.length - 1 ? p.text : `${p.text}\n`))
    .join('')
}

/** Draws into `into` the parts of `parts` of the kinds in `show` (the others are left out). */
export function drawParts(
  into: HTMLElement,
  parts: readonly Part[],
  show: ReadonlySet<Part['kind']>,
): void {
  into.replaceChildren()
  for (const part of shownParts(parts, show)) {
    const el = document.createElement(
      part.kind === 'added' ? 'ins' : part.kind === 'removed' ? 'del' : 'span',
    )
    el.textContent = part.text
    into.append(el)
  }
}
