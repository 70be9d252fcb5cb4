/**
 * The full collection after a mass answer (src/base/collect.ts): it runs once thousands of requests
 * were answered together, not for fewer, and a storm of mass answers is collected at most every
 * half second (or ten pauses, when a pause is longer).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  collectAfterMassAnswer,
  collections,
  MASS_ANSWER,
  MIN_SPACING_MS,
} from '../src/base/collect.ts'
import { until } from './support/wait.ts'

const turn = () => new Promise((resolve) => setTimeout(resolve, 50))

test('fewer answers than a mass answer collect nothing; a mass answer collects once, right after; the next one waits its turn', async () => {
  const before = collections()
  collectAfterMassAnswer(MASS_ANSWER - 1)
  await turn()
  assert.equal(collections(), before)
  const heap = process.memoryUsage().heapUsed
  collectAfterMassAnswer(MASS_ANSWER)
  await until(() => collections() === before + 1)
  assert.ok(process.memoryUsage().heapUsed <= heap + 1024 * 1024, 'the heap was collected')
  // A second mass answer right after is collected once the spacing has passed, and a third
  // meanwhile adds nothing: a storm of events costs one collection a spacing.
  const second = performance.now()
  collectAfterMassAnswer(MASS_ANSWER)
  collectAfterMassAnswer(MASS_ANSWER)
  await turn()
  assert.equal(collections(), before + 1)
  await until(() => collections() === before + 2)
  assert.ok(performance.now() - second >= MIN_SPACING_MS - 100, 'the second waited for the spacing')
  await turn()
  assert.equal(collections(), before + 2)
})
