/**
 * What a handler answers: a small {@link Response} record (status, headers, body), and the
 * builders every route uses for it.
 */

export type Headers = Record<string, string | string[]>

/**
 * A body written piece by piece as it is made (a long list read from the database in batches,
 * a file read chunk by chunk), so it is never held whole. `serve` sends it chunked, or with
 * the `content-length` its handler set; nothing reads it for a 304 or a HEAD.
 */
export type BodyStream = AsyncIterable<string | Uint8Array>

/** What a handler answers. */
export interface Response {
  status: number
  headers?: Headers
  body?: string | Uint8Array | BodyStream
}

/** True for a {@link BodyStream} body. */
export function isStream(body: Response['body']): body is BodyStream {
  return typeof body === 'object' && Symbol.asyncIterator in body
}

/** A body's whole bytes, a stream read to its end (tests and tools). */
export async function bodyBytes(body: Response['body']): Promise<Uint8Array> {
  if (body === undefined) return new Uint8Array(0)
  if (typeof body === 'string') return new TextEncoder().encode(body)
  if (!isStream(body)) return body
  const pieces: Uint8Array[] = []
  for await (const piece of body)
    pieces.push(typeof piece === 'string' ? new TextEncoder().encode(piece) : piece)
  return Buffer.concat(pieces)
}

/** A body's whole text, a stream read to its end (tests and tools; `serve` never holds one whole). */
export async function bodyText(body: Response['body']): Promise<string> {
  if (body === undefined) return ''
  if (typeof body === 'string') return body
  if (!isStream(body)) return new TextDecoder().decode(body)
  const decoder = new TextDecoder()
  let text = ''
  for await (const piece of body)
    text += typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true })
  return text + decoder.decode()
}

const JSON_TYPE = 'application/json; charset=utf-8'

// Headers are merged into a copy with Object.assign rather than spread syntax: V8 copies a
// spread of an object that is not a literal through its runtime, many times slower.
/** Every answer's type is the one it names: no browser guesses HTML out of a JSON or text body. */
export const NOSNIFF = 'nosniff'

/**
 * The `Cache-Control` of an answer that depends on who is signed in (docs/core.md, "Sessions
 * and credentials"): no cache, shared or the browser's, keeps it.
 */
export const PRIVATE_NO_STORE: Readonly<Headers> = Object.freeze({
  'cache-control': 'private, no-store',
})

/** A JSON answer. */
export function json(status: number, value: unknown, headers?: Headers): Response {
  const body = JSON.stringify(value)
  const length = String(Buffer.byteLength(body))
  return {
    status,
    headers: {
      'content-type': JSON_TYPE,
      'content-length': length,
      'x-content-type-options': NOSNIFF,
      ...headers,
    },
    body,
  }
}

/**
 * A JSON answer `{"<name>":[...]}` whose array is written batch by batch as `batches` yields,
 * with the same bytes as {@link json} of the whole array. Nothing is read before the body is.
 */
export function jsonStream<T>(
  status: number,
  name: string,
  batches: AsyncIterable<readonly T[]>,
  headers?: Headers,
): Response {
  async function* body(): AsyncGenerator<string> {
    let first = true
    yield `{${JSON.stringify(name)}:[`
    for await (const batch of batches) {
      let piece = ''
      for (const item of batch) {
        piece += first ? JSON.stringify(item) : `,${JSON.stringify(item)}`
        first = false
      }
      yield piece
    }
    yield ']}'
  }
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'x-content-type-options': NOSNIFF, ...headers },
    body: body(),
  }
}

/** A plain-text answer. */
export function text(status: number, body: string, headers?: Headers): Response {
  return {
    status,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'x-content-type-options': NOSNIFF,
      ...headers,
    },
    body,
  }
}

/** A redirect with a short plain-text body. */
export function redirect(
  status: 301 | 302 | 303,
  location: string,
  body = `redirecting to ${location}`,
  headers?: Headers,
): Response {
  return text(status, body, { location, ...headers })
}

/** A JSON error answer `{ error }`, the shape both interfaces use. */
export function jsonError(status: number, error: string, headers?: Headers): Response {
  return json(status, { error }, headers)
}
