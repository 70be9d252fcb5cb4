/**
 * Upkeep of the embedded database: what a PostgreSQL server's autovacuum does. It vacuums a
 * table once enough of it has changed and analyses it; PGlite runs no autovacuum, so without
 * this its planner would plan every statement from default guesses for as long as it runs
 * (a search for a common word would read every matching ticket of every project through the
 * text index, rather than the project's own index), and the space of deleted and updated rows would never be
 * used again: every ticket write adds a row to `ticket_counts` and deletes some, live events
 * are pruned, sessions expire, and the files would only grow.
 *
 * {@link vacuumHourly} runs `vacuum (analyze)` a minute after the start and then every hour,
 * through the service's own client, so it queues like any other statement (and, PGlite being
 * one session, everything queues behind it). `analyze` samples each table (at most 30,000 rows
 * of it), and a vacuum reads only the pages changed since the last one, so its cost stays
 * bounded as the data grows (docs/operations.md gives its time on a large database).
 *
 * @module
 */
import type { Sql } from './client.ts'
import type { Logger } from '../base/log.ts'

/** When the first `vacuum (analyze)` runs after the start. */
export const FIRST_ANALYZE_MS = 60_000
/** How often it runs after that. */
export const ANALYZE_EVERY_MS = 60 * 60_000

/**
 * Vacuums and analyses the database now and then until stopped; a failure is logged, and tried
 * again next time. The next run is timed from the end of the last, so a slow one is never overlapped
 * by the next (with a short interval, a database of many large tables once had every pooled
 * connection running one and more queued behind them).
 */
export function vacuumHourly(
  sql: Sql,
  logger: Logger,
  timing = { first: FIRST_ANALYZE_MS, every: ANALYZE_EVERY_MS },
): { stop(): Promise<void> } {
  let running: Promise<void> | null = null
  let timer: NodeJS.Timeout | null = null
  let stopped = false
  const arm = (ms: number) => {
    timer = setTimeout(run, ms)
    timer.unref()
  }
  const run = () => {
    timer = null
    running = sql`vacuum (analyze)`
      .then(
        () => {},
        (err: unknown) =>
          logger.line(
            `database: vacuum failed: ${err instanceof Error ? err.message : String(err)}`,
          ),
      )
      .finally(() => {
        running = null
        if (!stopped) arm(timing.every)
      })
  }
  arm(timing.first)
  return {
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = null
      await running
    },
  }
}
