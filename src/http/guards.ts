/**
 * Small request checks shared by both services (docs/core.md, "Sessions and credentials"). Each
 * answers a {@link Refused} (its status and error text), or null when the request passes; each
 * service turns it into its answer (`answerRefused`, or the ticket service's refusal type).
 */
import { timingSafeEqual } from 'node:crypto'
import { jsonError, type Response } from './response.ts'
import type { Request } from './request.ts'

/** A guard's refusal: the status and the error text of its `{ error }` answer. */
export interface Refused {
  status: 403 | 415
  error: string
}

/** The answer to a guard's refusal: `{ error }` with its status. */
export function answerRefused(refused: Refused): Response {
  return jsonError(refused.status, refused.error)
}

/**
 * Refuses a cross-site write made with a session cookie: `Sec-Fetch-Site: cross-site`, or an
 * `Origin` other than `ownOrigin` (the service's public URL's origin).
 */
export function refuseCrossSite(req: Request, cookieName: string, ownOrigin: string): Refused | null {
  if (!(cookieName in req.cookies)) return null
  const origin = req.headers.origin
  if (req.headers['sec-fetch-site'] === 'cross-site' || (origin !== undefined && origin !== ownOrigin)) {
    return { status: 403, error: 'cross-site request refused' }
  }
  return null
}

/** Refuses a non-empty body not sent as `application/json` (parameters such as charset allowed). */
export function refuseContentType(req: Request, body: Uint8Array): Refused | null {
  if (body.length === 0) return null
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  return type === 'application/json' ? null : { status: 415, error: 'send the body as application/json' }
}

/** Refuses a cookie-authenticated write whose `x-tag` header is not the session's tag. */
export function refuseTag(req: Request, tag: unknown): Refused | null {
  const sent = req.headers['x-tag']
  if (typeof tag !== 'string' || typeof sent !== 'string' || !sameText(sent, tag)) {
    return { status: 403, error: 'x-tag header missing or wrong' }
  }
  return null
}

/** Compares two strings in time that does not depend on where they differ. */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** The origin (scheme, host, port) of a public base URL. */
export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin
}
