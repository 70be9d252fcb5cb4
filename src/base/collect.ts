/**
 * A full garbage collection after a mass answer (and a young one during large transfers): when one event answers thousands of waiting
 * long-polls at once, everything node kept for those requests (promoted to V8's old generation
 * while they waited) turns to garbage at once, and V8's own heuristics let the old generation
 * grow to several times what is live before collecting it. {@link collectAfterMassAnswer}
 * collects once, right after such an answer, so a process holding thousands of waiting polls
 * stays near what they need (docs/live-events.md, "Memory per waiting poll").
 *
 * Collections take at most a tenth of the process's time: the next one may begin ten pauses
 * after the last began, and never sooner than half a second.
 *
 * The collector is node's `gc()`, which `--expose-gc` gives: `npm start` runs node with it (and
 * so does `npm test`). Without it nothing is collected here and V8's heuristics alone decide.
 *
 * @module
 */
/** Polls answered by one read (or one expiry) from which a collection follows. */
export const MASS_ANSWER = 1_000
/** The shortest time from the start of one collection to the start of the next. */
export const MIN_SPACING_MS = 500
/** The next collection waits this many times the last one's pause after it began. */
const PAUSES_APART = 10

const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc ?? null
let runs = 0
let lastStart = -Infinity
let lastPause = 0
let pending: NodeJS.Immediate | NodeJS.Timeout | null = null

/** Called with how many requests were just answered; collects once they are sent, when they are many and `gc()` is there. */
export function collectAfterMassAnswer(count: number): void {
  if (count < MASS_ANSWER) return
  schedule()
}

/**
 * Bytes of large transfers (file uploads and downloads) after which a young-generation
 * collection runs. Their pieces pass through buffers held outside V8's heap and through large
 * strings (the database client's text), all short-lived; V8 collects for outside memory only
 * after tens of megabytes, so a 25 MB file would lift the process's memory by several times its
 * chunk. A young collection (a scavenge) frees them and takes a millisecond or two.
 */
export const TRANSFER_BYTES = 2 * 1024 * 1024
let transferred = 0

/** Called with the bytes a large transfer just moved; runs a young collection after every {@link TRANSFER_BYTES}. */
export function collectAfterTransfer(bytes: number): void {
  transferred += bytes
  if (transferred < TRANSFER_BYTES || gc === null) return
  transferred = 0
  gc({ type: 'minor' })
}

function schedule(): void {
  if (pending !== null || gc === null) return
  // setImmediate: the answers are written in this turn's promise jobs, and their objects are let
  // go once written; spaced, so that a storm of events spends at most a tenth of the time in
  // collections.
  const wait = Math.max(
    0,
    lastStart + Math.max(MIN_SPACING_MS, PAUSES_APART * lastPause) - performance.now(),
  )
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
  lastStart = performance.now()
  gc!()
  lastPause = performance.now() - lastStart
}
