/**
 * The sweep of attached files (docs/tickets-app.md, "Attaching files"): once an hour, and once
 * at start, files no ticket's text names a day after their upload are removed, with the
 * contents no file names any more and uploads that were broken off (src/tickets/store/files.ts).
 * Several processes may sweep at once: each statement is safe to run twice.
 */
import type { Logger } from '../../base/log.ts'
import type { TicketStore } from '../store/ticket-store.ts'

export const SWEEP_EVERY_MS = 60 * 60 * 1000

export interface FileSweep {
  /** Sweeps now, at the clock's time; answers what went. */
  run(): Promise<{ files: number; contents: number }>
  start(): void
  /** Stops the timer and waits for a sweep under way. */
  stop(): Promise<void>
}

export function createFileSweep(deps: {
  store: TicketStore
  clock: () => number
  logger: Logger
  everyMs?: number
}): FileSweep {
  const { store, clock, logger } = deps
  let timer: NodeJS.Timeout | null = null
  let running: Promise<unknown> = Promise.resolve()

  async function run() {
    return store.files.sweep(clock())
  }

  function tick() {
    running = run().then(
      (gone) => {
        if (gone.files + gone.contents > 0)
          logger.line(
            `tickets: file sweep removed ${gone.files} files and ${gone.contents} contents`,
          )
      },
      // A database outage: the next hour tries again.
      (err: unknown) =>
        logger.line(
          `tickets error: file sweep: ${err instanceof Error ? err.message : String(err)}`,
        ),
    )
  }

  return {
    run,
    start() {
      if (timer !== null) return
      tick()
      timer = setInterval(tick, deps.everyMs ?? SWEEP_EVERY_MS)
      timer.unref()
    },
    async stop() {
      if (timer !== null) clearInterval(timer)
      timer = null
      await running
    },
  }
}
