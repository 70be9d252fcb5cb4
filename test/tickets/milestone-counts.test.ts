/**
 * A milestone's progress is kept by statement triggers (sql/0038): the rows of `milestone_counts`
 * add up to its tickets, and its done or dropped ones, after single and bulk writes from 8
 * writers at once, and after a milestone's delete.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TransactionSql } from '../../src/db/client.ts'
import { prng } from '../support/prng.ts'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')

/** Each milestone's total and closed tickets as its `milestone_counts` rows add up, by id. */
async function summed(ids: string[]): Promise<Record<string, [number, number]>> {
  const rows = await app.sql<{ id: string; total: number; closed: number }[]>`
    select milestone_id::text as id, sum(total)::int as total, sum(closed)::int as closed
    from milestone_counts where milestone_id::text in ${app.sql(ids)}
    group by milestone_id having sum(total) <> 0 or sum(closed) <> 0`
  return Object.fromEntries(rows.map((r) => [r.id, [r.total, r.closed]]))
}

/** The same, counted from the tickets. */
async function counted(ids: string[]): Promise<Record<string, [number, number]>> {
  const rows = await app.sql<{ id: string; total: number; closed: number }[]>`
    select milestone_id::text as id, count(*)::int as total,
      (count(*) filter (where state in ('done', 'dropped')))::int as closed
    from tickets where milestone_id::text in ${app.sql(ids)} group by milestone_id`
  return Object.fromEntries(rows.map((r) => [r.id, [r.total, r.closed]]))
}

/** Makes a milestone through the API and answers its id. */
async function milestone(slug: string, title: string): Promise<string> {
  const made = await app.call('POST', `/api/projects/${slug}/milestones`, {
    token: alice.token,
    body: { title },
  })
  assert.equal(made.status, 201, made.text)
  const [row] = await app.sql<{ id: string }[]>`
    select m.id::text as id from milestones m join projects p on p.id = m.project_id
    where p.slug = ${slug} and m.title = ${title}`
  return row!.id
}

test('the milestone list shows each milestone’s progress after single changes through the API', async () => {
  const p = await app.project(alice, 'Progress')
  await milestone(p.slug, 'First')
  await milestone(p.slug, 'Second')
  const made = []
  for (let i = 0; i < 5; i++) made.push(await app.ticket(alice, p.slug))
  const on = (n: number, what: string, body: Record<string, string | null>) =>
    app.call('POST', `/api/projects/${p.slug}/tickets/${n}/${what}`, { token: alice.token, body })
  for (const t of made)
    assert.equal((await on(t.number, 'milestone', { milestone: 'First' })).status, 201)
  assert.equal((await on(made[0]!.number, 'state', { state: 'done' })).status, 201)
  assert.equal((await on(made[1]!.number, 'state', { state: 'dropped' })).status, 201)
  assert.equal((await on(made[2]!.number, 'milestone', { milestone: 'Second' })).status, 201)
  assert.equal((await on(made[0]!.number, 'state', { state: 'review' })).status, 201)
  const list = await app.call('GET', `/api/projects/${p.slug}/milestones`)
  assert.equal(list.status, 200, list.text)
  const progress = Object.fromEntries(
    (list.body as { milestones: { title: string; progress: unknown }[] }).milestones.map((m) => [
      m.title,
      m.progress,
    ]),
  )
  assert.deepEqual(progress, {
    First: { closed: 1, total: 4 },
    Second: { closed: 0, total: 1 },
  })
  const page = await app.call('GET', `/${p.slug}/milestones`, {
    headers: { cookie: alice.cookie },
  })
  assert.equal(page.status, 200)
  assert.match(page.text, /1 of 4 tickets closed \(25%\)/)
  assert.match(page.text, /0 of 1 ticket closed \(0%\)/)
})

test('deleting a milestone deletes its counts, and its tickets count for no milestone', async () => {
  const p = await app.project(alice, 'Gone')
  const id = await milestone(p.slug, 'Short-lived')
  await app.sql`
    insert into tickets (project_id, number, subject, state, milestone_id, created, updated)
    select ${p.id}, i, 'with a milestone', 'open', ${id}, 1, 1 from generate_series(1, 40) i`
  assert.deepEqual(await summed([id]), { [id]: [40, 0] })
  await app.sql`delete from milestones where id = ${id}`
  const [left] = await app.sql<
    { n: number }[]
  >`select count(*)::int as n from milestone_counts where milestone_id = ${id}`
  assert.equal(left!.n, 0)
})

