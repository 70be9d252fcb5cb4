/**
 * What a handler answers: a small {@link Response} record (status, headers, body), and the
 * builders every route uses for it.
 */

export type Headers = Record<string, string | string[]>

/** What a handler answers. */
export interface Response {
  status: number
  headers?: Headers
  body?: string | Uint8Array
}

/**
 * A response carried by an exception, for the one case where a value cannot travel back
 * easily: the body reader, deep inside a handler. The dispatcher answers it as it is.
 */
export class HttpError extends Error {
  readonly response: Response
  constructor(response: Response) {
    super(`http ${response.status}`)
    this.response = response
  }
}

const JSON_TYPE = 'application/json; charset=utf-8'
/** Every answer's type is the one it names: no browser guesses HTML out of a JSON or text body. */
export const NOSNIFF = 'nosniff'

/** A JSON answer. */
export function json(status: number, value: unknown, headers?: Headers): Response {
  const body = JSON.stringify(value)
  const length = String(Buffer.byteLength(body))
  const base = { 'content-type': JSON_TYPE, 'content-length': length, 'x-content-type-options': NOSNIFF }
  return { status, headers: headers ? { ...base, ...headers } : base, body }
}

/** A plain-text answer. */
export function text(status: number, body: string, headers?: Headers): Response {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': NOSNIFF, ...headers }, body }
}

/** A redirect with a short plain-text body. */
export function redirect(status: 301 | 302 | 303, location: string, body = `redirecting to ${location}`, headers?: Headers): Response {
  return text(status, body, { location, ...headers })
}

/** A JSON error answer `{ error }`, the shape both interfaces use. */
export function jsonError(status: number, error: string, headers?: Headers): Response {
  return json(status, { error }, headers)
}
