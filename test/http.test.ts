import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request as rawRequest } from 'node:http'
import { connect as netConnect } from 'node:net'
import { serve } from '../src/http/server.ts'
import { BODY_LIMIT, makeRequest } from '../src/http/request.ts'
import { Refusal } from '../src/http/refusal.ts'
import { json, jsonStream } from '../src/http/response.ts'
import type { HttpRoute } from '../src/http/handler.ts'
import { createLogger } from '../src/base/log.ts'
import { deferred, until } from './support/wait.ts'

function collectingLogger() {
  const lines: string[] = []
  const logger = createLogger({
    write: (chunk: string) => lines.push(...chunk.trimEnd().split('\n')),
  })
  return { logger, lines }
}

async function start(
  routes: HttpRoute[],
  extra: {
    ready?: () => boolean | Promise<boolean>
    drainMs?: number
    graceMs?: number
    headersTimeoutMs?: number
    requestTimeoutMs?: number
  } = {},
) {
  const { logger, lines } = collectingLogger()
  // No grace for idle connections at close (the fetches' keep-alive ones) unless a test is about it.
  const served = await serve({
    name: 'demo',
    routes,
    host: '127.0.0.1',
    port: 0,
    logger,
    graceMs: 0,
    ...extra,
  })
  return { served, lines, logger }
}

const echo: HttpRoute = {
  method: 'POST',
  path: '/echo',
  handler: async (req) => json(200, { bytes: (await req.body()).length }),
}

test('a route answers JSON with its status and content type', async (t) => {
  const { served } = await start([
    { method: 'GET', path: '/hello/:name', handler: (req) => json(200, { hi: req.params.name }) },
  ])
  t.after(() => served.close())
  const res = await fetch(`${served.url}/hello/ada%20l`)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
  assert.deepEqual(await res.json(), { hi: 'ada l' })
})

test('an unknown path answers 404 and a known path with another method answers 405 with its text', async (t) => {
  const { served } = await start([
    { method: 'GET', path: '/only-get', handler: () => json(200, {}) },
  ])
  t.after(() => served.close())
  const missing = await fetch(`${served.url}/nothing`)
  assert.equal(missing.status, 404)
  assert.deepEqual(await missing.json(), { error: 'not found' })
  const wrong = await fetch(`${served.url}/only-get`, { method: 'POST' })
  assert.equal(wrong.status, 405)
  assert.deepEqual(await wrong.json(), { error: 'GET only' })
  assert.equal(wrong.headers.get('allow'), 'GET, HEAD')
})

test('GET /healthz answers 200 { ok: true } when ready and 503 when the database does not answer', async (t) => {
  let up = true
  const { served } = await start([], {
    ready: async () => (up ? true : Promise.reject(new Error('down'))),
  })
  t.after(() => served.close())
  const ok = await fetch(`${served.url}/healthz`)
  assert.equal(ok.status, 200)
  assert.deepEqual(await ok.json(), { ok: true })
  up = false
  const down = await fetch(`${served.url}/healthz`)
  assert.equal(down.status, 503)
  assert.deepEqual(await down.json(), { ok: false })
})

