/**
 * Small text helpers of the app: a note's title and preview, the status line's words, and
 * where the caret goes when a note's text changes under it.
 *
 * @module
 */

/** The first line that has something on it, or "Untitled". */
export function titleOf(text: string): string {
  for (const line of text.split('\n', 20)) {
    const t = line.trim()
    if (t !== '') return t.length > 120 ? `${t.slice(0, 120)}…` : t
  }
  return 'Untitled'
}

/** The words after the title, on one line, for the list. */
export function previewOf(text: string): string {
  const start = text.search(/\S/)
  if (start === -1) return ''
  const nl = text.indexOf('\n', start)
  if (nl === -1) return ''
  return text
    .slice(nl + 1, nl + 400)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 140)
}

/** Where the copy stands, in the words of the status line. */
export function statusText(state: {
  online: boolean
  waiting: number
  problem: string | null
}): string {
  const parts: string[] = []
  if (!state.online) parts.push('Offline')
  if (state.problem !== null) parts.push(state.problem)
  if (state.waiting > 0) parts.push(`Waiting to sync (${state.waiting})`)
  else if (state.online && state.problem === null) parts.push('Saved')
  else if (!state.online) parts.push('every change is on this device')
  return parts.join(' · ')
}

/**
 * The caret's new place when `before` becomes `after` under it: text changed after the caret
 * leaves it where it is; a change before it moves it by the change in length.
 */
export function movedCaret(before: string, after: string, caret: number): number {
  let head = 0
  const max = Math.min(before.length, after.length)
  while (head < max && before.charCodeAt(head) === after.charCodeAt(head)) head++
  if (caret <= head) return caret
  let tail = 0
  while (
    tail < max - head &&
    before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)
  )
    tail++
  if (caret >= before.length - tail) return Math.max(head, caret + after.length - before.length)
  return Math.min(after.length - tail, Math.max(head, caret))
}

// Made once: an Intl formatter costs far more to build than to use, and the list formats a
// time for every note it draws.
const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })
const DAY = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' })
const DATE = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' })

/** A time for the list: the hour today, the day this year, else the date. */
export function shortTime(ms: number, now: number): string {
  const d = new Date(ms)
  const today = new Date(now)
  if (
    d.getFullYear() === today.getFullYear() &&
    d.getMonth() === today.getMonth() &&
    d.getDate() === today.getDate()
  )
    return TIME.format(d)
  if (d.getFullYear() === today.getFullYear()) return DAY.format(d)
  return DATE.format(d)
}

/** A new note's id, made on the device: time and randomness, so two devices never pick the same. */
export function newNoteId(now: number, random: () => string = () => crypto.randomUUID()): string {
  return `n${now.toString(36)}-${random().replace(/-/g, '').slice(0, 12)}`
}
