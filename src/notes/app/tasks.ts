/**
 * Ticking a task box of the reading view as an ordinary edit of the text: apart from
 * markdown.ts, so the editor has it at once while the Markdown renderer loads on the first Read.
 *
 * @module
 */

/** `[ ]` or `[x]` after a list item's marker, on the item's first line. */
const TASK_LINE = /^(\s*(?:>\s*)*(?:[-*+]|\d{1,9}[.)])\s+\[)([ xX])(\])/

/**
 * `text` with the task box of line `line` (counted from 0) ticked (`done`) or not; null when
 * that line holds no task box any more (the text changed meanwhile).
 */
export function toggleTask(text: string, line: number, done: boolean): string | null {
  let start = 0
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf('\n', start)
    if (nl === -1) return null
    start = nl + 1
  }
  const end = text.indexOf('\n', start)
  const current = text.slice(start, end === -1 ? text.length : end)
  const m = TASK_LINE.exec(current)
  if (!m) return null
  const at = start + m[1]!.length
  return `${text.slice(0, at)}${done ? 'x' : ' '}${text.slice(at + 1)}`
}
