/**
 * A line logger that batches writes: lines are queued as text and written together every 50 ms,
 * or at once when 64 KB are queued, instead of one write per request. `flush()` writes at once;
 * servers call it when they close, and stdout's logger when the process exits.
 */
export interface Logger {
  /** Queues one line (a newline is added). */
  line(text: string): void
  /** Writes whatever is queued, now. */
  flush(): void
}

/**
 * A request's line: the service, method, path (without its query: a query can carry login
 * codes), status, and the time taken in milliseconds to a tenth:
 * `notes GET /api/me 200 0.3ms`.
 */
export function requestLine(
  service: string,
  method: string,
  path: string,
  status: number,
  ms: number,
): string {
  return `${service} ${method} ${path} ${status} ${ms.toFixed(1)}ms`
}

const FLUSH_MS = 50
const FLUSH_CHARS = 64 * 1024

/** Where the lines go: stdout by default, or anything with a `write` of text. */
export interface LogOutput {
  write(chunk: string): unknown
}

/** A logger writing to `out` (stdout by default); `null` makes a silent one. */
export function createLogger(out: LogOutput | null = process.stdout): Logger {
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
  const line = (text: string) => {
    queued += text + '\n'
    if (queued.length >= FLUSH_CHARS) flush()
    else if (timer === null) timer = setTimeout(flush, FLUSH_MS).unref()
  }
  return { line, flush }
}
