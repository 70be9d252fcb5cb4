/**
 * A full garbage collection after a mass answer: when one event answers thousands of waiting
 * long-polls at once, everything node kept for those requests (the request, response and parser
 * objects of each, promoted to V8's old generation while they waited) turns to garbage at once,
 * and V8's own heuristics let the old generation grow to several times what is live before
 * collecting it. {@link answeredMany} collects once, right after such an answer, so a process
 * holding 10,000 waiting polls stays near what they need (docs/live-events.md, "Memory per
 * waiting poll"). With the start script's options, the highest resident figure of 10,000
 * waiting polls after each event was 179 to 196 MB with it and 198 to 203 MB without it, three
 * runs each (docs/performance.md, "A waiting poll without a global V8 option").
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
/** At most one collection this often: one of a 90 MB heap paused the process 0.1 to 0.8 s on a loaded machine. */
const SPACING_MS = 5_000

let gc: (() => void) | null = null
let runs = 0
let last = -Infinity
let pending: NodeJS.Immediate | NodeJS.Timeout | null = null

/** Called with how many requests were just answered; collects once they are sent, when they are many. */
export function answeredMany(count: number): void {
  if (count < MASS_ANSWER || pending !== null) return
  // setImmediate: the answers are written in this turn's promise jobs, and their objects are let
  // go once written; spaced, so that a storm of events costs one collection every few seconds.
  const wait = Math.max(0, last + SPACING_MS - performance.now())
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
  last = performance.now()
  if (gc === null) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as () => void
  }
  gc()
}
