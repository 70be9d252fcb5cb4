/**
 * The inbox's lists read their order from `inbox_rows` (sql/0042), kept by statement triggers:
 * the page follows a person's comments, state changes, due days and assignments, and the rows
 * match the tickets after 8 writers mixing single and bulk statements.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TransactionSql } from '../../src/db/client.ts'
import { prng } from '../support/prng.ts'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')

/** The subjects an inbox list shows, by its accessible name. */
async function listed(label: string): Promise<string[]> {
  const answer = await app.call('GET', '/inbox', { headers: { cookie: alice.cookie } })
  assert.equal(answer.status, 200, answer.text)
  const list = new RegExp(`<ul class="tickets[^"]*" aria-label="${label}">([\\s\\S]*?)</ul>`).exec(
    answer.text,
  )
  if (list === null) return []
  return [...list[1]!.matchAll(/<a class="subject" href="[^"]+">([\s\S]*?)<\/a>/g)].map((m) =>
    m[1]!.replace(/<[^>]+>/g, '').trim(),
  )
}

/** The inbox rows that differ from what the tickets say they should be. */
async function wrongRows(): Promise<unknown[]> {
  return [
    ...(await app.sql`
      with wanted as (
        select id as ticket_id, assignee_id, case when state = 'review' then 'review' else 'pending' end as list,
          coalesce(due - date '1970-01-01', 2147483647) as due_key, updated, number
        from tickets where assignee_id is not null and state in ('open', 'doing', 'review'))
      (select * from wanted except select * from inbox_rows)
      union all
      (select * from inbox_rows except select * from wanted)`),
  ]
}

test('the inbox follows comments, state changes, due days and assignments', async () => {
  const p = await app.project(alice, 'Inbox order')
  await app.member(alice, p.slug, bob, 'edit')
  const on = (n: number, what: string, body: Record<string, unknown>) =>
    app.call('POST', `/api/projects/${p.slug}/tickets/${n}/${what}`, { token: bob.token, body })
  const made = []
  for (const subject of ['first', 'second', 'third', 'fourth']) {
    const t = await app.ticket(alice, p.slug, { subject, assignee: 'alice' })
    made.push(t.number)
    app.clock.advance(1000)
  }
  assert.deepEqual(await listed('Waiting for you'), ['fourth', 'third', 'second', 'first'])
  assert.equal((await on(made[0]!, 'comments', { text: 'A word on the first.' })).status, 201)
  assert.equal((await listed('Waiting for you'))[0], 'first', 'a comment brings it up')
  assert.equal((await on(made[2]!, 'due', { due: '2030-01-01' })).status, 201)
  assert.equal((await listed('Waiting for you'))[0], 'third', 'a due day comes before none')
  assert.equal((await on(made[1]!, 'state', { state: 'review' })).status, 201)
  assert.deepEqual(await listed('In review'), ['second'])
  assert.equal((await on(made[3]!, 'assign', { assignee: 'bob' })).status, 201)
  assert.equal((await on(made[0]!, 'state', { state: 'done' })).status, 201)
  assert.deepEqual(await listed('Waiting for you'), ['third'])
  assert.deepEqual(await wrongRows(), [])
})

test('the inbox rows match the tickets after 8 writers mixing single and bulk inserts, comments, state changes, assignments and deletes', async () => {
  const p = await app.project(alice, 'Inbox busy')
  const people = [alice.id, bob.id, null]
  const states = ['open', 'doing', 'review', 'done', 'dropped']
  const writers = app.db.connect(8)
  const write = async (w: number) => {
    const random = prng(w + 201)
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!
    let next = w * 1_000_000
    const mine = (sql: TransactionSql) => sql`
      select id from tickets where project_id = ${p.id} and number between ${w * 1_000_000} and ${w * 1_000_000 + 999_999}
      order by random() limit ${1 + Math.floor(random() * 30)}`
    for (let round = 0; round < 40; round++) {
      const kind = Math.floor(random() * 7)
      await writers.begin(async (tx) => {
        if (kind === 0) {
          await tx`insert into tickets (project_id, number, subject, state, assignee_id, created, updated)
            values (${p.id}, ${++next}, 'one', ${pick(states)}, ${pick(people)}, 1, 1)`
        } else if (kind === 1) {
          const n = 20 + Math.floor(random() * 200)
          await tx`
            insert into tickets (project_id, number, subject, state, assignee_id, due, created, updated)
            select ${p.id}, ${next} + i, 'many', (array['open', 'doing', 'review', 'done', 'dropped'])[1 + i % 5],
              (array[${alice.id}, ${bob.id}, null])[1 + i % 3], case when i % 4 = 0 then date '2030-01-01' + i end, i, i
            from generate_series(1, ${n}::int) i`
          next += n
        } else if (kind === 2) {
          await tx`update tickets set state = ${pick(states)} where id in (${mine(tx)})`
        } else if (kind === 3) {
          await tx`update tickets set assignee_id = ${pick(people)} where id in (${mine(tx)})`
        } else if (kind === 4) {
          // A comment: the last change moves.
          const [one] = await mine(tx)
          if (one)
            await tx`update tickets set updated = updated + ${1 + round} where id = ${one.id}`
        } else if (kind === 5) {
          await tx`update tickets set due = case when due is null then date '2031-01-01' end where id in (${mine(tx)})`
        } else {
          await tx`delete from tickets where id in (${mine(tx)})`
        }
        if (random() < 0.3)
          await tx`update tickets set updated = updated + 7 where id in (${mine(tx)})`
      })
    }
  }
  await Promise.all(Array.from({ length: 8 }, (_, w) => write(w)))
  const [held] = await app.sql<{ n: number }[]>`select count(*)::int as n from inbox_rows`
  assert.ok(held!.n > 0)
  assert.deepEqual(await wrongRows(), [])
})
