/**
 * Turns the events outbox into notifications (docs/notifications.md, "How it works"), after the
 * writes that caused them have committed: a round fans out the events committed since the last
 * one, in transactions of up to {@link FAN_OUT_BATCH} events (src/tickets/domain/notifications.ts).
 * Rounds run after this process's writes (`wake`) and every `intervalMs` (other processes'
 * writes); when several processes run, the one holding `notify_state` fans out and the others
 * skip, so each event is fanned out once. Read notifications older than 90 days are swept
 * every {@link SWEEP_EVERY_MS}.
 */
import type { Logger } from '../../base/log.ts'
import type { Wake } from '../live/events.ts'
import type { TicketStore } from '../store/ticket-store.ts'
import { fanOutNotifications } from '../domain/notifications.ts'
import { createRounds } from './rounds.ts'

/** Events fanned out per transaction. */
export const FAN_OUT_BATCH = 500
/** How often read notifications past their 90 days are deleted. */
export const SWEEP_EVERY_MS = 60 * 60 * 1000

export interface NotifyWorkerDeps {
  store: TicketStore
  logger: Logger
  /** Milliseconds since the epoch: when the sweep is due, and what is old. */
  clock: () => number
  /** Pinged after this process's writes. */
  wake?: Wake
  /** Whether mail is sent (`SMTP_URL` set): rows for people who want mail are then `pending`. */
  mail: boolean
  /** How often a round runs without a wake-up (1 s unless told). */
  intervalMs?: number
  /**
   * How long a wake-up waits before its round ({@link GATHER_MS} unless told): the events of
   * that time are fanned out together, so a burst of writes costs one round, and each person
   * one live event, not one per write.
   */
  gatherMs?: number
}

/** How long a wake-up waits for more events before the fan-out. */
export const GATHER_MS = 300

export interface NotifyWorker {
  start(): void
  /** Asks for a round now (after the running one). */
  poke(): void
  /** Resolves once no round runs (tests). */
  settled(): Promise<void>
  /** Runs the sweep now; answers how many notifications went (tests). */
  sweep(): Promise<number>
  close(): Promise<void>
}

export function createNotifyWorker(deps: NotifyWorkerDeps): NotifyWorker {
  const { store, clock, logger } = deps
  let timer: NodeJS.Timeout | null = null
  let lastSweep: number | null = null
  const stop = new AbortController()

  async function round(): Promise<void> {
    for (;;) {
      const read = await store.transact((tx) =>
        fanOutNotifications(tx, FAN_OUT_BATCH, { mail: deps.mail }),
      )
      if (read === null || read < FAN_OUT_BATCH || rounds.stopped) break
    }
    const now = clock()
    if (lastSweep === null || now - lastSweep >= SWEEP_EVERY_MS) {
      lastSweep = now
      await store.notifications.prune()
    }
  }

  // After a failed round, rounds rest (src/tickets/workers/rounds.ts).
  const rounds = createRounds({
    round,
    failed: (err) => logger.line(`notifications: a fan-out round failed: ${err.message}`),
  })
  const poke = rounds.poke

  let gathering: NodeJS.Timeout | null = null
  async function followWake(): Promise<void> {
    const gatherMs = deps.gatherMs ?? GATHER_MS
    while (!rounds.stopped && deps.wake) {
      await deps.wake.next(stop.signal)
      if (gathering === null && !rounds.stopped)
        gathering = setTimeout(() => {
          gathering = null
          poke()
        }, gatherMs)
    }
  }

  return {
    start() {
      if (timer || rounds.stopped) return
      timer = setInterval(poke, deps.intervalMs ?? 1000)
      timer.unref()
      void followWake()
      poke()
    },
    poke,
    settled: rounds.settled,
    sweep: () => store.notifications.prune(),
    async close() {
      stop.abort()
      if (timer) clearInterval(timer)
      if (gathering) clearTimeout(gathering)
      await rounds.stop()
    },
  }
}
