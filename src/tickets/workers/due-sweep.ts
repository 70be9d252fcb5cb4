/**
 * The sweep of due-date reminders (docs/notifications.md, "Due dates"): every minute, and once
 * at start, the reminders due now and not yet sent are claimed and written as notifications
 * (src/tickets/domain/due-reminders.ts); the notify worker's live event wakes the bell, and the
 * mail sender mails those marked for mail as it mails the others. Claims of past days are
 * pruned. Several processes may sweep at once: each reminder is claimed once.
 */
import type { Logger } from '../../base/log.ts'
import { sendDueReminders, utcDay } from '../domain/due-reminders.ts'
import type { TicketStore } from '../store/ticket-store.ts'

export const DUE_SWEEP_EVERY_MS = 60 * 1000

export interface DueSweep {
  /** Sweeps at `now` (the clock's time unless told); answers how many reminders it claimed. */
  run(now?: number): Promise<number>
  start(): void
  /** Stops the timer and waits for a sweep under way. */
  stop(): Promise<void>
}

export function createDueSweep(deps: {
  store: TicketStore
  clock: () => number
  logger: Logger
  /** Whether mail is sent (`SMTP_URL` set): reminders for people who want mail are then `pending`. */
  mail: boolean
  everyMs?: number
}): DueSweep {
  const { store, clock, logger } = deps
  let timer: NodeJS.Timeout | null = null
  let running: Promise<unknown> = Promise.resolve()

  async function run(now = clock()): Promise<number> {
    const sent = await store.transact((tx) => sendDueReminders(tx, now, { mail: deps.mail }))
    await store.dueReminders.prune(utcDay(now))
    return sent
  }

  function tick() {
    running = run().catch(
      // A database outage: the next minute tries again.
      (err: unknown) =>
        logger.line(
          `tickets error: due-date reminders: ${err instanceof Error ? err.message : String(err)}`,
        ),
    )
  }

  return {
    run,
    start() {
      if (timer !== null) return
      tick()
      timer = setInterval(tick, deps.everyMs ?? DUE_SWEEP_EVERY_MS)
      timer.unref()
    },
    async stop() {
      if (timer !== null) clearInterval(timer)
      timer = null
      await running
    },
  }
}
