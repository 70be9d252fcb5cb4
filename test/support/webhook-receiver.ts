/**
 * A webhook receiver for tests: an HTTP server on 127.0.0.1 that keeps every request it gets
 * and answers as the test says (`answer`, by default 204 at once). `verified()` checks each
 * request with the `standardwebhooks` package against the secret(s), as a real receiver would.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after } from 'node:test'
import { Webhook } from 'standardwebhooks'

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  /** The message, parsed. */
  json: { type: string; timestamp: string; data: Record<string, any> }
  id: string
}

export interface Answer {
  status: number
  body?: string
  headers?: Record<string, string>
  /** Milliseconds to wait before answering; `Infinity` never answers. */
  delayMs?: number
}

export async function webhookReceiver() {
  const received: Received[] = []
  let answer: (r: Received, n: number) => Answer = () => ({ status: 204 })
  const waiters = new Set<() => void>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const r: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body,
        json: JSON.parse(body),
        id: String(req.headers['webhook-id']),
      }
      received.push(r)
      for (const w of waiters) w()
      const a = answer(r, received.length)
      const send = () => {
        if (!res.writableEnded && !res.destroyed)
          res.writeHead(a.status, a.headers ?? {}).end(a.body ?? '')
      }
      if (a.delayMs === Infinity) return
      if (a.delayMs) setTimeout(send, a.delayMs)
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  after(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    /** Requests to `path` only. */
    at: (path: string) => received.filter((r) => r.path === path),
    setAnswer(fn: (r: Received, n: number) => Answer) {
      answer = fn
    },
    /** Resolves once `test()` holds, checking at each request (and at most every 20 ms); fails after `ms`. */
    async until(test: () => boolean, ms = 10_000): Promise<void> {
      const end = Date.now() + ms
      while (!test()) {
        if (Date.now() > end)
          throw new Error(
            `the receiver waited ${ms} ms in vain; it got ${received.length} requests`,
          )
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done)
            clearTimeout(t)
            resolve()
          }
          const t = setTimeout(done, 20)
          waiters.add(done)
        })
      }
    },
  }
}

/** Verifies `r` with `standardwebhooks` and `secret` (it throws when the signature or timestamp is wrong); answers the parsed message. */
export function verifyWith(secret: string, r: Received): unknown {
  const headers = {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }
  return new Webhook(secret).verify(r.body, headers)
}

/**
 * Whether one of `r`'s signatures is `secret`'s, checked with `standardwebhooks`' own signing
 * for the timestamp `r` carries: for tests whose clock is not the wall clock, where `verify`
 * would refuse the timestamp as too old or too new.
 */
export function signedWith(secret: string, r: Received): boolean {
  const expected = new Webhook(secret).sign(
    r.id,
    new Date(Number(r.headers['webhook-timestamp']) * 1000),
    r.body,
  )
  return String(r.headers['webhook-signature']).split(' ').includes(expected)
}
