/**
 * `GET /healthz`'s database check (src/db/client.ts, `createReadiness`): shared by the requests that
 * ask at once, a success kept for a quarter second, a failure never kept.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createReadiness, type Sql } from '../src/db/client.ts'

/** A stand-in for the client: counts `select 1`s, each answered (or refused) when told. */
function fakeDatabase() {
  const pending: { ok: () => void; fail: () => void }[] = []
  let asked = 0
  const sql = (() => {
    asked++
    return new Promise((resolve, reject) =>
      pending.push({
        ok: () => resolve([{ '?column?': 1 }]),
        fail: () => reject(new Error('connection refused')),
      }),
    )
  }) as unknown as Sql
  return { sql, pending, asked: () => asked }
}

test('requests asking at once share one check of the database, and all hear its answer', async () => {
  const db = fakeDatabase()
  const ready = createReadiness(db.sql)
  const answers = Promise.all(Array.from({ length: 50 }, () => ready()))
  assert.equal(db.asked(), 1)
  db.pending.shift()!.ok()
  assert.deepEqual(new Set(await answers), new Set([true]))
})

test('a success answers for a quarter second, then the database is asked again; a failure is not kept', async () => {
  const db = fakeDatabase()
  let now = 1000
  const ready = createReadiness(db.sql, { now: () => now })
  const first = ready()
  db.pending.shift()!.ok()
  assert.equal(await first, true)
  now += 200
  assert.equal(await ready(), true)
  assert.equal(db.asked(), 1, 'within 250 ms the success stands')
  now += 100
  const second = ready()
  assert.equal(db.asked(), 2, 'past 250 ms the database is asked again')
  db.pending.shift()!.fail()
  assert.equal(await second, false)
  const third = ready()
  assert.equal(db.asked(), 3, 'a failure is not kept: the next request asks again')
  db.pending.shift()!.ok()
  assert.equal(await third, true)
})

test('a database that does not answer within the deadline counts as not ready', async () => {
  const db = fakeDatabase()
  const ready = createReadiness(db.sql, { deadlineMs: 20 })
  assert.equal(await ready(), false)
})
