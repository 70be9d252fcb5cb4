/**
 * The project's node:http plumbing, and the only module that touches `node:http`.
 *
 * Handlers take a small {@link Request} record and return a {@link Response} record, so tests
 * call them without a socket ({@link makeRequest}). {@link serve} puts a route table on a port:
 * it reads bodies under a cap, answers `GET /healthz`, logs one line per request, turns an
 * unexpected exception into a logged 500 with a generic body, guards against slow clients and
 * shuts down gracefully.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRouter, type Params, type Route } from './router.ts'
import { parseCookies } from './cookie.ts'
import type { Logger } from './log.ts'

/** The largest request body read: 2 MiB (decisions.md section 5). */
export const BODY_LIMIT = 2 * 1024 * 1024

/** What a handler sees of a request. */
export interface Request {
  method: string
  /** The raw pathname, without the query. */
  path: string
  query: URLSearchParams
  /** Lower-case header names, as node gives them. */
  headers: IncomingHttpHeaders
  /** Route parameters (null prototype). */
  params: Params
  /** Cookies of the request (null prototype); parsed on first use. */
  readonly cookies: Record<string, string>
  /** The body, read up to {@link BODY_LIMIT} on first call; rejects with a 413 {@link HttpError} past it. */
  body(): Promise<Uint8Array>
  /**
   * Calls `listener` once when the client goes away or the server shuts down before the answer
   * is sent (at once when that has happened already); answers a function that cancels it.
   * Long-polls stop waiting on it.
   */
  onClose(listener: () => void): () => void
}

export type Headers = Record<string, string | string[]>

/** What a handler answers. */
export interface Response {
  status: number
  headers?: Headers
  body?: string | Uint8Array
}

export type Handler = (req: Request) => Response | Promise<Response>

/**
 * A response carried by an exception, for the one case where a value cannot travel back
 * easily: the body reader, deep inside a handler. {@link serve} answers it as it is.
 */
export class HttpError extends Error {
  readonly response: Response
  constructor(response: Response) {
    super(`http ${response.status}`)
    this.response = response
  }
}

const JSON_TYPE = 'application/json; charset=utf-8'

/** A JSON answer. */
export function json(status: number, value: unknown, headers?: Headers): Response {
  const body = JSON.stringify(value)
  const length = String(Buffer.byteLength(body))
  return { status, headers: headers ? { 'content-type': JSON_TYPE, 'content-length': length, ...headers } : { 'content-type': JSON_TYPE, 'content-length': length }, body }
}

/** A plain-text answer. */
export function text(status: number, body: string, headers?: Headers): Response {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body }
}

/** An HTML answer. */
export function html(status: number, body: string, headers?: Headers): Response {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers }, body }
}

