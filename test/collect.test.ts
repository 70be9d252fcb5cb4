/**
 * The full collection after a mass answer (src/collect.ts): it runs once thousands of requests
 * were answered together, not for fewer, and at most once every few seconds.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { answeredMany, collections, MASS_ANSWER } from '../src/collect.ts'

const turn = () => new Promise((resolve) => setTimeout(resolve, 50))

test('fewer answers than a mass answer collect nothing; a mass answer collects once, right after, and the next not at once', async () => {
  const before = collections()
  answeredMany(MASS_ANSWER - 1)
  await turn()
  assert.equal(collections(), before)
  const heap = process.memoryUsage().heapUsed
  answeredMany(MASS_ANSWER)
  await turn()
  assert.equal(collections(), before + 1)
  assert.ok(process.memoryUsage().heapUsed <= heap + 1024 * 1024, 'the heap was collected')
  // A second mass answer right after waits for the spacing (5 s), so a storm of events costs
  // one collection every few seconds.
  answeredMany(MASS_ANSWER)
  await turn()
  assert.equal(collections(), before + 1)
})
