/**
 * The request log (src/base/log.ts): lines are batched and written together, in order, whole,
 * whatever their length or script.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLogger, requestLine } from '../src/base/log.ts'
import { until } from './support/wait.ts'

/** A logger whose writes are kept. */
function recorded() {
  const writes: string[] = []
  const logger = createLogger({ write: (chunk: string) => writes.push(chunk) })
  return { logger, writes, text: () => writes.join('') }
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
  await until(() => text() !== '')
  assert.equal(text(), 'tickets POST /api/projects 201 3.2ms\n')
})

test('text in any script keeps its characters', () => {
  const { logger, text } = recorded()
  logger.line('notes error: Ünïcödé — 日本語 😀')
  logger.flush()
  assert.equal(text(), 'notes error: Ünïcödé — 日本語 😀\n')
})

test('a busy log is written before the flush, in order and whole', () => {
  const { logger, writes, text } = recorded()
  const lines = Array.from(
    { length: 5_000 },
    (_, i) => `notes GET /api/notes/${i} 200 ${i % 10}.${i % 7}ms`,
  )
  for (const line of lines) logger.line(line)
  assert.ok(
    writes.length >= 2,
    `queued lines were written before the flush (${writes.length} writes)`,
  )
  logger.flush()
  assert.equal(text(), lines.map((l) => l + '\n').join(''))
})

test('a long line (a stack trace) is written whole, between the lines around it', () => {
  const { logger, text } = recorded()
  const trace = 'tickets error: Error: boom\n' + '    at somewhere (file.ts:1:1)\n'.repeat(5_000)
  logger.line('tickets GET / 200 1.0ms')
  logger.line(trace)
  logger.line('tickets GET / 200 1.1ms')
  logger.flush()
  assert.equal(text(), `tickets GET / 200 1.0ms\n${trace}\ntickets GET / 200 1.1ms\n`)
})

test('a request line reads: service, method, path, status and the time in milliseconds to a tenth', () => {
  assert.equal(requestLine('notes', 'GET', '/api/me', 200, 0.31), 'notes GET /api/me 200 0.3ms')
  assert.equal(
    requestLine('tickets', 'POST', '/api/projects/web/tickets', 201, 123.44),
    'tickets POST /api/projects/web/tickets 201 123.4ms',
  )
  assert.equal(
    requestLine('notes', 'GET', '/api/live', 204, 30000.7),
    'notes GET /api/live 204 30000.7ms',
  )
  assert.equal(requestLine('notes', 'HEAD', '/', 404, 0), 'notes HEAD / 404 0.0ms')
})
