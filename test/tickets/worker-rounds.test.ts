import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRounds, REST_AFTER_FAILURE_MS } from '../../src/tickets/workers/rounds.ts'

/** Rounds on a clock the test moves; each round fails while `failing` says so. */
function worker() {
  const state = { now: 0, failing: false, ran: 0, failures: [] as string[] }
  const rounds = createRounds({
    round: async () => {
      state.ran++
      if (state.failing) throw new Error('the database is down')
    },
    failed: (err) => state.failures.push(err.message),
    now: () => state.now,
  })
  return { state, rounds }
}

test('after a failed round, pokes start no round until the rest is over', async () => {
  const { state, rounds } = worker()
  state.failing = true
  rounds.poke()
  await rounds.settled()
  assert.equal(state.ran, 1)
  assert.deepEqual(state.failures, ['the database is down'])

  state.now += REST_AFTER_FAILURE_MS - 1
  rounds.poke()
  await rounds.settled()
  assert.equal(state.ran, 1, 'a poke within the rest ran a round')

  state.now += 1
  state.failing = false
  rounds.poke()
  await rounds.settled()
  assert.equal(state.ran, 2, 'the first poke after the rest ran no round')
})

test('rounds that succeed run at every poke, and a poke during a round runs one more after it', async () => {
  let release!: () => void
  let ran = 0
  const rounds = createRounds({
    round: async () => {
      ran++
      if (ran === 1) await new Promise<void>((resolve) => (release = resolve))
    },
    failed: () => assert.fail('no round fails'),
  })
  rounds.poke()
  rounds.poke()
  rounds.poke()
  release()
  await rounds.settled()
  assert.equal(ran, 2, 'pokes during a round make one round after it')
  rounds.poke()
  await rounds.settled()
  assert.equal(ran, 3)
})

test('a failed round does not run again at once for the pokes it gathered', async () => {
  const { state, rounds } = worker()
  state.failing = true
  rounds.poke()
  rounds.poke()
  await rounds.settled()
  assert.equal(state.ran, 1)
})

test('after stop no round starts', async () => {
  const { state, rounds } = worker()
  await rounds.stop()
  rounds.poke()
  await rounds.settled()
  assert.equal(state.ran, 0)
  assert.equal(rounds.stopped, true)
})
