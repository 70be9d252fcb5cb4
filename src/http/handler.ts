/**
 * A service's route table turned into one function from a {@link Request} to a
 * {@link Response}: `GET /healthz`, 404 and 405, the rate limits (src/limits/rate-limit.ts), a 400 for
 * a query that is not percent-encoded UTF-8 (src/http/text.ts), `ETag` and `304` for GETs of JSON and
 * Markdown (src/http/conditional.ts), and the one place an unexpected exception
 * becomes a logged 500 with a generic body. `serve` (`src/http/server.ts`) puts it on a socket; tests
 * call the same function without one.
 */
import { conditional } from './conditional.ts'
import { isDatabaseUnavailable } from '../db/client.ts'
import type { Logger } from '../base/log.ts'
import { CLOSE, type Request } from './request.ts'
import { json, type Response } from './response.ts'
import { answerRefusal, reason, Refusal, refuse } from './refusal.ts'
import { createRouter, type Route } from './router.ts'
import { queryNotUtf8 } from './text.ts'

/** The answer's text for a query parameter whose percent-encoding is not UTF-8 (docs/core.md, "Text"). */
export const queryNotUtf8Text = (name: string) => `'${name}' must be percent-encoded UTF-8`

const NOT_FOUND = reason('not_found', 'not found')
const DATABASE_UNAVAILABLE = reason('database_unavailable', 'database unavailable')
const INTERNAL_ERROR = reason('internal_error', 'internal error')

export type Handler = (req: Request) => Response | Promise<Response>

/** A class of rate limit: `signin` for sign-in and code exchanges, `api` for everything else. */
export type LimitClass = 'api' | 'signin'

/** What the dispatcher asks of the rate limits (src/limits/rate-limit.ts builds one). */
export interface Limiter {
  /** Null when the request may go on, else the 429 to answer. */
  check(req: Request, cls: LimitClass): Promise<Response | null>
}

/** A route of a service: the router's route with our handler type. */
export interface HttpRoute extends Route<Handler> {
  /** The route's class of rate limit: `signin` for sign-in and code exchanges; `api` when absent. */
  rateLimit?: LimitClass
}

export interface HandlerOptions {
  /** Shown in log lines, e.g. `notes`. */
  name: string
  logger: Logger
  /** Answers whether the service is ready and its database answers, for `GET /healthz`. */
  ready?: () => boolean | Promise<boolean>
  /** Answers a request that matches no route; JSON 404 by default. */
  notFound?: Handler
  /** Counts every request but `/healthz` and answers 429 past the limits; none when absent. */
  limiter?: Limiter | null
}

/** Builds the function that answers every request of a route table; it never rejects. */
export function createHandler(
  routes: readonly HttpRoute[],
  options: HandlerOptions,
): (req: Request) => Promise<Response> {
  const router = createRouter(routes)
  const { logger, name } = options
  const ready = options.ready ?? (() => true)
  const notFound: Handler = options.notFound ?? (() => answerRefusal(refuse(404, NOT_FOUND)))
  const limiter = options.limiter ?? null

  async function dispatch(req: Request): Promise<Response> {
    const method = req.method
    const path = req.path
    if (path === '/healthz' && (method === 'GET' || method === 'HEAD')) return health()
    const match = router.match(method, path)
    if (limiter !== null) {
      // The router hands back the row it was given, so the row's own field is there.
      const refused = await limiter.check(
        req,
        (match?.found && (match.route as HttpRoute).rateLimit) || 'api',
      )
      if (refused !== null) return refused
    }
    if (match === null) return notFound(req)
    if (!match.found)
      return answerRefusal(refuse(405, reason('method_not_allowed', match.text)), {
        allow: match.allowed.join(', '),
      })
    req.params = match.params
    const notUtf8 = queryNotUtf8(req.search)
    if (notUtf8 !== null)
      return answerRefusal(refuse(400, reason('bad_text', queryNotUtf8Text(notUtf8)), notUtf8))
    return match.route.handler(req)
  }

  async function health(): Promise<Response> {
    let ok: boolean
    try {
      ok = await ready()
    } catch {
      ok = false
    }
    return json(ok ? 200 : 503, { ok })
  }

  /**
   * The one place an exception becomes an answer: a refusal the body reader rejected with (a
   * 413, after which the connection closes) as it is, else a logged 500.
   */
  function recover(err: unknown): Response {
    if (err instanceof Refusal)
      return answerRefusal(err, err.code === 'body_too_large' ? CLOSE : undefined)
    // The database is unreachable (a restart, an outage): a quick 503 the client may retry.
    if (isDatabaseUnavailable(err))
      return answerRefusal(refuse(503, DATABASE_UNAVAILABLE), { 'retry-after': '5' })
    logger.line(`${name} error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    return answerRefusal(refuse(500, INTERNAL_ERROR))
  }

  return async (req) => {
    try {
      return conditional(req, await dispatch(req))
    } catch (err) {
      return recover(err)
    }
  }
}
