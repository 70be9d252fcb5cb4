/**
 * Conditional GETs (RFC 9110 section 13): an `ETag` on every 200 answer to a GET or HEAD of the
 * JSON API and the Markdown answers, and `304 Not Modified` without a body when the request's
 * `If-None-Match` names it. The dispatcher (src/http/handler.ts) applies {@link conditional} to every
 * answer, so both services get it; a handler that knows its answer's version cheaply sets the
 * `etag` itself and, with {@link matches}, answers {@link notModified} before building the body
 * (the notes list: docs/notes-api.md).
 *
 * @module
 */
import { hash } from 'node:crypto'
import type { Request } from './request.ts'
import { isStream, type Headers, type Response } from './response.ts'

/**
 * A strong validator derived from the body's bytes: the same bytes, the same tag, in every
 * process. SHA-1 cut to 120 bits: a tag only has to change when the bytes do, and SHA-1 is the
 * quickest digest node has built in.
 */
export function etagOf(body: string | Uint8Array): string {
  return `"${hash('sha1', body, 'base64url').slice(0, 20)}"`
}

/**
 * True when an `If-None-Match` field value names `etag` (RFC 9110 section 13.1.2): `*`, or a
 * list of entity-tags one of which matches by the weak comparison (`W/"x"` matches `"x"`;
 * section 8.8.3.2). A field that is not a list of entity-tags matches nothing, so the full
 * answer is sent: the safe reading of a header we cannot understand.
 */
export function matches(field: string | undefined, etag: string): boolean {
  if (field === undefined) return false
  const want = opaque(etag)
  let i = 0
  const n = field.length
  let found = false
  let items = 0
  while (true) {
    // OWS and empty list elements (section 5.6.1).
    while (i < n && (field[i] === ' ' || field[i] === '\t' || field[i] === ',')) i++
    if (i >= n) break
    if (field[i] === '*') {
      // `*` stands alone: `If-None-Match = "*" / #entity-tag`.
      i++
      while (i < n && (field[i] === ' ' || field[i] === '\t')) i++
      return i === n && items === 0
    }
    if (field.startsWith('W/', i)) i += 2
    if (field[i] !== '"') return false
    const start = ++i
    // etagc = %x21 / %x23-7E / obs-text
    while (i < n && field.charCodeAt(i) !== 0x22) {
      const c = field.charCodeAt(i)
      if (c < 0x21 || c === 0x7f) return false
      i++
    }
    if (i >= n) return false
    if (field.slice(start, i) === want) found = true
    i++
    items++
    while (i < n && (field[i] === ' ' || field[i] === '\t')) i++
    if (i < n && field[i] !== ',') return false
  }
  return found
}

/** The opaque-tag of an entity-tag, quotes included, without `W/`. */
function opaque(etag: string): string {
  const quoted = etag.startsWith('W/') ? etag.slice(2) : etag
  return quoted.slice(1, -1)
}

/**
 * The 304 for an answer whose validator matched: its headers without the body's `content-type`
 * and `content-length` (section 15.4.5 keeps `ETag`, `Cache-Control` and the like), no body.
 */
export function notModified(headers: Headers | undefined): Response {
  const kept: Headers = {}
  for (const name in headers)
    if (name !== 'content-type' && name !== 'content-length') kept[name] = headers[name]!
  return { status: 304, headers: kept }
}

/** Answers that get a validator: the JSON API and the Markdown answers. */
function validated(type: string | string[] | undefined): boolean {
  return (
    typeof type === 'string' &&
    (type.startsWith('application/json') || type.startsWith('text/markdown'))
  )
}

/**
 * The answer to send for `req`: a 200 to a GET or HEAD of JSON or Markdown gets an `ETag` (its
 * own when the handler set one, else one of its bytes), and becomes a 304 when the request's
 * `If-None-Match` names it. Every other answer is returned as it is.
 */
export function conditional(req: Request, response: Response): Response {
  if (response.status !== 200 || (req.method !== 'GET' && req.method !== 'HEAD')) return response
  const headers = response.headers
  if (headers === undefined || !validated(headers['content-type'])) return response
  let etag = headers.etag
  let out = response
  if (typeof etag !== 'string') {
    // A streamed body is never held whole, so it cannot be hashed: it has a tag only when its
    // handler knew its version.
    if (isStream(response.body)) return response
    etag = etagOf(response.body ?? '')
    // A copy: a handler may answer a shared headers object.
    out = {
      status: response.status,
      headers: Object.assign({}, headers, { etag }),
      body: response.body,
    }
  }
  const field = req.headers['if-none-match']
  return field !== undefined && matches(field, etag) ? notModified(out.headers) : out
}
