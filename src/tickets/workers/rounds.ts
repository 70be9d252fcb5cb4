/**
 * The rounds of a background worker (notifications' fan-out, mail, webhook delivery), one rule
 * for all: a round runs at a poke unless one runs, and then once more after it; a round that
 * fails (the database unreachable, the mail relay refusing a connection) is logged, and rounds
 * rest for {@link REST_AFTER_FAILURE_MS}, pokes ignored meanwhile, so a worker does not hold one
 * of the pool's connections in a connection attempt every second while the database is down.
 * Work is not lost by resting: each worker keeps its work in the database (the outboxes) and
 * takes it up at the first round after the rest.
 */

/** How long rounds rest after one failed. */
export const REST_AFTER_FAILURE_MS = 5_000

export interface RoundsDeps {
  /** One round of the worker's work. */
  round: () => Promise<void>
  /** Told of a failed round (the worker logs it). */
  failed: (err: Error) => void
  /** A monotonic clock in milliseconds (`performance.now` unless told). */
  now?: () => number
  /** How long rounds rest after one failed ({@link REST_AFTER_FAILURE_MS} unless told). */
  restMs?: number
}

export interface Rounds {
  /** Asks for a round now (after the running one); nothing while resting or stopped. */
  poke(): void
  /** Resolves once no round runs. */
  settled(): Promise<void>
  /** No round starts from now on; resolves once the running one has ended. */
  stop(): Promise<void>
  /** Whether stop() was called (a long round checks it between its steps). */
  readonly stopped: boolean
  /** Whether a round runs now. */
  readonly running: boolean
}

export function createRounds(deps: RoundsDeps): Rounds {
  const now = deps.now ?? (() => performance.now())
  const restMs = deps.restMs ?? REST_AFTER_FAILURE_MS
  let running: Promise<void> | null = null
  let again = false
  let stopped = false
  let restUntil = -Infinity

  function poke(): void {
    if (stopped || now() < restUntil) return
    if (running) {
      again = true
      return
    }
    running = (async () => {
      do {
        again = false
        try {
          await deps.round()
        } catch (err) {
          deps.failed(err as Error)
          restUntil = now() + restMs
          again = false
        }
      } while (again && !stopped)
    })().finally(() => {
      running = null
    })
  }

  return {
    poke,
    async settled() {
      while (running) await running
    },
    async stop() {
      stopped = true
      await running
    },
    get stopped() {
      return stopped
    },
    get running() {
      return running !== null
    },
  }
}
