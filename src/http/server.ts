/**
 * Sockets and timeouts: {@link serve} puts a route table on a port, and this is the only module
 * that touches `node:http`. It reads bodies under a cap, logs one line per request, guards
 * against slow clients and shuts down gracefully; what a request is answered is decided by
 * the handler of `src/http/handler.ts`, which tests call without a socket.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net'
import { createHandler, type HandlerOptions, type HttpRoute } from './handler.ts'
import { requestLine, type Logger } from '../base/log.ts'
import {
  BODY_INCOMPLETE,
  BODY_LIMIT,
  BODY_TOO_LARGE,
  bodyIncomplete,
  bodyOverLimit,
  NO_PARAMS,
  noop,
  RequestRecord,
  type RequestSource,
} from './request.ts'
import { isStream, type BodyStream, type Response } from './response.ts'
import { refuse } from './refusal.ts'

export interface ServeOptions extends HandlerOptions {
  /** Takes the request lines, and the handler's lines (src/http/handler.ts). */
  logger: Logger
  routes: readonly HttpRoute[]
  host: string
  port: number
  /** A socket already listening on the port, to listen on in its place (src/start/ports.ts). */
  held?: NetServer
  /** How long in-flight requests may take to finish at shutdown. */
  drainMs?: number
  /**
   * How long idle connections are kept at shutdown for a request that may be on its way on one
   * (1 s; 250 ms still cut a request now and then on a busy machine).
   */
  graceMs?: number
  /**
   * Slow clients: the time to send the headers (10 s; node's check also closes a new connection
   * that sends nothing for this long) and the whole request (30 s).
   */
  headersTimeoutMs?: number
  requestTimeoutMs?: number
}

/**
 * After an answer sent before the request's body was read (a 413, or a 401 that never looked
 * at the body), a declared rest up to this size is read and dropped so the connection can be
 * kept; anything larger is not worth reading: the connection is closed instead (lingering).
 */
const DRAIN_TO_KEEP = 64 * 1024
/** A lingering close reads and drops at most this much, for at most this long (RFC 9112 9.6). */
const LINGER_BYTES = 1024 * 1024
const LINGER_MS = 2_000

export interface Served {
  url: string
  port: number
  /** Stops accepting, aborts waiting long-polls, lets in-flight requests finish, then closes. */
  close(): Promise<void>
}

/** Serves a route table on a port; resolves once it listens. */
export async function serve(options: ServeOptions): Promise<Served> {
  const { logger, name } = options
  const shutdown = new AbortController()
  const ready = options.ready
  const answer = createHandler(options.routes, {
    name,
    logger,
    notFound: options.notFound,
    limiter: options.limiter,
    // A server shutting down is not ready, whatever its database says.
    ready: () => (shutdown.signal.aborted ? false : ready ? ready() : true),
  })
  const waiting = createWaiting(shutdown.signal)
  let inFlight = 0
  let drained: (() => void) | null = null

  const headersTimeout = options.headersTimeoutMs ?? 10_000
  const requestTimeout = options.requestTimeoutMs ?? 30_000
  const server = createServer(
    { connectionsCheckingInterval: Math.min(1000, headersTimeout / 2) },
    (req, res) => {
      inFlight++
      const started = performance.now()
      const url = req.url ?? '/'
      const q = url.indexOf('?')
      const path = q === -1 ? url : url.slice(0, q)
      const request = new RequestRecord(
        req.method ?? 'GET',
        path,
        q === -1 ? '' : url.slice(q + 1),
        NO_PARAMS,
        new SocketSource(req, res, waiting),
      )
      void answer(request).then((response) => finish(req, res, path, response, started))
    },
  )

  // The log line names the path without the query: a query can carry login codes.
  function finish(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    response: Response,
    started: number,
  ): void {
    if (shutdown.signal.aborted && !res.headersSent) res.setHeader('connection', 'close')
    if (isStream(response.body) && response.status !== 304) {
      // Logged and counted out once the last piece is written (or the stream failed).
      void sendStream(req, res, response, response.body).then((failed) => {
        if (failed !== null)
          logger.line(
            `${name} error: ${failed instanceof Error ? (failed.stack ?? failed.message) : String(failed)}`,
          )
        logged(req, path, response, started)
      })
      return
    }
    send(req, res, response)
    logged(req, path, response, started)
  }

  function logged(req: IncomingMessage, path: string, response: Response, started: number): void {
    logger.line(
      requestLine(name, req.method ?? '', path, response.status, performance.now() - started),
    )
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
      const status =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request'
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
    } else socket.destroy()
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    const listening = () => {
      server.off('error', reject)
      resolve()
    }
    if (options.held) server.listen(options.held, listening)
    else server.listen(options.port, options.host, listening)
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
      // Stop accepting, but not with http.Server.close(), which also drops idle keep-alive
      // connections at once: a request may be on its way on one (clients saw ECONNRESET).
      // Answers from now on carry `connection: close`; connections still idle after the grace
      // are closed.
      const closed = new Promise<void>((resolve) =>
        NetServer.prototype.close.call(server, () => resolve()),
      )
      const open = await new Promise<number>((resolve) =>
        server.getConnections((_, n) => resolve(n ?? 0)),
      )
      const graceMs = options.graceMs ?? 1000
      if (open > 0 && graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs))
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

