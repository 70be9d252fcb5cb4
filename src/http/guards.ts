/**
 * Small request checks shared by both services (docs/core.md, "Sessions and credentials"). Each
 * answers a {@link Refusal}, or null when the request passes.
 */
import { timingSafeEqual } from 'node:crypto'
import type { Request } from './request.ts'
import { reason, refuse, type Refusal } from './refusal.ts'

const CROSS_SITE = reason('cross_site', 'cross-site request refused')
const WRONG_CONTENT_TYPE = reason('wrong_content_type', 'send the body as application/json')
const BAD_TAG = reason('bad_tag', 'x-tag header missing or wrong')

/**
 * Refuses a cross-site write made with a session cookie: `Sec-Fetch-Site: cross-site`, or an
 * `Origin` other than `ownOrigin` (the service's public URL's origin).
 */
export function refuseCrossSite(
  req: Request,
  cookieName: string,
  ownOrigin: string,
): Refusal | null {
  if (!(cookieName in req.cookies)) return null
  const origin = req.headers.origin
  if (
    req.headers['sec-fetch-site'] === 'cross-site' ||
    (origin !== undefined && origin !== ownOrigin)
  ) {
    return refuse(403, CROSS_SITE)
  }
  return null
}

/** Refuses a non-empty body not sent as `application/json` (parameters such as charset allowed). */
export function refuseContentType(req: Request, body: Uint8Array): Refusal | null {
  if (body.length === 0) return null
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  return type === 'application/json' ? null : refuse(415, WRONG_CONTENT_TYPE)
}

/** Refuses a cookie-authenticated write whose `x-tag` header is not the session's tag. */
export function refuseTag(req: Request, tag: unknown): Refusal | null {
  const sent = req.headers['x-tag']
  if (typeof tag !== 'string' || typeof sent !== 'string' || !sameText(sent, tag)) {
    return refuse(403, BAD_TAG)
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
