/**
 * A full garbage collection after a mass answer: when one event answers thousands of waiting
 * long-polls at once, everything node kept for those requests (the request, response and parser
 * objects of each, promoted to V8's old generation while they waited) turns to garbage at once,
 * and V8's own heuristics let the old generation grow to several times what is live before
 * collecting it. {@link answeredMany} collects once, right after such an answer, so a process
 * holding 10,000 waiting polls stays near what they need (docs/live-events.md, "Memory per
 * waiting poll"): with node's default young generation, the highest resident figure of 10,000
 * waiting polls after each event was 187 to 191 MB with a collection after every event, and 217
 * to 238 MB when they were spaced 5 s apart, so that most events of the bench's rounds (one
 * every second or two) went without (docs/performance.md, "A waiting poll without a global V8
 * option").
 *
 * Collections take at most a tenth of the process's time: the next one may begin ten pauses
 * after the last began, and never sooner than half a second (a pause of the 34 MB heap left by
 * 10,000 answered polls measured 55 to 62 ms).
 *
 * The collector is reached through `--expose-gc`, set at run time for a new context only when
 * first needed: it exposes `gc()` and changes nothing else.
 *
 * @module
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** Polls answered by one read (or one expiry) from which a collection follows. */
export const MASS_ANSWER = 1_000
/** The shortest time from the start of one collection to the start of the next. */
export const MIN_SPACING_MS = 500
/** The next collection waits this many times the last one's pause after it began. */
const PAUSES_APART = 10

let gc: (() => void) | null = null
let runs = 0
let lastStart = -Infinity
let lastPause = 0
let pending: NodeJS.Immediate | NodeJS.Timeout | null = null

/** Called with how many requests were just answered; collects once they are sent, when they are many. */
export function answeredMany(count: number): void {
  if (count < MASS_ANSWER || pending !== null) return
  // setImmediate: the answers are written in this turn's promise jobs, and their objects are let
  // go once written; spaced, so that a storm of events spends at most a tenth of the time in
  // collections.
  const wait = Math.max(0, lastStart + Math.max(MIN_SPACING_MS, PAUSES_APART * lastPause) - performance.now())
  pending = wait === 0 ? setImmediate(collect) : setTimeout(collect, wait)
  pending.unref()
}

/** How many collections this module has run (for tests and diagnostics). */
export function collections(): number {
  return runs
}

function collect(): void {
  pending = null
  runs++
  if (gc === null) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as () => void
  }
  lastStart = performance.now()
  gc()
  lastPause = performance.now() - lastStart
}
