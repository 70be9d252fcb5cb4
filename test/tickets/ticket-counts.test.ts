import assert from 'node:assert/strict'
import { test } from 'node:test'
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

/** How many `ticket_counts` rows a project has. */
async function countRows(projectId: string): Promise<number> {
  const [row] = await app.sql<{ rows: number }[]>`select count(*)::int as rows from ticket_counts where project_id = ${projectId}`
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
    const moved = await app.call('POST', `/api/projects/${p.slug}/tickets/${t.number}/state`, { token: alice.token, body: { state: 'doing' } })
    assert.equal(moved.status, 201, moved.text)
  }
  for (const t of made.slice(0, 5)) {
    const moved = await app.call('POST', `/api/projects/${p.slug}/tickets/${t.number}/state`, { token: alice.token, body: { state: 'done' } })
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
