/**
 * The request log (src/log.ts): lines are batched into bytes and written together, in order,
 * whole, whatever their length or script.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLogger } from '../src/log.ts'

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