test('a body over 2 MiB answers 413 { error: body too large }, by its declared length or as it streams', async (t) => {
  const { served } = await start([echo])
  t.after(() => served.close())
  const big = new Uint8Array(BODY_LIMIT + 1)
  const declared = await fetch(`${served.url}/echo`, { method: 'POST', body: big })
  assert.equal(declared.status, 413)
  assert.deepEqual(await declared.json(), { error: 'body too large' })

  const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = rawRequest(
      `${served.url}/echo`,
      { method: 'POST', headers: { 'transfer-encoding': 'chunked' } },
      (res) => {
        let body = ''
        res.on('data', (c) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on('error', reject)
    const chunk = Buffer.alloc(256 * 1024)
    for (let sent = 0; sent <= BODY_LIMIT; sent += chunk.length) req.write(chunk)
    req.end()
  })
  assert.equal(streamed.status, 413)
  assert.deepEqual(JSON.parse(streamed.body), { error: 'body too large' })
})

test('a body of exactly 2 MiB is read whole', async (t) => {
  const { served } = await start([echo])
  t.after(() => served.close())
  const res = await fetch(`${served.url}/echo`, {
    method: 'POST',
    body: new Uint8Array(BODY_LIMIT),
  })
  assert.equal(res.status, 200)
  assert.deepEqual(await res.json(), { bytes: BODY_LIMIT })
})

test('an exception in a handler answers a generic 500 and logs the stack, not the request data', async (t) => {
  const { served, lines, logger } = await start([
    {
      method: 'GET',
      path: '/boom',
      handler: () => {
        throw new Error('secret detail')
      },
    },
  ])
  t.after(() => served.close())
  const res = await fetch(`${served.url}/boom?token=tt_hidden`)
  assert.equal(res.status, 500)
  assert.deepEqual(await res.json(), { error: 'internal error' })
  logger.flush()
  assert.ok(lines.some((l) => l.startsWith('demo error: Error: secret detail')))
  assert.ok(!lines.some((l) => l.includes('tt_hidden')))
})

test('each request writes one log line with method, path without query, status and duration', async (t) => {
  const { served, lines, logger } = await start([
    { method: 'GET', path: '/x', handler: () => json(200, {}) },
  ])
  t.after(() => served.close())
  await (await fetch(`${served.url}/x?idp_code=abc`)).text()
  await (await fetch(`${served.url}/missing`)).text()
  await new Promise((r) => setImmediate(r))
  logger.flush()
  const requestLines = lines.filter((l) => /^demo (GET|POST) /.test(l))
  assert.equal(requestLines.length, 2)
  assert.match(requestLines[0]!, /^demo GET \/x 200 \d+(\.\d)?ms$/)
  assert.match(requestLines[1]!, /^demo GET \/missing 404 /)
  assert.ok(!lines.join('\n').includes('abc'))
})

test('HEAD is answered by the GET route without a body', async (t) => {
  const { served } = await start([
    { method: 'GET', path: '/x', handler: () => json(200, { a: 1 }) },
  ])
  t.after(() => served.close())
  const res = await fetch(`${served.url}/x`, { method: 'HEAD' })
  assert.equal(res.status, 200)
  assert.equal(await res.text(), '')
})

test('a malformed request line answers 400 and the connection closes', async (t) => {
  const { served } = await start([])
  t.after(() => served.close())
  const answer = await new Promise<string>((resolve) => {
    const socket = netConnect(served.port, '127.0.0.1', () => socket.write('NOT A REQUEST\r\n\r\n'))
    let data = ''
    socket.on('data', (c: Buffer) => (data += c.toString()))
    socket.on('close', () => resolve(data))
  })
  assert.match(answer, /^HTTP\/1\.1 400 Bad Request/)
})

test(
  'a client that does not finish its headers in time is answered 408 and cut off',
  { timeout: 10_000 },
  async (t) => {
    const { served } = await start([], { headersTimeoutMs: 200 })
    t.after(() => served.close())
    const answer = await new Promise<string>((resolve) => {
      const socket = netConnect(served.port, '127.0.0.1', () =>
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'),
      )
      let data = ''
      socket.on('data', (c: Buffer) => (data += c.toString()))
      socket.on('close', () => resolve(data))
    })
    assert.match(answer, /^HTTP\/1\.1 408 Request Timeout/)
  },
)

test(
  'a connection that never sends a byte is closed after the headers timeout',
  { timeout: 10_000 },
  async (t) => {
    const { served } = await start([], { headersTimeoutMs: 300 })
    t.after(() => served.close())
    const closed = await new Promise<boolean>((resolve) => {
      const socket = netConnect(served.port, '127.0.0.1')
      socket.resume() // read, so that the server's FIN is seen
      socket.on('close', () => resolve(true))
      socket.on('error', () => {})
      setTimeout(() => (socket.destroy(), resolve(false)), 5_000).unref()
    })
    assert.equal(closed, true, 'the silent connection was still open after 5 s')
  },
)

test(
  'a request that takes longer than the headers timeout to answer is not cut by it',
  { timeout: 10_000 },
  async (t) => {
    const { served } = await start(
      [
        {
          method: 'GET',
          path: '/slow',
          handler: () =>
            new Promise((resolve) => setTimeout(() => resolve(json(200, { ok: true })), 600)),
        },
      ],
      { headersTimeoutMs: 300 },
    )
    t.after(() => served.close())
    const answer = await rawExchange(
      served.port,
      'GET /slow HTTP/1.1\r\nhost: x\r\n\r\n',
      /\r\n\r\n\{"ok":true\}/,
    )
    assert.match(answer, /^HTTP\/1\.1 200 OK/)
  },
)

/**
 * Sends `head`, then writes a body of `length` bytes in 64 KiB pieces for as long as the server
 * lets it, reading answers as they come. Resolves with what was read and how much was written.
 */
function writeBodyAndRead(
  port: number,
  head: string,
  length: number,
): Promise<{ answer: string; written: number }> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1')
    let answer = ''
    let written = 0
    let done = false
    socket.on('data', (c: Buffer) => (answer += c.toString()))
    socket.on('error', () => {})
    socket.on('close', () => ((done = true), resolve({ answer, written })))
    socket.write(head)
    const piece = Buffer.alloc(64 * 1024, 120)
    const pump = () => {
      while (!done && written < length) {
        written += piece.length
        if (!socket.write(piece)) return void socket.once('drain', pump)
      }
    }
    pump()
  })
}

