import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TransactionSql } from '../../src/db/client.ts'
import { prng } from '../support/prng.ts'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')

/** The tickets per state the `ticket_counts` rows add up to, for one project. */
async function summed(projectId: string): Promise<Record<string, number>> {
  const rows = await app.sql<{ state: string; n: number }[]>`
    select state, sum(count)::int as n from ticket_counts where project_id = ${projectId} group by state having sum(count) <> 0`
  return Object.fromEntries(rows.map((r) => [r.state, r.n]))
}

/** The tickets per state, counted. */
async function counted(projectId: string): Promise<Record<string, number>> {
  const rows = await app.sql<{ state: string; n: number }[]>`
    select state, count(*)::int as n from tickets where project_id = ${projectId} group by state`
  return Object.fromEntries(rows.map((r) => [r.state, r.n]))
}

/** The waiting tickets (open, doing, review) per state the `inbox_counts` rows add up to, for one person. */
async function inboxSummed(userId: string): Promise<Record<string, number>> {
  const rows = await app.sql<{ state: string; n: number }[]>`
    select state, sum(count)::int as n from inbox_counts where assignee_id = ${userId} group by state having sum(count) <> 0`
  return Object.fromEntries(rows.map((r) => [r.state, r.n]))
}

/** The waiting tickets per state, counted. */
async function inboxCounted(userId: string): Promise<Record<string, number>> {
  const rows = await app.sql<{ state: string; n: number }[]>`
    select state, count(*)::int as n from tickets
    where assignee_id = ${userId} and state in ('open', 'doing', 'review') group by state`
  return Object.fromEntries(rows.map((r) => [r.state, r.n]))
}

/** How many `ticket_counts` rows a project has. */
async function countRows(projectId: string): Promise<number> {
  const [row] = await app.sql<
    { rows: number }[]
  >`select count(*)::int as rows from ticket_counts where project_id = ${projectId}`
  return row!.rows
}

/** The number a project page's tab shows. */
function tab(page: string, label: string): number {
  const m = new RegExp(`>${label}<span class="n">(\\d+)</span>`).exec(page)
  assert.ok(m, `no ${label} tab in the page`)
  return Number(m[1])
}

test('the state tabs count every ticket after more writes than one fold of the counts', async () => {
  const p = await app.project(alice, 'Counted')
  const made = []
  for (let i = 0; i < 70; i++) made.push(await app.ticket(alice, p.slug))
  for (const t of made.slice(0, 12)) {
    const moved = await app.call('POST', `/api/projects/${p.slug}/tickets/${t.number}/state`, {
      token: alice.token,
      body: { state: 'doing' },
    })
    assert.equal(moved.status, 201, moved.text)
  }
  for (const t of made.slice(0, 5)) {
    const moved = await app.call('POST', `/api/projects/${p.slug}/tickets/${t.number}/state`, {
      token: alice.token,
      body: { state: 'done' },
    })
    assert.equal(moved.status, 201, moved.text)
  }
  assert.deepEqual(await summed(p.id), { open: 58, doing: 7, done: 5 })
  assert.deepEqual(await summed(p.id), await counted(p.id))
  // 99 changes were added one row each; the folds left fewer rows than that.
  const rows = await countRows(p.id)
  assert.ok(rows < 99 - 31, `${rows} rows`)
  const page = (await app.call('GET', `/${p.slug}`)).text
  assert.equal(tab(page, 'Active'), 65)
  assert.equal(tab(page, 'Open'), 58)
  assert.equal(tab(page, 'Doing'), 7)
  assert.equal(tab(page, 'Done'), 5)
  assert.equal(tab(page, 'All'), 70)
})

test('deleting a project deletes its counts with its tickets', async () => {
  const p = await app.project(alice, 'Short-lived')
  for (let i = 0; i < 3; i++) await app.ticket(alice, p.slug)
  await app.sql`delete from projects where id = ${p.id}`
  const rows = await countRows(p.id)
  assert.equal(rows, 0)
})

/** The blockers of each ticket that are neither done nor dropped, counted from `blockers`. */
async function openBlockersWrong(): Promise<unknown[]> {
  return [
    ...(await app.sql`
    select t.id, t.open_blockers, coalesce(c.n, 0)::int as counted from tickets t
    left join (select x.ticket_id, count(*) as n from blockers x join tickets b on b.id = x.blocker_id
      where b.state in ('open', 'doing', 'review') group by x.ticket_id) c on c.ticket_id = t.id
    where t.open_blockers <> coalesce(c.n, 0)`),
  ]
}

