/**
 * The search terms of labels, milestones and due dates (docs/tickets-app.md, "Searching") against
 * a fixture of tickets, through the list API's `?q=`: what each term finds, in which order
 * `sort:due` lists, and the refusals in the search language's one form.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'
import { parseQuery } from '../../src/tickets/rules/query.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const web = await app.project(alice, 'Web', { slug: 'web' })
const other = await app.project(alice, 'Other', { slug: 'other' })
const { call } = app

for (const [slug, name] of [
  ['web', 'bug'],
  ['web', 'needs review'],
  ['web', 'docs'],
  ['other', 'bug'],
])
  await call('POST', `/api/projects/${slug}/labels`, {
    token: alice.token,
    body: { name: name!, color: '#d73a4a' },
  })
for (const title of ['v1.0', 'v2.0'])
  await call('POST', `/api/projects/web/milestones`, { token: alice.token, body: { title } })

const today = new Date(app.clock.now()).toISOString().slice(0, 10)
const day = (offset: number) =>
  new Date(app.clock.now() + offset * 86_400_000).toISOString().slice(0, 10)

/** A ticket of `slug` with what it is given. */
async function make(
  subject: string,
  extra: { labels?: string[]; milestone?: string; due?: string; state?: string; slug?: string },
) {
  const t = await app.ticket(alice, extra.slug ?? web.slug, { subject })
  for (const add of extra.labels ?? [])
    expectJson(
      await call('POST', `/api/tickets/${t.id}/labels`, { token: alice.token, body: { add } }),
      201,
    )
  if (extra.milestone)
    expectJson(
      await call('POST', `/api/tickets/${t.id}/milestone`, {
        token: alice.token,
        body: { milestone: extra.milestone },
      }),
      201,
    )
  if (extra.due)
    expectJson(
      await call('POST', `/api/tickets/${t.id}/due`, {
        token: alice.token,
        body: { due: extra.due },
      }),
      201,
    )
  if (extra.state)
    expectJson(
      await call('POST', `/api/tickets/${t.id}/state`, {
        token: alice.token,
        body: { state: extra.state },
      }),
      201,
    )
  return t
}

await make('A: crash', { labels: ['bug'], milestone: 'v1.0', due: day(-5) })
await make('B: review me', { labels: ['needs review', 'bug'], milestone: 'v1.0', due: day(3) })
await make('C: write docs', { labels: ['docs'], milestone: 'v2.0', due: today })
await make('D: nothing', {})
await make('E: closed late', { labels: ['bug'], due: day(-10), state: 'done' })
await make('F: far off', { milestone: 'v2.0', due: day(40) })
await make('G: other project bug', { labels: ['bug'], slug: other.slug })

/** The subjects' letters a search of project web finds, in the list's order. */
async function found(q: string, slug = 'web'): Promise<string> {
  const got = await call(
    'GET',
    `/api/projects/${slug}/tickets?${new URLSearchParams({ q, state: 'all' })}`,
  )
  expectJson(got, 200)
  return got.body.tickets.map((t: { subject: string }) => t.subject[0]).join('')
}

test('label: finds tickets with the label (any case), -label: leaves them out, no:label finds the bare', async () => {
  assert.equal(await found('label:bug sort:oldest'), 'ABE')
  assert.equal(await found('label:BUG sort:oldest'), 'ABE')
  assert.equal(await found('label:"needs review"'), 'B')
  assert.equal(await found('label:docs label:"needs review" sort:oldest'), 'BC', 'alternatives')
  assert.equal(await found('-label:bug sort:oldest'), 'CDF')
  assert.equal(await found('label:bug -label:"needs review" sort:oldest'), 'AE')
  assert.equal(await found('no:label sort:oldest'), 'DF')
  assert.equal(await found('-no:label sort:oldest'), 'ABCE')
  assert.equal(await found('label:nonesuch'), '', 'a label the project lacks finds nothing')
  assert.equal(await found('label:bug is:open sort:oldest'), 'AB')
  assert.equal(await found('label:bug', 'other'), 'G', 'each project its own labels')
})

test('milestone: finds the milestone’s tickets, no:milestone those in none', async () => {
  assert.equal(await found('milestone:"v1.0" sort:oldest'), 'AB')
  assert.equal(await found('milestone:V2.0 sort:oldest'), 'CF')
  assert.equal(await found('-milestone:"v1.0" sort:oldest'), 'CDEF')
  assert.equal(await found('no:milestone sort:oldest'), 'DE')
  assert.equal(await found('-no:milestone sort:oldest'), 'ABCF')
})

test('due: compares due days, is:overdue finds the open ones due before today', async () => {
  assert.equal(await found(`due:<${today} sort:oldest`), 'AE')
  assert.equal(await found(`due:<=${today} sort:oldest`), 'ACE')
  assert.equal(await found(`due:>${today} sort:oldest`), 'BF')
  assert.equal(await found(`due:${today}`), 'C')
  assert.equal(await found(`due:>=${day(-5)} due:<=${day(3)} sort:oldest`), 'ABC')
  assert.equal(await found('no:due sort:oldest'), 'D')
  assert.equal(await found('is:overdue'), 'A', 'E is done, C is due today')
  assert.equal(await found('-is:overdue sort:oldest'), 'BCDEF')
})

test('sort:due lists the soonest due first and tickets without a due date last, across pages', async () => {
  const all = await found('sort:due')
  assert.equal(all, 'EACBFD')
  // Two at a time through the `next` links gives the same order.
  let next: string | null =
    `/api/projects/web/tickets?${new URLSearchParams({ q: 'sort:due', state: 'all', limit: '2' })}`
  let paged = ''
  while (next !== null) {
    const got = await call('GET', next.replace(/^https?:\/\/[^/]+/, ''))
    expectJson(got, 200)
    paged += got.body.tickets.map((t: { subject: string }) => t.subject[0]).join('')
    next = got.body.next ?? null
  }
  assert.equal(paged, all)
})

test('refused values answer the search language’s one refusal naming q', async () => {
  for (const [q, error] of [
    ['no:parent', "unknown 'no:parent' (use no:label, no:milestone, no:due)"],
    [
      'due:soon',
      "'due:soon' needs a day as YYYY-MM-DD, with <, <=, > or >= before it if you like, for example due:<2026-12-31",
    ],
    [
      'due:<2026-02-30',
      "'due:<2026-02-30' needs a day as YYYY-MM-DD, with <, <=, > or >= before it if you like, for example due:<2026-12-31",
    ],
    ['-due:<2026-12-31', "'due:' cannot be excluded with '-'"],
    ['label:', "'label:' needs a value, for example label:bug"],
    ['milestone:""', `'milestone:' needs a value, for example milestone:"v1.0"`],
    [
      'is:late',
      "unknown 'is:late' (use is:open, is:closed, is:blocked, is:unblocked, is:assigned, is:unassigned, is:overdue)",
    ],
  ] as const) {
    const got = await call('GET', `/api/projects/web/tickets?${new URLSearchParams({ q })}`)
    expectJson(got, 400, { error, field: 'q' })
    const parsed = parseQuery(q)
    assert.ok(!parsed.ok && parsed.code === 'bad_query', q)
  }
})