/** A small HTML document: `title` (escaped) as its title and heading, then `body` (already HTML). */
export function htmlDocument(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`
}

/** A redirect with a short plain-text body. */
export function redirect(status: 301 | 302 | 303, location: string, body = `redirecting to ${location}`, headers?: Headers): Response {
  return text(status, body, { location, ...headers })
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string)
}
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** A JSON error answer `{ error }`, the shape both interfaces use. */
export function jsonError(status: number, error: string, headers?: Headers): Response {
  return json(status, { error }, headers)
}

const BODY_TOO_LARGE = (): Response => jsonError(413, 'body too large', { connection: 'close' })

/** Builds a request record without a socket, for tests and in-process calls. */
export function makeRequest(init: {
  method?: string
  url?: string
  headers?: IncomingHttpHeaders
  body?: string | Uint8Array
  params?: Params
  /** Aborting it closes the request, as a client going away does ({@link Request.onClose}). */
  signal?: AbortSignal
}): Request {
  const url = init.url ?? '/'
  const q = url.indexOf('?')
  const body = typeof init.body === 'string' ? new TextEncoder().encode(init.body) : (init.body ?? new Uint8Array(0))
  return new RequestRecord(
    init.method ?? 'GET',
    q === -1 ? url : url.slice(0, q),
    q === -1 ? '' : url.slice(q + 1),
    init.params ?? Object.create(null),
    { headers: init.headers ?? {}, bytes: body, signal: init.signal ?? null },
  )
}

/** Where a request's body and close come from: a live socket, or given bytes and a signal. */
type Source =
  | { raw: IncomingMessage; res: ServerResponse; waiting: Waiting }
  | { headers: IncomingHttpHeaders; bytes: Uint8Array; signal: AbortSignal | null }

// A class rather than an object of closures: the request record is made for every request,
// and lazy fields on a prototype cost nothing until a handler reads them.
class RequestRecord implements Request {
  #cookies: Record<string, string> | undefined
  #query: URLSearchParams | undefined
  #body: Promise<Uint8Array> | undefined
  constructor(
    readonly method: string,
    readonly path: string,
    private readonly search: string,
    readonly params: Params,
    private readonly source: Source,
  ) {}

  // Node builds a request's header object on first use: a route that reads no header never pays.
  get headers(): IncomingHttpHeaders {
    const source = this.source
    return 'raw' in source ? source.raw.headers : source.headers
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.search))
  }

  get cookies(): Record<string, string> {
    return (this.#cookies ??= parseCookies(this.headers.cookie))
  }

  body(): Promise<Uint8Array> {
    if (this.#body) return this.#body
    const source = this.source
    if ('raw' in source) return (this.#body = readBody(source.raw))
    return (this.#body = source.bytes.length > BODY_LIMIT ? Promise.reject(new HttpError(BODY_TOO_LARGE())) : Promise.resolve(source.bytes))
  }

  onClose(listener: () => void): () => void {
    const source = this.source
    if ('raw' in source) return source.waiting.add(source.res, listener)
    const signal = source.signal
    if (signal === null) return noop
    if (signal.aborted) {
      listener()
      return noop
    }
    signal.addEventListener('abort', listener, { once: true })
    return () => signal.removeEventListener('abort', listener)
  }
}

function noop(): void {}

/** A route of a service: the router's route with our handler type. */
export type HttpRoute = Route<Handler>

export interface ServeOptions {
  /** Shown in log lines, e.g. `notes`. */
  name: string
  routes: readonly HttpRoute[]
  host: string
  port: number
  logger: Logger
  /** Answers whether the service is ready and its database answers, for `GET /healthz`. */
  ready?: () => Promise<boolean>
  /** How long in-flight requests may take to finish at shutdown. */
  drainMs?: number
  /** Answers a request that matches no route; JSON 404 by default. */
  notFound?: Handler
  /** Slow clients: the time to send the headers (10 s) and the whole request (30 s). */
  headersTimeoutMs?: number
  requestTimeoutMs?: number
}

export interface Served {
  url: string
  port: number
  /** Stops accepting, aborts waiting long-polls, lets in-flight requests finish, then closes. */
  close(): Promise<void>
}

/** Serves a route table on a port; resolves once it listens. */
export async function serve(options: ServeOptions): Promise<Served> {
  const router = createRouter(options.routes)
  const { logger, name } = options
  const ready = options.ready ?? (async () => true)
  const notFound: Handler = options.notFound ?? (() => jsonError(404, 'not found'))
  const shutdown = new AbortController()
  const waiting = createWaiting(shutdown.signal)
  let inFlight = 0
  let drained: (() => void) | null = null

  const headersTimeout = options.headersTimeoutMs ?? 10_000
  const requestTimeout = options.requestTimeoutMs ?? 30_000
  const server = createServer({ connectionsCheckingInterval: Math.min(1000, headersTimeout / 2) }, (req, res) => {
    inFlight++
    const started = performance.now()
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const path = q === -1 ? url : url.slice(0, q)
    let out: Response | Promise<Response>
    try {
      out = answer(req, res, url, q, path)
    } catch (err) {
      out = recover(err)
    }
    // A handler that answers at once is sent at once: no promise hop on the hot path.
    if (isPromise(out)) {
      out.then(
        (response) => finish(req, res, path, response, started),
        (err: unknown) => finish(req, res, path, recover(err), started),
      )
    } else finish(req, res, path, out, started)
  })

  function answer(req: IncomingMessage, res: ServerResponse, url: string, q: number, path: string): Response | Promise<Response> {
    const method = req.method ?? 'GET'
    if (path === '/healthz' && (method === 'GET' || method === 'HEAD')) return health()
    const match = router.match(method, path)
    if (match === null) return notFound(makeRequest({ method, url, headers: req.headers }))
    if (!match.found) return jsonError(405, match.text, { allow: match.allowed.join(', ') })
    const request = new RequestRecord(method, path, q === -1 ? '' : url.slice(q + 1), match.params, { raw: req, res, waiting })
    return match.route.handler(request)
  }

  async function health(): Promise<Response> {
    const ok = !shutdown.signal.aborted && (await ready().catch(() => false))
    return json(ok ? 200 : 503, { ok })
  }

  /** The one place an exception becomes an answer: a 413 and the like as they are, else a logged 500. */
  function recover(err: unknown): Response {
    if (err instanceof HttpError) return err.response
    logger.line(`${name} error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    return jsonError(500, 'internal error')
  }

  // The log line names the path without the query: a query can carry login codes.
  function finish(req: IncomingMessage, res: ServerResponse, path: string, response: Response, started: number): void {
    send(res, response)
    // Tenths of a millisecond, written from two integers: formatting a fraction measured five
    // times the cost.
    const tenths = Math.round((performance.now() - started) * 10)
    logger.line(`${name} ${req.method} ${path} ${response.status} ${Math.floor(tenths / 10)}.${tenths % 10}ms`)
    if (--inFlight === 0 && drained) drained()
  }

  // Slow clients: the headers must arrive within 10 s and the whole request within 30 s.
  // Node's requestTimeout covers receiving the request only, so long-polls, which wait after
  // the request has arrived, are not cut by it.
  server.headersTimeout = headersTimeout
  server.requestTimeout = Math.max(requestTimeout, headersTimeout)
  server.keepAliveTimeout = 5_000
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable && !socket.writableEnded) {
      const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request'
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
    } else socket.destroy()
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    async close() {
      if (shutdown.signal.aborted) return
      shutdown.abort()
      waiting.closeAll()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      if (inFlight > 0) {
        const drainMs = options.drainMs ?? 10_000
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, drainMs)
          drained = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
      server.closeAllConnections()
      await closed
      logger.flush()
    },
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function'
}

