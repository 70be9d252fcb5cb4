/**
 * Statements built once per shape (src/shaped.ts): the text written out is the one postgres.js
 * sends for the same fragments, each run fills the slots with its own values, and the shapes
 * kept are bounded.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import postgres from 'postgres'
import { shapedStatements, writeOut } from '../src/shaped.ts'
import { testDatabase } from './support/db.ts'

const db = await testDatabase()
const { sql } = db

/** What postgres.js itself sends for a fragment: its text and values, seen by its `debug` hook. */
async function sentBy(build: (q: postgres.Sql) => postgres.PendingQuery<postgres.Row[]>): Promise<{ text: string; values: unknown[] }> {
  let seen: { text: string; values: unknown[] } | null = null
  const client = postgres(db.url, { max: 1, onnotice: () => {}, connection: { search_path: db.schema }, debug: (_c, text, values) => (seen = { text, values }) })
  try {
    await build(client)
    return seen ?? assert.fail('postgres.js sent nothing')
  } finally {
    await client.end({ timeout: 5 })
  }
}

test('a statement is written out as postgres.js writes it: nested fragments, lists of fragments, in-lists, values', async () => {
  const build = (q: postgres.Sql) => {
    const states = ['open', 'doing']
    const condition = q`s.state in ${q(states)} and s.n > ${2}`
    const columns = [q`s.n`, q`, s.state`]
    return q`select ${columns} from (values (1, 'open'), (3, 'doing'), (4, null)) as s (n, state)
      where ${condition} and (${null}::text is null or s.state = ${"it's"}) ${q`order by ${q`s.n`} desc`}`
  }
  const ours = writeOut(sql, build(sql) as never)
  const theirs = await sentBy(build)
  assert.equal(ours.text, theirs.text)
  // postgres.js has serialized its values by the time its hook sees them.
  const serialized = (values: unknown[]) => values.map((v) => (v === null ? null : String(v)))
  assert.deepEqual(serialized(ours.values), serialized(theirs.values))
  assert.deepEqual(ours.values, ['open', 'doing', 2, null, "it's"])
})

test('each run of a shape fills its slots with its own values, and the shape is built once', async () => {
  const shapes = shapedStatements(sql)
  let built = 0
  const add = (a: number, word: string | null) =>
    shapes.run<{ n: number; word: string | null }[], { a: number; word: string | null }>('add', { a, word }, (v) => {
      built++
      return sql`select ${v.a}::int + ${10} as n, ${v.word}::text as word`
    })
  assert.deepEqual([...(await add(1, 'one'))], [{ n: 11, word: 'one' }])
  assert.deepEqual([...(await add(5, null))], [{ n: 15, word: null }])
  assert.deepEqual([...(await add(-3, "it's"))], [{ n: 7, word: "it's" }])
  assert.equal(built, 1)
})

test('a value fixed by the shape stays in it: a second shape is built for another', async () => {
  const shapes = shapedStatements(sql)
  const times = (k: number) => shapes.run<{ n: number }[], { a: number }>(`times ${k}`, { a: 3 }, (v) => sql`select ${v.a}::int * ${k}::int as n`)
  assert.equal((await times(2))[0]!.n, 6)
  assert.equal((await times(7))[0]!.n, 21)
  assert.equal(shapes.size, 2)
})

test('at most the given number of shapes are kept, the oldest dropped first', async () => {
  const shapes = shapedStatements(sql, 2)
  let built = 0
  const one = (name: string) => shapes.run<{ n: number }[], { a: number }>(name, { a: 1 }, (v) => (built++, sql`select ${v.a}::int as n`))
  await one('a')
  await one('b')
  await one('c')
  assert.equal(shapes.size, 2)
  await one('c')
  assert.equal(built, 3)
  await one('a')
  assert.equal(built, 4, 'the oldest shape was dropped and built again')
})

test('an identifier is refused rather than sent as a value', () => {
  assert.throws(() => writeOut(sql, sql`select * from ${sql('users')}` as never), /identifier/)
})
