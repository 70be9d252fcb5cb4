/**
 * A line logger that batches writes: lines are copied into a buffer and written together every
 * 50 ms (or at once when the buffer is full), instead of one write per request; a write per line
 * measured a large share of a trivial route's cost. The lines go straight into bytes, so a busy
 * server keeps no queue of strings on its heap for the garbage collector to copy and promote (a
 * queue of joined strings measured 12.8% of a trivial route's profile in collections against
 * bare node's 2.4%). `flush()` writes at once; servers call it when they close.
 */
export interface Logger {
  /** Queues one line (a newline is added). */
  line(text: string): void
  /** Writes whatever is queued, now. */
  flush(): void
}

/**
 * The logger a server writes its request lines to (src/http.ts): {@link RequestLogger.request}
 * queues the same line as `line(requestLine(...))` would.
 */
export interface RequestLogger extends Logger {
  /**
   * Queues one request's line. Its parts are copied into the buffer one by one: joining them
   * into a string first (numbers formatted, the text flattened and encoded) measured three times
   * the cost of the copy, for every request a server answers.
   */
  request(service: string, method: string, path: string, status: number, tenths: number): void
}

/**
 * A request's line: the service, method, path (without its query: a query can carry login
 * codes), status, and the time taken from `tenths` of a millisecond:
 * `notes GET /api/me 200 0.3ms`.
 */
export function requestLine(service: string, method: string, path: string, status: number, tenths: number): string {
  return `${service} ${method} ${path} ${status} ${Math.floor(tenths / 10)}.${tenths % 10}ms`
}

const FLUSH_MS = 50
const BUFFER_BYTES = 64 * 1024
/** A request line's bytes besides its three texts: spaces, status, time, `ms` and newline. */
const REQUEST_EXTRA = 48

/** Where the lines go: stdout by default, or anything with a `write` of bytes. */
export interface LogOutput {
  write(chunk: Uint8Array): unknown
}

/** A logger writing to `out` (stdout by default); `null` makes a silent one. */
export function createLogger(out: LogOutput | null = process.stdout): RequestLogger {
  if (out === null) return { line() {}, request() {}, flush() {} }
  let buffer = Buffer.allocUnsafe(BUFFER_BYTES)
  let used = 0
  let timer: NodeJS.Timeout | null = null
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = null
    if (used === 0) return
    // The stream may keep the bytes until they are written: the next lines go to a new buffer.
    const chunk = buffer.subarray(0, used)
    buffer = Buffer.allocUnsafe(BUFFER_BYTES)
    used = 0
    out.write(chunk)
  }
  // Whatever is queued when the process exits still reaches stdout (synchronous for files and ttys).
  if (out === process.stdout) process.once('exit', flush)

  const line = (text: string) => {
    // A UTF-16 unit takes at most 3 bytes of UTF-8, and the newline one.
    const most = text.length * 3 + 1
    if (used + most > buffer.length) flush()
    if (most > buffer.length) {
      // A line longer than the buffer (a long stack trace) goes out on its own, in order.
      out.write(Buffer.from(text + '\n'))
      return
    }
    used += buffer.write(text, used)
    buffer[used++] = 10
    if (timer === null) timer = setTimeout(flush, FLUSH_MS).unref()
  }

  const request = (service: string, method: string, path: string, status: number, tenths: number) => {
    const most = service.length + method.length + path.length + REQUEST_EXTRA
    const plain = most <= buffer.length && Number.isSafeInteger(status) && status >= 0 && status < 1e9 && Number.isSafeInteger(tenths) && tenths >= 0 && tenths < 1e15
    if (!plain) return line(requestLine(service, method, path, status, tenths))
    if (used + most > buffer.length) flush()
    // node refuses a request line with other bytes, so a server's parts are always ASCII; a
    // part that is not is left to the general path, which writes over what was copied.
    const b = buffer
    let at = copyAscii(b, used, service)
    if (at !== -1) {
      b[at++] = 32
      at = copyAscii(b, at, method)
    }
    if (at !== -1) {
      b[at++] = 32
      at = copyAscii(b, at, path)
    }
    if (at === -1) return line(requestLine(service, method, path, status, tenths))
    b[at++] = 32
    at = copyDigits(b, at, status)
    b[at++] = 32
    at = copyDigits(b, at, Math.floor(tenths / 10))
    b[at++] = 46 // .
    b[at++] = 48 + (tenths % 10)
    b[at++] = 109 // m
    b[at++] = 115 // s
    b[at++] = 10
    used = at
    if (timer === null) timer = setTimeout(flush, FLUSH_MS).unref()
  }

  return { line, request, flush }
}

/** Copies `text` into `b` at `at` as bytes: the position after it, or -1 when it is not all ASCII. */
function copyAscii(b: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c > 0x7f) return -1
    b[at++] = c
  }
  return at
}

/** Copies the decimal digits of `n`, a non-negative safe integer, into `b` at `at`: the position after them. */
function copyDigits(b: Buffer, at: number, n: number): number {
  let count = 1
  for (let power = 10; power <= n; power *= 10) count++
  for (let i = at + count - 1; i >= at; i--) {
    b[i] = 48 + (n % 10)
    n = Math.floor(n / 10)
  }
  return at + count
}
