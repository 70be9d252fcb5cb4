/**
 * A line logger that batches writes: lines are queued and written together every 50 ms (or at
 * once past 64 KiB), instead of one write per request; a write per line measured a large share
 * of a trivial route's cost. `flush()` writes at once; servers call it when they close.
 */
export interface Logger {
  /** Queues one line (a newline is added). */
  line(text: string): void
  /** Writes whatever is queued, now. */
  flush(): void
}

const FLUSH_MS = 50
const FLUSH_BYTES = 64 * 1024

/** A logger writing to `out` (stdout by default); `null` makes a silent one. */
export function createLogger(out: { write(chunk: string): unknown } | null = process.stdout): Logger {
  if (out === null) return { line() {}, flush() {} }
  let queued = ''
  let timer: NodeJS.Timeout | null = null
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = null
    if (queued === '') return
    const chunk = queued
    queued = ''
    out.write(chunk)
  }
  // Whatever is queued when the process exits still reaches stdout (synchronous for files and ttys).
  if (out === process.stdout) process.once('exit', flush)
  return {
    line(text) {
      queued += text + '\n'
      if (queued.length > FLUSH_BYTES) flush()
      else if (timer === null) timer = setTimeout(flush, FLUSH_MS).unref()
    },
    flush,
  }
}