test('the counts stay right under 8 writers mixing single and bulk inserts, state changes, assignments, moves and deletes', async () => {
  const here = await app.project(alice, 'Busy')
  const there = await app.project(alice, 'Busier')
  const projects = [here.id, there.id]
  const states = ['open', 'doing', 'review', 'done', 'dropped']
  const people = [alice.id, (await app.login('bert')).id, (await app.login('cleo')).id]
  const assignees = [...people, null]
  const writers = app.db.connect(8)
  const write = async (w: number) => {
    const random = prng(w + 1)
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!
    // Each writer numbers its own tickets, so two writers' numbers never meet in a project.
    let next = w * 1_000_000
    const mine = (sql: TransactionSql, p: string) => sql`
      select id from tickets where project_id = ${p} and number between ${w * 1_000_000} and ${w * 1_000_000 + 999_999}
      order by random() limit ${1 + Math.floor(random() * 30)}`
    for (let round = 0; round < 40; round++) {
      const p = pick(projects)
      const q = pick(projects)
      const kind = Math.floor(random() * 8)
      await writers.begin(async (tx) => {
        if (kind === 0) {
          await tx`insert into tickets (project_id, number, subject, state, assignee_id, created, updated) values (${p}, ${++next}, 'one', ${pick(states)}, ${pick(assignees)}, 1, 1)`
        } else if (kind === 1) {
          const n = 20 + Math.floor(random() * 200)
          await tx`
            insert into tickets (project_id, number, subject, state, assignee_id, created, updated)
            select ${p}, ${next} + i, 'many', (array['open', 'doing', 'review', 'done', 'dropped'])[1 + i % 5],
              (${people}::text[])[1 + i % 4], 1, 1
            from generate_series(1, ${n}::int) i`
          next += n
        } else if (kind === 2) {
          await tx`update tickets set state = ${pick(states)} where id in (${mine(tx, p)})`
        } else if (kind === 3) {
          const [one] = await mine(tx, p)
          if (one)
            await tx`update tickets set state = ${pick(states)}, assignee_id = ${pick(assignees)} where id = ${one.id}`
        } else if (kind === 4) {
          await tx`update tickets set project_id = ${q}, state = ${pick(states)} where id in (${mine(tx, p)})`
        } else if (kind === 5) {
          await tx`delete from tickets where id in (${mine(tx, p)})`
        } else if (kind === 6) {
          const some = await mine(tx, p)
          for (let i = 1; i < some.length; i++) {
            await tx`insert into blockers (ticket_id, blocker_id) values (${some[i - 1]!.id}, ${some[i]!.id}) on conflict do nothing`
          }
        } else {
          await tx`delete from blockers where ticket_id in (${mine(tx, p)})`
        }
        // Some transactions write twice, so a later statement sees the earlier one's counting rows.
        if (random() < 0.3)
          await tx`update tickets set state = ${pick(states)} where id in (${mine(tx, q)})`
      })
    }
  }
  await Promise.all(Array.from({ length: 8 }, (_, w) => write(w)))
  for (const p of projects) assert.deepEqual(await summed(p), await counted(p))
  assert.ok(Object.keys(await counted(here.id)).length > 0)
  for (const person of people)
    assert.deepEqual(await inboxSummed(person), await inboxCounted(person), 'the inbox counts')
  assert.ok(Object.keys(await inboxCounted(people[1]!)).length > 0)
  assert.deepEqual(await openBlockersWrong(), [])
})

test('a statement changing the states of many blocking tickets keeps the blocked ones right', async () => {
  const p = await app.project(alice, 'Blocked')
  const made = await app.sql<{ id: string }[]>`
    insert into tickets (project_id, number, subject, created, updated)
    select ${p.id}, i, 'blocking', 1, 1 from generate_series(1, 300) i returning id`
  await app.sql`
    insert into blockers (ticket_id, blocker_id)
    select a.id, b.id from tickets a join tickets b on b.project_id = a.project_id and b.number in (a.number + 1, a.number + 2)
    where a.project_id = ${p.id}`
  const [blocked] =
    await app.sql`select count(*)::int as n from tickets where project_id = ${p.id} and open_blockers = 2`
  assert.equal(blocked!.n, 298)
  await app.sql`update tickets set state = 'done' where project_id = ${p.id} and number % 2 = 0`
  await app.sql`update tickets set state = 'review' where project_id = ${p.id} and number % 4 = 0`
  assert.deepEqual(await openBlockersWrong(), [])
  assert.equal(made.length, 300)
  assert.deepEqual(await summed(p.id), await counted(p.id))
})
