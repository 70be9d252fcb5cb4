/**
 * Line differences between two versions of a ticket's text, shared by the page (an edit's
 * changes in the history) and the browser script (the editable merge of a conflicting edit).
 * Through `diff`'s line diff; a last line without a newline counts as the same line as that line
 * with one, so appending a line never marks the line before it as changed.
 */
import { diffLines } from 'diff'

/** One run of lines: in both texts, only in the older one, or only in the newer one. */
export interface LinePart {
  kind: 'same' | 'removed' | 'added'
  text: string
}

const withNewline = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`)

/** The line differences from `before` to `after`; every part ends in a newline. */
export function lineParts(before: string, after: string): LinePart[] {
  return diffLines(withNewline(before), withNewline(after)).map((p) => ({
    kind: p.added ? 'added' : p.removed ? 'removed' : 'same',
    text: p.value,
  }))
}

/**
 * Both texts in one, for merging by hand: the lines they share once and, where they differ, the
 * lines of `first` and then those of `second`. Nothing of either is lost.
 */
export function combined(first: string, second: string): string {
  if (first === second) return first
  const text = lineParts(first, second)
    .map((p) => p.text)
    .join('')
  return first.endsWith('\n') || second.endsWith('\n') ? text : text.replace(/\n$/, '')
}