function send(req: IncomingMessage, res: ServerResponse, response: Response): void {
  if (res.headersSent || res.destroyed) return
  // Streamed bodies go through sendStream. A text is encoded here once: given the string, node
  // would count its bytes and then encode it again, joined to the headers, as it writes.
  const given = (response.body ?? '') as string | Uint8Array
  const body = typeof given === 'string' ? Buffer.from(given) : given
  // A known length, so the answer goes out in one write rather than in chunks. json() counted
  // it already; anything else is counted here, on a copy, since a handler may answer a shared
  // headers object.
  let headers = response.headers
  // A 304 has no body, and a length would claim the 200's (RFC 9110 section 8.6).
  if (headers?.['content-length'] === undefined && response.status !== 304) {
    headers = Object.assign({}, headers, { 'content-length': String(body.byteLength) })
  }
  if (!req.complete && unreadRest(req) > DRAIN_TO_KEEP) {
    headers = Object.assign({}, headers, { connection: 'close' })
    lingerOnClose(req.socket)
  }
  res.writeHead(response.status, headers)
  res.end(body)
}

/**
 * Sends a streamed body chunked, one write per piece, waiting for the socket to drain so a slow
 * client holds back the reading rather than filling memory. A HEAD reads nothing. A stream that
 * fails after the headers went out cannot become a 500: the connection is cut, so the client
 * sees a truncated answer (no final chunk) instead of a short list that looks whole.
 */
async function sendStream(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  body: BodyStream,
): Promise<unknown> {
  if (res.headersSent || res.destroyed) return null
  let headers = response.headers
  if (!req.complete && unreadRest(req) > DRAIN_TO_KEEP) {
    headers = Object.assign({}, headers, { connection: 'close' })
    lingerOnClose(req.socket)
  }
  res.writeHead(response.status, headers)
  if (req.method === 'HEAD') {
    res.end()
    return null
  }
  try {
    for await (const piece of body) {
      if (res.destroyed) return null
      if (!res.write(piece))
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done)
            res.off('close', done)
            resolve()
          }
          res.on('drain', done)
          res.on('close', done)
        })
    }
    res.end()
    return null
  } catch (err) {
    res.destroy()
    return err
  }
}

/** How much of the request's body may still be on its way: its declared length, or unbounded. */
function unreadRest(req: IncomingMessage): number {
  if (req.headers['transfer-encoding'] !== undefined) return Infinity
  const declared = Number(req.headers['content-length'] ?? 0)
  return Number.isFinite(declared) ? declared : Infinity
}

/**
 * A lingering close (RFC 9112 section 9.6) for a connection whose client may still be sending a
 * body we will not read. Node closes a `connection: close` answer's socket with destroySoon(),
 * which drops it as soon as the answer is written: with the client's bytes still unread, the
 * kernel then answers with a reset, and a client still writing loses the answer from its
 * receive buffer (EPIPE or ECONNRESET instead of the 413). Here the socket half-closes after the
 * answer and goes on reading and dropping, until the client closes its side, or for at most
 * {@link LINGER_BYTES} and {@link LINGER_MS}, so a huge declared body is never read to its end.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => {
    let read = 0
    const stop = () => {
      clearTimeout(timer)
      socket.destroy()
    }
    const timer = setTimeout(stop, LINGER_MS)
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length
      if (read > LINGER_BYTES) stop()
    })
    socket.once('end', stop)
    socket.once('close', () => clearTimeout(timer))
    socket.end()
  }
}

/** A request's headers, body and close, read from its socket. */
class SocketSource implements RequestSource {
  constructor(
    private readonly raw: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly waiting: Waiting,
  ) {}

  get headers(): IncomingHttpHeaders {
    return this.raw.headers
  }

  get address(): string {
    return this.raw.socket.remoteAddress ?? ''
  }

  body(): Promise<Uint8Array> {
    return readBody(this.raw)
  }

  stream(limit: number): AsyncIterable<Uint8Array> {
    return streamBody(this.raw, limit)
  }

  onClose(listener: () => void): () => void {
    return this.waiting.add(this.res, listener)
  }
}

/**
 * The close listeners of requests whose handlers asked for one (long-polls), kept in a Set so
 * that shutdown reaches them all. Each is a small record rather than an AbortController, since
 * a process holds thousands of waiting polls; and not a listener on one shared signal, whose
 * every add and remove would scan all the others.
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

/**
 * A body read piece by piece (see `Request.bodyStream`). The socket's iterator is taken without
 * `destroyOnReturn`: a reader that stops early (a 413, a refusal) must leave the connection
 * whole for its answer; the unread rest is then dropped (`req.resume()`), and `send` closes
 * the connection when that rest is large.
 */
async function* streamBody(req: IncomingMessage, limit: number): AsyncGenerator<Uint8Array> {
  if (Number(req.headers['content-length']) > limit) {
    req.resume()
    throw bodyOverLimit()
  }
  let size = 0
  let pieces: AsyncIterator<Buffer>
  try {
    pieces = req.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]()
  } catch {
    throw bodyIncomplete()
  }
  try {
    while (true) {
      let next: IteratorResult<Buffer>
      try {
        next = await pieces.next()
      } catch {
        throw bodyIncomplete()
      }
      if (next.done) break
      size += next.value.length
      if (size > limit) throw bodyOverLimit()
      yield next.value
    }
    if (!req.complete) throw bodyIncomplete()
  } finally {
    await pieces.return?.()
    if (!req.complete) req.resume()
  }
}

function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const declared = Number(req.headers['content-length'])
  if (declared > BODY_LIMIT) {
    req.resume()
    return Promise.reject(refuse(413, BODY_TOO_LARGE))
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
        reject(refuse(413, BODY_TOO_LARGE))
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
      if (!ended) reject(refuse(400, BODY_INCOMPLETE))
    }
    req.on('error', gone)
    req.on('close', gone)
  })
}
