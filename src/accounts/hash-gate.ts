/**
 * The ceiling on password hashes running at once (docs/core.md, "Sign-in attempts"). A scrypt
 * hash takes 32 MiB and a core for a good part of a second, so a flood of forms that hash would
 * otherwise make a real sign-in wait for all of them. At most `concurrency` hashes run; the rest
 * wait in line, at most `perClient` of one address (running or waiting) and at most `waitMs`,
 * else the form is answered "busy" (503 with `Retry-After`). One address's flood thus holds one
 * place of the two, and a person from another address gets the other at once.
 */

export interface HashGate {
  /** Runs `work` (a hash) when a place is free: its answer, or 'busy' when none could be had. */
  run<T>(client: string, work: () => Promise<T>): Promise<T | 'busy'>
  /** What ran: the most hashes that ran at once, how many ran, how many waited in line for a place (for tests and the docs' figures). */
  readonly stats: { peak: number; ran: number; waited: number }
}

export const HASH_CONCURRENCY = 2
export const HASHES_PER_CLIENT = 1
export const HASH_WAIT_MS = 5_000

export function createHashGate(
  options: { concurrency?: number; perClient?: number; waitMs?: number } = {},
): HashGate {
  const concurrency = options.concurrency ?? HASH_CONCURRENCY
  const perClient = options.perClient ?? HASHES_PER_CLIENT
  const waitMs = options.waitMs ?? HASH_WAIT_MS
  const byClient = new Map<string, number>()
  const line: { start: () => void; timer: NodeJS.Timeout }[] = []
  const stats = { peak: 0, ran: 0, waited: 0 }
  let running = 0

  function release(client: string): void {
    const left = (byClient.get(client) ?? 1) - 1
    if (left === 0) byClient.delete(client)
    else byClient.set(client, left)
  }

  function next(): void {
    while (running < concurrency && line.length > 0) {
      const waiting = line.shift()!
      clearTimeout(waiting.timer)
      waiting.start()
    }
  }

  return {
    stats,
    async run(client, work) {
      const mine = byClient.get(client) ?? 0
      if (mine >= perClient) return 'busy'
      byClient.set(client, mine + 1)
      if (running < concurrency) running++
      else {
        stats.waited++
        // A place is handed over already counted (`running` goes up in `start`), so that no
        // other request takes it meanwhile.
        const started = await new Promise<boolean>((resolve) => {
          const waiting = {
            start: () => {
              running++
              resolve(true)
            },
            timer: setTimeout(() => {
              line.splice(line.indexOf(waiting), 1)
              resolve(false)
            }, waitMs),
          }
          line.push(waiting)
        })
        if (!started) {
          release(client)
          return 'busy'
        }
      }
      stats.peak = Math.max(stats.peak, running)
      stats.ran++
      try {
        return await work()
      } finally {
        running--
        release(client)
        next()
      }
    },
  }
}
