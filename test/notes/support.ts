/**
 * The notes service on a test schema, called without a socket: requests go through the
 * handler `serve` puts on a port.
 */
import assert from 'node:assert/strict'
import type { IncomingHttpHeaders } from 'node:http'
import { createNotesService } from '../../src/notes/service.ts'
import { createHandler } from '../../src/http/handler.ts'
import { makeRequest } from '../../src/http/request.ts'
import type { Response } from '../../src/http/response.ts'
import { testDatabase } from '../support/db.ts'
import { serviceDeps, testClock, testLogger } from '../support/service.ts'

export interface Answer {
  status: number
  headers: Record<string, string>
  text: string
  /** The body as sent (a PNG, say). */
  bytes: Buffer
  /** The body parsed as JSON. */
  json: any
}

/** A fresh notes service with its own schema, clock and fake identity provider. */
export async function notesService(options: { max?: number } = {}) {
  const db = await testDatabase({ max: options.max })
  const clock = testClock()
  const { deps, idp, sessions } = await serviceDeps(db.sql, 'notes', { clock: clock.now })
  const service = createNotesService(deps)
  const handler = createHandler(service.routes, { name: 'notes', logger: testLogger() })

  /** Sends one request through the service's handler. */
  async function call(
    method: string,
    url: string,
    init: { cookie?: string; headers?: IncomingHttpHeaders; body?: string | Uint8Array } = {},
  ): Promise<Answer> {
    const headers: IncomingHttpHeaders = { ...init.headers }
    if (init.cookie) headers.cookie = init.cookie
    const response = await handler(makeRequest({ method, url, headers, body: init.body }))
    return answerOf(response)
  }

  /** Signs `user` in through the callback; returns the `Cookie` header for the session. */
  async function signIn(user: string): Promise<string> {
    const res = await call('GET', `/login/callback?idp_code=${idp.code({ id: user, name: user })}`)
    if (res.status !== 302 || !res.headers['set-cookie'])
      throw new Error(`sign-in failed: ${res.status} ${res.text}`)
    return cookieOf(res.headers['set-cookie'])
  }

  /** POSTs a JSON value to /api/notes as a signed-in browser would. */
  function post(cookie: string, value: unknown): Promise<Answer> {
    return call('POST', '/api/notes', {
      cookie,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(value),
    })
  }

  return {
    db,
    sql: db.sql,
    clock,
    idp,
    sessions,
    deps,
    service,
    call,
    signIn,
    post,
    publicUrl: deps.publicUrl,
  }
}

/** A request and the answer it gets: method, what it sends, status and JSON body. */
export type CheckCase = [
  method: string,
  init: { cookie?: string; headers?: Record<string, string>; body?: string },
  status: number,
  body: unknown,
]

/** Sends each of `cases` to `path`, in order, and asserts the status and body of its answer. */
export async function assertAnswers(
  app: { call(method: string, url: string, init: CheckCase[1]): Promise<Answer> },
  path: string,
  cases: readonly CheckCase[],
): Promise<void> {
  for (const [method, init, status, body] of cases) {
    const res = await app.call(method, path, init)
    assert.equal(res.status, status, `${method} ${JSON.stringify(init)}`)
    assert.deepEqual(res.json, body)
  }
}

/** The `name=value` part of a `Set-Cookie` value. */
export function cookieOf(setCookie: string): string {
  return setCookie.split(';')[0]!
}

function answerOf(response: Response): Answer {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers ?? {}))
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  // The notes service answers whole bodies, never streams.
  const body = (response.body ?? '') as string | Uint8Array
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers, text, bytes: Buffer.from(body), json }
}
