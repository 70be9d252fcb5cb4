/**
 * The request log (src/log.ts): lines are batched into bytes and written together, in order,
 * whole, whatever their length or script.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLogger, requestLine } from '../src/log.ts'

/** A logger whose writes are kept, each as the bytes it was given at the time and decoded. */
function recorded() {
  const writes: Uint8Array[] = []
  const logger = createLogger({ write: (chunk: Uint8Array) => writes.push(chunk) })
  const text = () => writes.map((w) => Buffer.from(w).toString('utf8')).join('')
  return { logger, writes, text }
}

test('lines are written together, in order, once flushed', () => {
  const { logger, writes, text } = recorded()
  logger.line('notes GET /api/me 200 0.1ms')
  logger.line('notes GET /healthz 200 0.2ms')
  assert.equal(writes.length, 0, 'nothing is written per line')
  logger.flush()
  assert.equal(writes.length, 1)
  assert.equal(text(), 'notes GET /api/me 200 0.1ms\nnotes GET /healthz 200 0.2ms\n')
  logger.flush()
  assert.equal(writes.length, 1, 'an empty flush writes nothing')
})

test('queued lines reach the output on their own within a moment', async () => {
  const { logger, text } = recorded()
  logger.line('tickets POST /api/projects 201 3.2ms')
  await new Promise((resolve) => setTimeout(resolve, 120))
  assert.equal(text(), 'tickets POST /api/projects 201 3.2ms\n')
})

test('text in any script keeps its characters', () => {
  const { logger, text } = recorded()
  logger.line('notes error: Ünïcödé — 日本語 😀')
  logger.flush()
  assert.equal(text(), 'notes error: Ünïcödé — 日本語 😀\n')
})

test('a busy log fills its buffer and writes it, and bytes written once are never changed by later lines', () => {
  const { logger, writes, text } = recorded()
  const lines = Array.from({ length: 5_000 }, (_, i) => `notes GET /api/notes/${i} 200 ${i % 10}.${i % 7}ms`)
  for (const line of lines) logger.line(line)
  assert.ok(writes.length >= 2, `a full buffer was written before the flush (${writes.length} writes)`)
  const first = Buffer.from(writes[0]!).toString('utf8')
  logger.flush()
  assert.equal(Buffer.from(writes[0]!).toString('utf8'), first)
  assert.equal(text(), lines.map((l) => l + '\n').join(''))
})

test('a line longer than the buffer (a long stack trace) is written whole, after the lines before it', () => {
  const { logger, text } = recorded()
  const trace = 'tickets error: Error: boom\n' + '    at somewhere (file.ts:1:1)\n'.repeat(5_000)
  logger.line('tickets GET / 200 1.0ms')
  logger.line(trace)
  logger.line('tickets GET / 200 1.1ms')
  logger.flush()
  assert.equal(text(), `tickets GET / 200 1.0ms\n${trace}\ntickets GET / 200 1.1ms\n`)
})

test('a request line reads: service, method, path, status and the time in milliseconds to a tenth', () => {
  const { logger, text } = recorded()
  logger.request('notes', 'GET', '/api/me', 200, 3)
  logger.request('tickets', 'POST', '/api/projects/web/tickets', 201, 1234)
  logger.request('notes', 'GET', '/api/live', 204, 300_007)
  logger.request('notes', 'HEAD', '/', 404, 0)
  logger.flush()
  assert.equal(
    text(),
    'notes GET /api/me 200 0.3ms\ntickets POST /api/projects/web/tickets 201 123.4ms\nnotes GET /api/live 204 30000.7ms\nnotes HEAD / 404 0.0ms\n',
  )
})

test('a request line is the same text requestLine() gives, whatever its parts', () => {
  const cases: [string, string, string, number, number][] = [
    ['notes', 'GET', '/api/notes/%E2%82%AC', 200, 9],
    ['notes', 'GET', '/caf\u00e9', 200, 10],
    ['tickets', 'GET', '/\u65e5\u672c', 500, 99],
    ['notes', 'PATCH', '', 405, 100],
    ['notes', 'GET', '/x', 200, Number.MAX_SAFE_INTEGER],
    ['notes', 'GET', '/x', 200, 1.5],
    ['notes', 'GET', '/x', 200, -1],
    ['notes', 'GET', '/x', 200, NaN],
  ]
  const { logger, text } = recorded()
  for (const [service, method, path, status, tenths] of cases) logger.request(service, method, path, status, tenths)
  logger.flush()
  assert.equal(text(), cases.map((c) => requestLine(...c) + '\n').join(''))
})

test('request lines and other lines keep their order, across a full buffer', () => {
  const { logger, writes, text } = recorded()
  const expected: string[] = []
  for (let i = 0; i < 5_000; i++) {
    if (i % 100 === 0) {
      const line = `notes error: Ünïcödé ${i}`
      logger.line(line)
      expected.push(line)
    }
    logger.request('notes', 'GET', `/api/notes/${i}`, 200, i)
    expected.push(requestLine('notes', 'GET', `/api/notes/${i}`, 200, i))
  }
  logger.flush()
  assert.ok(writes.length >= 2, `a full buffer was written before the flush (${writes.length} writes)`)
  assert.equal(text(), expected.map((l) => l + '\n').join(''))
})

test('a request line with a path longer than the buffer is written whole', () => {
  const { logger, text } = recorded()
  const path = '/' + 'a'.repeat(70 * 1024)
  logger.request('notes', 'GET', '/before', 200, 1)
  logger.request('notes', 'GET', path, 414, 2)
  logger.flush()
  assert.equal(text(), `notes GET /before 200 0.1ms\nnotes GET ${path} 414 0.2ms\n`)
})