test('the progress stays right under 8 writers mixing single and bulk inserts, state and milestone changes, moves and deletes', async () => {
  const here = await app.project(alice, 'Milestones busy')
  const there = await app.project(alice, 'Milestones busier')
  const projects = [here.id, there.id]
  const ids = [
    await milestone(here.slug, 'a'),
    await milestone(here.slug, 'b'),
    await milestone(there.slug, 'c'),
  ]
  const doomed = await milestone(there.slug, 'doomed')
  const states = ['open', 'doing', 'review', 'done', 'dropped']
  const writers = app.db.connect(8)
  const write = async (w: number) => {
    const random = prng(w + 101)
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!
    const maybe = () => (random() < 0.2 ? null : pick(ids))
    let next = w * 1_000_000
    const mine = (sql: TransactionSql, p: string) => sql`
      select id from tickets where project_id = ${p} and number between ${w * 1_000_000} and ${w * 1_000_000 + 999_999}
      order by random() limit ${1 + Math.floor(random() * 30)}`
    for (let round = 0; round < 40; round++) {
      const p = pick(projects)
      const q = pick(projects)
      const kind = Math.floor(random() * 7)
      await writers.begin(async (tx) => {
        if (kind === 0) {
          await tx`insert into tickets (project_id, number, subject, state, milestone_id, created, updated)
            values (${p}, ${++next}, 'one', ${pick(states)}, ${maybe()}, 1, 1)`
        } else if (kind === 1) {
          const n = 20 + Math.floor(random() * 200)
          await tx`
            insert into tickets (project_id, number, subject, state, milestone_id, created, updated)
            select ${p}, ${next} + i, 'many', (array['open', 'doing', 'review', 'done', 'dropped'])[1 + i % 5],
              (array[${ids[0]!}, ${ids[1]!}, ${ids[2]!}, null]::bigint[])[1 + i % 4], 1, 1
            from generate_series(1, ${n}::int) i`
          next += n
        } else if (kind === 2) {
          await tx`update tickets set state = ${pick(states)} where id in (${mine(tx, p)})`
        } else if (kind === 3) {
          await tx`update tickets set milestone_id = ${maybe()} where id in (${mine(tx, p)})`
        } else if (kind === 4) {
          const [one] = await mine(tx, p)
          if (one)
            await tx`update tickets set state = ${pick(states)}, milestone_id = ${maybe()} where id = ${one.id}`
        } else if (kind === 5) {
          await tx`update tickets set project_id = ${q}, state = ${pick(states)} where id in (${mine(tx, p)})`
        } else {
          await tx`delete from tickets where id in (${mine(tx, p)})`
        }
        // Some transactions write twice, so a later statement sees the earlier one's rows.
        if (random() < 0.3)
          await tx`update tickets set state = ${pick(states)}, milestone_id = ${maybe()} where id in (${mine(tx, q)})`
      })
    }
  }
  // A milestone deleted while a writer changes its tickets' states one at a time.
  await app.sql`
    insert into tickets (project_id, number, subject, state, milestone_id, created, updated)
    select ${there.id}, 9000000 + i, 'doomed', 'open', ${doomed}, 1, 1 from generate_series(1, 50) i`
  let dooming = true
  const doomer = (async () => {
    const random = prng(999)
    while (dooming) {
      await writers.begin(
        (tx) => tx`update tickets set state = ${states[Math.floor(random() * 5)]!}
          where project_id = ${there.id} and number = ${9000001 + Math.floor(random() * 50)}`,
      )
    }
  })()
  const writing = Promise.all(Array.from({ length: 8 }, (_, w) => write(w)))
  await app.sql`delete from milestones where id = ${doomed}`
  await writing
  dooming = false
  await doomer
  const after = await counted(ids)
  assert.ok(Object.keys(after).length === 3, JSON.stringify(after))
  assert.deepEqual(await summed(ids), after)
  assert.deepEqual(await counted([doomed]), {})
  assert.deepEqual(await summed([doomed]), {})
  // The API's list shows what was counted.
  const list = await app.call('GET', `/api/projects/${here.slug}/milestones`)
  const shown = (list.body as { milestones: { title: string; progress: unknown }[] }).milestones
  assert.deepEqual(shown.find((m) => m.title === 'a')!.progress, {
    total: after[ids[0]!]![0],
    closed: after[ids[0]!]![1],
  })
})
