/**
 * The security headers every answer of a service with pages carries: a strict
 * Content-Security-Policy (scripts, styles, workers and connections only from the service
 * itself, no inline script, no framing), `X-Content-Type-Options: nosniff` and
 * `Referrer-Policy: same-origin`.
 *
 * @module
 */
import type { Handler, HttpRoute } from './handler.ts'
import type { Response } from './response.ts'

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
}

/** The response with {@link PAGE_HEADERS} added (a header the handler set itself wins). */
export function withPageHeaders(response: Response): Response {
  const headers = Object.assign({}, PAGE_HEADERS, response.headers)
  return response.body === undefined
    ? { status: response.status, headers }
    : { status: response.status, headers, body: response.body }
}

/** Every route of the table with its handler's answers given {@link PAGE_HEADERS}. */
export function pageHeadersOn(routes: HttpRoute[]): HttpRoute[] {
  return routes.map((route) => ({ ...route, handler: withPageHeadersOf(route.handler) }))
}

/** One handler with {@link PAGE_HEADERS} on its answers. */
export function withPageHeadersOf(handler: Handler): Handler {
  return async (req) => withPageHeaders(await handler(req))
}
