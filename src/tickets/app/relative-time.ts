/**
 * Times as people read them in a list or a history: "just now", "5 minutes ago", "yesterday",
 * "3 days ago", then the date. The page shows the exact time on hover (`exactTime`), and the
 * browser script refreshes the relative words every minute with the same function the server
 * used, so both say the same thing. Dates are UTC and month names English whatever the locale,
 * so the server and every browser write the same words.
 */

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

const two = (n: number) => String(n).padStart(2, '0')
const plural = (n: number, unit: string) => (n === 1 ? `1 ${unit}` : `${n} ${unit}s`)
/** `15 Nov`. */
const dayAndMonth = (d: Date) => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`

/** `then` said relative to `now` (both milliseconds since 1970), in UTC days. */
export function relativeTime(then: number, now: number): string {
  const ago = now - then
  if (ago < -MINUTE) return `in ${future(-ago)}`
  if (ago < MINUTE) return 'just now'
  if (ago < HOUR) return `${plural(Math.floor(ago / MINUTE), 'minute')} ago`
  if (ago < DAY) return `${plural(Math.floor(ago / HOUR), 'hour')} ago`
  const days = Math.floor(ago / DAY)
  if (days === 1) return 'yesterday'
  if (days < 30) return `${days} days ago`
  const date = new Date(then)
  const year = date.getUTCFullYear()
  return year === new Date(now).getUTCFullYear()
    ? `on ${dayAndMonth(date)}`
    : `on ${dayAndMonth(date)} ${year}`
}

function future(ms: number): string {
  if (ms < HOUR) return plural(Math.ceil(ms / MINUTE), 'minute')
  if (ms < DAY) return plural(Math.round(ms / HOUR), 'hour')
  return plural(Math.round(ms / DAY), 'day')
}

/** The exact time for a tooltip: `24 Nov 2026, 09:05 UTC`. */
export function exactTime(ms: number): string {
  const d = new Date(ms)
  return `${dayAndMonth(d)} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`
}

/** The time for a `<time datetime>`: `2026-11-24T09:05:00.000Z`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString()
}
