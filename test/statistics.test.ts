// Test alone on PostgreSQL: its vacuum must reclaim deleted rows, which it may not while another
// session's older transaction could still see them (another test file's, on the shared server).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { testDatabase } from './support/db.ts'
import { until } from './support/wait.ts'
import { vacuumHourly } from '../src/db/vacuum.ts'

const db = await testDatabase()

/** What the planner believes a table holds: -1 until it is first analysed. */
async function plannerRows(table: string): Promise<number> {
  const [row] =
    await db.sql`select reltuples::int as n from pg_class where oid = ${`${db.schema}.${table}`}::regclass`
  return row!.n as number
}

test('the planner learns what a table holds once the first analyze has run, and again at each later one', async () => {
  const lines: string[] = []
  await db.sql`create table kept (id int, text text)`
  await db.sql`insert into kept select i, 'row ' || i from generate_series(1, 1000) i`
  assert.equal(await plannerRows('kept'), -1, 'nothing told the planner yet')
  const statistics = vacuumHourly(
    db.sql,
    { line: (t) => lines.push(t), flush() {} },
    { first: 20, every: 200 },
  )
  try {
    await until(async () => (await plannerRows('kept')) === 1000)
    assert.equal(await plannerRows('kept'), 1000)
    await db.sql`insert into kept select i, 'row ' || i from generate_series(1001, 3000) i`
    await until(async () => (await plannerRows('kept')) === 3000)
    assert.equal(await plannerRows('kept'), 3000)
  } finally {
    await statistics.stop()
  }
  assert.deepEqual(lines, [])
})

test('the space of deleted rows is used again once the upkeep has run, so a table written and emptied over and over stops growing', async () => {
  const size = async () =>
    Number(
      (await db.sql`select pg_relation_size(${`${db.schema}.churn`}::regclass)::int8 as n`)[0]!.n,
    )
  await db.sql`create table churn (id int, text text)`
  await db.sql`insert into churn select i, repeat('x', 200) from generate_series(1, 2000) i`
  const full = await size()
  await db.sql`delete from churn`
  const statistics = vacuumHourly(db.sql, { line() {}, flush() {} }, { first: 1, every: 60_000 })
  try {
    await until(async () => (await plannerRows('churn')) === 0)
    assert.equal(await plannerRows('churn'), 0)
  } finally {
    await statistics.stop()
  }
  await db.sql`insert into churn select i, repeat('y', 200) from generate_series(1, 2000) i`
  assert.equal(await size(), full, 'the new rows went where the deleted ones were')
})

test('a failed vacuum is logged, and the timer stops when asked', async () => {
  const lines: string[] = []
  const failing = Object.assign(
    () => Promise.reject(new Error('the database went away')),
    {},
  ) as unknown as typeof db.sql
  const statistics = vacuumHourly(
    failing,
    { line: (t) => lines.push(t), flush() {} },
    { first: 1, every: 10_000 },
  )
  await until(() => lines.length > 0)
  await statistics.stop()
  assert.deepEqual(lines, ['database: vacuum failed: the database went away'])
})

test('a vacuum slower than the interval is not overlapped by the next, and none starts after stop', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  let now = 0
  let most = 0
  let calls = 0
  const finish: (() => void)[] = []
  const slow = Object.assign(() => {
    calls++
    most = Math.max(most, ++now)
    return new Promise<void>((resolve) =>
      finish.push(() => {
        now--
        resolve()
      }),
    )
  }, {}) as unknown as typeof db.sql
  const statistics = vacuumHourly(slow, { line() {}, flush() {} }, { first: 1, every: 5 })
  t.mock.timers.tick(1)
  assert.equal(calls, 1)
  // The first run takes ten intervals and more: no second one starts meanwhile.
  t.mock.timers.tick(60)
  assert.equal(calls, 1)
  finish.shift()!()
  // The next is armed once the first has ended (after its promise's turn), an interval later.
  await new Promise((resolve) => setImmediate(resolve))
  t.mock.timers.tick(4)
  assert.equal(calls, 1)
  t.mock.timers.tick(1)
  assert.equal(calls, 2, 'the next runs an interval after the first ended')
  const stopping = statistics.stop()
  finish.shift()!()
  await stopping
  t.mock.timers.tick(30)
  assert.equal(calls, 2)
  assert.equal(most, 1)
})
