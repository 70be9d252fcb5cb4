/**
 * What a handler sees of a request: a small {@link Request} record. {@link makeRequest} builds
 * one without a socket, for tests and in-process calls; the server builds its records on a
 * socket's {@link RequestSource} (`src/http/server.ts`).
 */
import type { IncomingHttpHeaders } from 'node:http'
import { parseCookies } from './cookie.ts'
import type { Headers, Response } from './response.ts'
import { answerRefusal, reason, refuse, type Refusal } from './refusal.ts'
import type { Params } from './router.ts'

/** The largest request body read: 2 MiB. */
export const BODY_LIMIT = 2 * 1024 * 1024

/** What a handler sees of a request. */
export interface Request {
  method: string
  /** The raw pathname, without the query. */
  path: string
  /** The raw query, without the `?` (empty when there is none). */
  readonly search: string
  /** The query's parameters, decoded. */
  query: URLSearchParams
  /** Lower-case header names, as node gives them. */
  headers: IncomingHttpHeaders
  /**
   * The address of the peer on the socket (the client, or the reverse proxy in front): what
   * node reports, e.g. `127.0.0.1` or `::1`; empty without a socket. src/limits/rate-limit.ts says
   * when `X-Forwarded-For` is read instead.
   */
  readonly address: string
  /** Route parameters (null prototype); filled in by the dispatcher once a route matched. */
  params: Params
  /** Cookies of the request (null prototype); parsed on first use. */
  readonly cookies: Record<string, string>
  /** The body, read up to {@link BODY_LIMIT} on first call; rejects with a 413 {@link Refusal} past it. */
  body(): Promise<Uint8Array>
  /**
   * The body piece by piece as it arrives, for bodies too large to hold (uploads): reading waits
   * for the consumer, so the client is held back rather than memory filled. Fails with
   * {@link bodyOverLimit}'s 413 before a byte is read when `Content-Length` says more than
   * `limit`, and as soon as more than `limit` bytes arrived (a length that lied, a chunked
   * body); with {@link bodyIncomplete}'s 400 when the client goes away mid-body. A request's body is read once:
   * by this or by {@link Request.body}.
   */
  bodyStream(limit: number): AsyncIterable<Uint8Array>
  /**
   * Calls `listener` once when the client goes away or the server shuts down before the answer
   * is sent (at once when that has happened already); answers a function that cancels it.
   * Long-polls stop waiting on it.
   */
  onClose(listener: () => void): () => void
}

/** The refusal of a body past {@link BODY_LIMIT}, which the body reader rejects with. */
export const BODY_TOO_LARGE = reason('body_too_large', 'body too large')

/** What an answer to a body too large adds: the rest of it is not read, so the connection ends. */
export const CLOSE: Readonly<Headers> = Object.freeze({ connection: 'close' })

/** The answer to a body past {@link BODY_LIMIT}. */
export const bodyTooLarge = (): Response => answerRefusal(refuse(413, BODY_TOO_LARGE), CLOSE)

/** The refusal of a body whose client went away before it was whole. */
export const BODY_INCOMPLETE = reason('body_incomplete', 'request body incomplete')

/**
 * What a streamed body past the limit its reader set throws ({@link Request.bodyStream}): a 413
 * {@link Refusal} with the code `body_too_large`, which the reader may answer in its own words.
 */
export const bodyOverLimit = (): Refusal => refuse(413, BODY_TOO_LARGE)

/** What a body whose client went away throws: a 400 {@link Refusal}. */
export const bodyIncomplete = (): Refusal => refuse(400, BODY_INCOMPLETE)

/** Where a request's headers, body and close come from: a live socket, or given values. */
export interface RequestSource {
  readonly headers: IncomingHttpHeaders
  readonly address: string
  /** Called at most once per request, as is `stream`. */
  body(): Promise<Uint8Array>
  stream(limit: number): AsyncIterable<Uint8Array>
  onClose(listener: () => void): () => void
}

/** The params of a request no route matched (yet): shared, so frozen. */
export const NO_PARAMS: Params = Object.freeze(Object.create(null) as Params)

// A class rather than an object of closures: the request record is made for every request,
// and lazy fields on a prototype cost nothing until a handler reads them.
/** The one implementation of {@link Request}. */
export class RequestRecord implements Request {
  #cookies: Record<string, string> | undefined
  #query: URLSearchParams | undefined
  #body: Promise<Uint8Array> | undefined
  constructor(
    readonly method: string,
    readonly path: string,
    readonly search: string,
    public params: Params,
    private readonly source: RequestSource,
  ) {}

  // Node builds a request's header object on first use: a route that reads no header never pays.
  get headers(): IncomingHttpHeaders {
    return this.source.headers
  }

  get address(): string {
    return this.source.address
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.search))
  }

  get cookies(): Record<string, string> {
    return (this.#cookies ??= parseCookies(this.headers.cookie))
  }

  body(): Promise<Uint8Array> {
    return (this.#body ??= this.source.body())
  }

  bodyStream(limit: number): AsyncIterable<Uint8Array> {
    return this.source.stream(limit)
  }

  onClose(listener: () => void): () => void {
    return this.source.onClose(listener)
  }
}

/** Builds a request record without a socket, for tests and in-process calls. */
export function makeRequest(init: {
  method?: string
  url?: string
  headers?: IncomingHttpHeaders
  /** The peer's address; empty by default. */
  address?: string
  body?: string | Uint8Array
  params?: Params
  /** Aborting it closes the request, as a client going away does ({@link Request.onClose}). */
  signal?: AbortSignal
}): Request {
  const url = init.url ?? '/'
  const q = url.indexOf('?')
  const body =
    typeof init.body === 'string'
      ? new TextEncoder().encode(init.body)
      : (init.body ?? new Uint8Array(0))
  return new RequestRecord(
    init.method ?? 'GET',
    q === -1 ? url : url.slice(0, q),
    q === -1 ? '' : url.slice(q + 1),
    init.params ?? Object.create(null),
    new GivenSource(init.headers ?? {}, init.address ?? '', body, init.signal ?? null),
  )
}

const GIVEN_PIECE = 64 * 1024

/** A request's parts given as values, with a signal standing for the client going away. */
class GivenSource implements RequestSource {
  constructor(
    readonly headers: IncomingHttpHeaders,
    readonly address: string,
    private readonly bytes: Uint8Array,
    private readonly signal: AbortSignal | null,
  ) {}

  body(): Promise<Uint8Array> {
    return this.bytes.length > BODY_LIMIT
      ? Promise.reject(refuse(413, BODY_TOO_LARGE))
      : Promise.resolve(this.bytes)
  }

  // In 64 KiB pieces, as a socket would give them; the limit counts the bytes, whatever
  // `Content-Length` says, as it does on a socket.
  async *stream(limit: number): AsyncGenerator<Uint8Array> {
    if (Number(this.headers['content-length']) > limit) throw bodyOverLimit()
    const bytes = this.bytes
    for (let at = 0; at < bytes.length; at += GIVEN_PIECE) {
      if (Math.min(at + GIVEN_PIECE, bytes.length) > limit) throw bodyOverLimit()
      if (this.signal?.aborted) throw bodyIncomplete()
      yield bytes.subarray(at, at + GIVEN_PIECE)
    }
  }

  onClose(listener: () => void): () => void {
    const signal = this.signal
    if (signal === null) return noop
    if (signal.aborted) {
      listener()
      return noop
    }
    signal.addEventListener('abort', listener, { once: true })
    return () => signal.removeEventListener('abort', listener)
  }
}

export function noop(): void {}