function send(res: ServerResponse, response: Response): void {
  if (res.headersSent || res.destroyed) return
  const body = response.body ?? ''
  // A known length: the answer goes out in one write instead of chunked pieces (measured: the
  // chunked framing's extra writes were a quarter of a trivial route's time). Given to writeHead
  // in one object, node stores the headers without merging (its fast path). json() counted the
  // length already; anything else is counted here, on a copy, since a handler may answer a
  // shared headers object.
  let headers = response.headers
  if (headers?.['content-length'] === undefined) {
    headers = { ...headers, 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) }
  }
  res.writeHead(response.status, headers)
  res.end(body)
}

/**
 * The close listeners of requests whose handlers asked for one (long-polls), kept in a Set so
 * that shutdown reaches them all. Each costs a small record and two closures: an AbortController
 * per waiting poll (an EventTarget, its maps and its listener records) measured about a kilobyte
 * and the largest share of the server's time in answering 10,000 polls at once. A listener per request
 * on one shared signal would cost a scan of all the others at every add and remove (node checks
 * for duplicates): quadratic with thousands of waiting polls.
 */
interface Waiting {
  add(res: ServerResponse, listener: () => void): () => void
  closeAll(): void
}

function createWaiting(shutdown: AbortSignal): Waiting {
  const open = new Set<CloseWatch>()
  return {
    add(res, listener) {
      if (shutdown.aborted || res.destroyed) {
        listener()
        return noop
      }
      const watch = new CloseWatch(open, listener)
      open.add(watch)
      // A response emits 'close' also after it was sent; by then the listener was cancelled.
      res.on('close', () => watch.fire())
      return () => watch.cancel()
    },
    closeAll() {
      for (const watch of [...open]) watch.fire()
    },
  }
}

/** One close listener of {@link Waiting}: called at most once, unless cancelled first. */
class CloseWatch {
  #done = false
  constructor(
    private readonly open: Set<CloseWatch>,
    private readonly listener: () => void,
  ) {}

  fire(): void {
    if (this.#done) return
    this.cancel()
    this.listener()
  }

  cancel(): void {
    this.#done = true
    this.open.delete(this)
  }
}

function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const declared = Number(req.headers['content-length'])
  if (declared > BODY_LIMIT) {
    req.resume()
    return Promise.reject(new HttpError(BODY_TOO_LARGE()))
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let ended = false
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > BODY_LIMIT) {
        req.removeAllListeners('data')
        req.resume()
        reject(new HttpError(BODY_TOO_LARGE()))
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      ended = true
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks))
    })
    // A client that goes away mid-body: nobody is left to answer, so no 500 and no stack in the log.
    const gone = () => {
      if (!ended) reject(new HttpError(jsonError(400, 'request body incomplete')))
    }
    req.on('error', gone)
    req.on('close', gone)
  })
}