test(
  'a client still writing a body that is too large reads the 413, every time',
  { timeout: 60_000 },
  async (t) => {
    const { served } = await start([echo])
    t.after(() => served.close())
    const size = 3 * 1024 * 1024
    for (let i = 0; i < 20; i++) {
      const { answer } = await writeBodyAndRead(
        served.port,
        `POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
        size,
      )
      assert.match(
        answer,
        /^HTTP\/1\.1 413 /,
        `try ${i + 1}: ${JSON.stringify(answer.slice(0, 80))}`,
      )
      assert.match(answer, /\{"error":"body too large"\}$/)
    }
  },
)

test(
  'after answering before the body is read, the server stops reading a huge body and closes',
  { timeout: 30_000 },
  async (t) => {
    const refuse: HttpRoute = {
      method: 'POST',
      path: '/refuse',
      handler: () => json(401, { error: 'unauthorized' }),
    }
    const { served } = await start([refuse])
    t.after(() => served.close())
    const declared = 100 * 1024 * 1024
    const { answer, written } = await writeBodyAndRead(
      served.port,
      `POST /refuse HTTP/1.1\r\nhost: x\r\ncontent-length: ${declared}\r\n\r\n`,
      declared,
    )
    assert.match(answer, /^HTTP\/1\.1 401 /)
    assert.match(answer, /\r\nconnection: close\r\n/i)
    // What the client wrote before the connection closed: the server's reads (at most 1 MiB after
    // the answer) plus what the two sockets' buffers hold, far from the 100 MB declared.
    assert.ok(written < 24 * 1024 * 1024, `the client could write ${written} bytes`)
  },
)

test('a small body left unread by an early answer is dropped and the connection kept for the next request', async (t) => {
  const refuse: HttpRoute = {
    method: 'POST',
    path: '/refuse',
    handler: () => json(401, { error: 'unauthorized' }),
  }
  const { served } = await start([
    refuse,
    { method: 'GET', path: '/next', handler: () => json(200, { next: true }) },
  ])
  t.after(() => served.close())
  const body = '{"text":"hello"}'
  const answer = await rawExchange(
    served.port,
    `POST /refuse HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n${body}GET /next HTTP/1.1\r\nhost: x\r\n\r\n`,
    /\{"next":true\}/,
  )
  assert.match(answer, /^HTTP\/1\.1 401 /)
  assert.doesNotMatch(answer, /connection: close/i)
  assert.match(answer, /HTTP\/1\.1 200 OK[\s\S]*\{"next":true\}$/)
})

/** Writes raw bytes and resolves with everything read once `until` matches it (or the socket closes). */
function rawExchange(port: number, bytes: string, until: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1', () => socket.write(bytes))
    let data = ''
    socket.on('data', (c: Buffer) => {
      data += c.toString()
      if (until.test(data)) {
        socket.destroy()
        resolve(data)
      }
    })
    socket.on('close', () => resolve(data))
  })
}

test(
  'a long-poll may wait longer than the request timeout: that limit covers receiving the request only',
  { timeout: 10_000 },
  async (t) => {
    let waited: () => void = () => {}
    const { served } = await start(
      [
        {
          method: 'GET',
          path: '/poll',
          handler: () =>
            new Promise((resolve) => (waited = () => resolve(json(200, { events: [] })))),
        },
      ],
      { headersTimeoutMs: 100, requestTimeoutMs: 100 },
    )
    t.after(() => served.close())
    const poll = fetch(`${served.url}/poll`)
    // Hold the poll well past both limits, then answer it.
    await new Promise((r) => setTimeout(r, 600))
    waited()
    const res = await poll
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), { events: [] })
  },
)

test('close() lets a request in flight finish and answers a waiting long-poll at once', async () => {
  let release: () => void = () => {}
  let arrived = 0
  const bothArrived = deferred()
  const arrive = () => void (++arrived === 2 && bothArrived.resolve())
  const { served } = await start([
    {
      method: 'GET',
      path: '/slow',
      handler: () =>
        new Promise((resolve) => {
          release = () => resolve(json(200, { done: true }))
          arrive()
        }),
    },
    {
      method: 'GET',
      path: '/poll',
      handler: (req) =>
        new Promise((resolve) => {
          req.onClose(() => resolve(json(200, { events: [] })))
          arrive()
        }),
    },
  ])
  const slow = fetch(`${served.url}/slow`)
  const poll = fetch(`${served.url}/poll`)
  await bothArrived.promise
  const closing = served.close()
  const polled = await poll
  assert.deepEqual(await polled.json(), { events: [] })
  release()
  const finished = await slow
  assert.deepEqual(await finished.json(), { done: true })
  await closing
  await assert.rejects(fetch(`${served.url}/slow`))
})

test('a request sent on an idle keep-alive connection as close() begins is answered, with connection: close', async () => {
  const { served } = await start(
    [{ method: 'GET', path: '/x', handler: () => json(200, { x: 1 }) }],
    { graceMs: 1000 },
  )
  const socket = netConnect(served.port, '127.0.0.1')
  let data = ''
  socket.on('data', (c: Buffer) => (data += c.toString()))
  const ended = new Promise((resolve) => socket.on('close', resolve))
  socket.write('GET /x HTTP/1.1\r\nhost: x\r\n\r\n')
  await until(() => data.endsWith('{"x":1}'))
  const closing = served.close()
  socket.write('GET /x HTTP/1.1\r\nhost: x\r\n\r\n')
  await ended
  await closing
  const answers = data.split('HTTP/1.1 ').slice(1)
  assert.equal(answers.length, 2, data)
  assert.match(answers[1]!, /^200 OK\r\n/)
  assert.match(answers[1]!, /\r\nconnection: close\r\n/i)
  assert.match(answers[1]!, /\{"x":1\}$/)
})

test('onClose calls its listener once when the client goes away while its request waits', async (t) => {
  let closed = 0
  const arrival = deferred()
  const wentAway = deferred()
  const { served } = await start([
    {
      method: 'GET',
      path: '/poll',
      handler: (req) =>
        new Promise((resolve) => {
          req.onClose(() => {
            closed++
            wentAway.resolve()
            resolve(json(200, { events: [] }))
          })
          arrival.resolve()
        }),
    },
  ])
  t.after(() => served.close())
  const socket = netConnect(served.port, '127.0.0.1')
  socket.write('GET /poll HTTP/1.1\r\nhost: x\r\n\r\n')
  await arrival.promise
  socket.destroy()
  await wentAway.promise
  await served.close()
  assert.equal(closed, 1)
})

test(
  'onClose does not call a listener that was cancelled, and calls one registered after the client went away at once',
  { timeout: 10_000 },
  async (t) => {
    const calls: string[] = []
    let answerCancelled: () => void = () => {}
    let arrival = deferred()
    const { served } = await start([
      {
        method: 'GET',
        path: '/cancelled',
        handler: (req) =>
          new Promise((resolve) => {
            const cancel = req.onClose(() => calls.push('cancelled listener'))
            answerCancelled = () => {
              cancel()
              resolve(json(200, { answered: true }))
            }
            arrival.resolve()
          }),
      },
      {
        method: 'GET',
        path: '/late',
        // The second listener is registered once the client is known to be gone.
        handler: (req) =>
          new Promise((resolve) => {
            req.onClose(() => {
              req.onClose(() => {
                calls.push('late listener')
                resolve(json(200, {}))
              })
            })
            arrival.resolve()
          }),
      },
    ])
    t.after(() => served.close())
    const waiting = fetch(`${served.url}/cancelled`)
    await arrival.promise
    answerCancelled()
    assert.deepEqual(await (await waiting).json(), { answered: true })

    arrival = deferred()
    const socket = netConnect(served.port, '127.0.0.1')
    socket.write('GET /late HTTP/1.1\r\nhost: x\r\n\r\n')
    await arrival.promise
    socket.destroy()
    await until(() => calls.includes('late listener'))
    await served.close()
    assert.deepEqual(calls, ['late listener'])
  },
)

test('makeRequest builds a request record that handlers can read without a socket', async () => {
  const req = makeRequest({
    method: 'POST',
    url: '/a/b?x=1&x=2',
    headers: { cookie: 'a=1; __proto__=2' },
    body: '{"k":1}',
  })
  assert.equal(req.path, '/a/b')
  assert.deepEqual(req.query.getAll('x'), ['1', '2'])
  assert.equal(req.cookies.a, '1')
  assert.equal(req.cookies['__proto__'], '2')
  assert.equal(Object.getPrototypeOf(req.cookies), null)
  assert.equal(new TextDecoder().decode(await req.body()), '{"k":1}')
})

test('a streamed JSON body is sent chunked, piece by piece, with the same bytes as json() of the whole', async (t) => {
  const batches = [[{ n: 1 }, { n: 2 }], [], [{ n: 3, s: 'é"' }]]
  async function* slowly() {
    for (const batch of batches) {
      await new Promise((r) => setTimeout(r, 5))
      yield batch
    }
  }
  const { served } = await start([
    {
      method: 'GET',
      path: '/list',
      handler: () => jsonStream(200, 'items', slowly(), { etag: '"v1"' }),
    },
  ])
  t.after(() => served.close())
  const res = await fetch(`${served.url}/list`)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('transfer-encoding'), 'chunked')
  assert.equal(res.headers.get('content-length'), null)
  assert.equal(res.headers.get('etag'), '"v1"')
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
  assert.equal(await res.text(), json(200, { items: batches.flat() }).body)
})

test('HEAD of a streamed route reads nothing of the stream', async (t) => {
  let read = false
  async function* never() {
    read = true
    yield [1]
  }
  const { served } = await start([
    { method: 'GET', path: '/list', handler: () => jsonStream(200, 'items', never()) },
  ])
  t.after(() => served.close())
  const res = await fetch(`${served.url}/list`, { method: 'HEAD' })
  assert.equal(res.status, 200)
  assert.equal(await res.text(), '')
  assert.equal(read, false)
})

test('a stream that fails after its first piece cuts the connection and logs the error, so no short list looks whole', async (t) => {
  async function* failing() {
    yield [{ n: 1 }]
    throw new Error('database went away')
  }
  const { served, lines, logger } = await start([
    { method: 'GET', path: '/list', handler: () => jsonStream(200, 'items', failing()) },
  ])
  t.after(() => served.close())
  // The headers may or may not have left before the cut; either way the client sees a failure.
  await assert.rejects(async () => (await fetch(`${served.url}/list`)).text())
  await until(() => {
    logger.flush()
    return lines.some((l) => l.startsWith('demo error: Error: database went away'))
  })
  assert.ok(
    lines.some((l) => /^demo GET \/list 200 /.test(l)),
    'the request is logged once it ends',
  )
})

test('a client that goes away mid-stream stops the reading', async (t) => {
  let pieces = 0
  let finished = false
  async function* endless() {
    try {
      while (true) {
        pieces++
        yield [{ filler: 'x'.repeat(64 * 1024) }]
      }
    } finally {
      finished = true
    }
  }
  const { served } = await start([
    { method: 'GET', path: '/list', handler: () => jsonStream(200, 'items', endless()) },
  ])
  t.after(() => served.close())
  const controller = new AbortController()
  const res = await fetch(`${served.url}/list`, { signal: controller.signal })
  const reader = res.body!.getReader()
  await reader.read()
  controller.abort()
  await until(() => finished)
  const after = pieces
  await new Promise((r) => setTimeout(r, 50))
  assert.equal(pieces, after, 'nothing is read once the client is gone')
})

const streamed: HttpRoute = {
  method: 'POST',
  path: '/stream',
  handler: async (req) => {
    let bytes = 0
    let pieces = 0
    for await (const piece of req.bodyStream(1024 * 1024)) {
      bytes += piece.length
      pieces++
    }
    return json(200, { bytes, pieces })
  },
}

test('bodyStream hands a body over in pieces as it arrives, up to its limit', async (t) => {
  const { served } = await start([streamed])
  t.after(() => served.close())
  const res = await fetch(`${served.url}/stream`, {
    method: 'POST',
    body: new Uint8Array(1024 * 1024),
  })
  assert.equal(res.status, 200)
  const got = (await res.json()) as { bytes: number; pieces: number }
  assert.equal(got.bytes, 1024 * 1024)
  assert.ok(got.pieces > 1, `${got.pieces} pieces`)
})

test('bodyStream refuses a declared length over its limit unread, and a chunked body as soon as it passes it', async (t) => {
  const { served } = await start([streamed])
  t.after(() => served.close())
  const declared = await fetch(`${served.url}/stream`, {
    method: 'POST',
    body: new Uint8Array(1024 * 1024 + 1),
  })
  assert.equal(declared.status, 413)
  assert.deepEqual(await declared.json(), { error: 'body too large' })
  const chunked = await new Promise<number>((resolve, reject) => {
    const req = rawRequest(`${served.url}/stream`, {
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked' },
    })
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', reject)
    const piece = new Uint8Array(64 * 1024)
    let sent = 0
    const write = () => {
      while (sent < 4 * 1024 * 1024) {
        sent += piece.length
        if (!req.write(piece)) return void req.once('drain', write)
      }
      req.end()
    }
    write()
  })
  assert.equal(chunked, 413)
})

test("makeRequest's bodyStream counts the bytes given, whatever Content-Length says", async () => {
  const req = makeRequest({
    method: 'POST',
    headers: { 'content-length': '3' },
    body: new Uint8Array(2 * 1024 * 1024),
  })
  await assert.rejects(
    async () => {
      for await (const _ of req.bodyStream(1024 * 1024)) void _
    },
    (err: unknown) => err instanceof Refusal && err.status === 413 && err.code === 'body_too_large',
  )
  let total = 0
  for await (const piece of makeRequest({ method: 'POST', body: new Uint8Array(100) }).bodyStream(
    1024,
  ))
    total += piece.length
  assert.equal(total, 100)
})
