import assert from 'node:assert/strict'
import { test } from 'node:test'
import { plannedEachTime } from '../../src/db/client.ts'
import { DEFAULT_FILTER } from '../../src/tickets/rules/states.ts'
import { parseQuery } from '../../src/tickets/rules/query.ts'
import { searchCondition, searchOrder, wordsQuery } from '../../src/tickets/store/search.ts'
import { searchTickets, ticketTable } from '../../src/tickets/store/tickets.ts'
import { pageReadTable } from '../../src/tickets/store/page-reads.ts'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('Bob')
const web = await app.project(alice, 'Web')
const other = await app.project(alice, 'Other')
await app.member(alice, web.slug, bob, 'edit')

const made: Record<string, { id: string; number: number }> = {}
async function make(key: string, fields: Record<string, string>, by = alice, slug = web.slug) {
  made[key] = await app.ticket(by, slug, fields)
  app.clock.advance(1000)
}
await make('login', {
  subject: 'Login loops forever',
  summary: 'On **Safari** the login page reloads.',
  assignee: 'Bob',
})
await make('safari', { subject: 'Safari renders fonts badly', summary: 'works fine in Firefox' })
await make(
  'export',
  { subject: 'Export to CSV', summary: "the file app.config.ts and the flag --dry-run; it's fine" },
  bob,
)
await make('loops', { subject: 'Forever loops in the importer' })
await make('done', { subject: 'Login button colour' })
await app.call('POST', `/api/tickets/${made.done!.id}/state`, {
  token: alice.token,
  body: { state: 'done' },
})
await app.call('POST', `/api/tickets/${made.safari!.id}/blocked-by`, {
  token: alice.token,
  body: { add: `${web.slug}#${made.login!.number}` },
})
await app.call('POST', `/api/tickets/${made.export!.id}/blocked-by`, {
  token: alice.token,
  body: { add: `${web.slug}#${made.done!.number}` },
})
await make('elsewhere', { subject: 'Login elsewhere' }, alice, other.slug)
// The last change: the oldest ticket is now the most recently updated.
await app.call('POST', `/api/tickets/${made.login!.id}/comments`, {
  token: alice.token,
  body: { text: 'bump' },
})

const names = Object.fromEntries(Object.entries(made).map(([k, v]) => [v.id, k]))

/** The keys of the Web tickets a search finds, in the order it lists them. */
async function search(text: string, me: string | null = alice.id): Promise<string[]> {
  const parsed = parseQuery(text)
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.message)
  const where = searchCondition(app.sql, parsed.query, { states: DEFAULT_FILTER, me })
  const rows = await searchTickets(
    app.sql,
    app.sql`t.project_id = ${web.id} and ${where}`,
    searchOrder(app.sql, parsed.query.sort),
  )
  return rows.map((t) => names[t.id]!)
}

test('words match the starts of words in the subject or the summary, all of them, any case', async () => {
  assert.deepEqual(await search('login'), ['login'])
  assert.deepEqual(await search('LOG'), ['login'])
  assert.deepEqual(await search('safari'), ['safari', 'login'])
  assert.deepEqual(await search('safari fonts'), ['safari'])
  assert.deepEqual(await search('loops'), ['loops', 'login'])
  assert.deepEqual(await search('nothing-like-this'), [])
})

test('a phrase matches its words in order; excluded words and phrases remove tickets', async () => {
  assert.deepEqual(await search('"loops forever"'), ['login'])
  assert.deepEqual(await search('"forever loops"'), ['loops'])
  assert.deepEqual(await search('loops -safari'), ['loops'])
  assert.deepEqual(await search('safari -"works fine"'), ['login'])
})

test('file names, flags and apostrophes are found as written, and no character breaks the query', async () => {
  assert.deepEqual(await search('app.config.ts'), ['export'])
  assert.deepEqual(await search('dry-run'), ['export'])
  assert.deepEqual(await search("it's"), ['export'])
  for (const text of [
    "'",
    '\\',
    "a'b\\c",
    '&',
    '|',
    '!',
    '(',
    ')',
    ':*',
    "'':*|!",
    '<->',
    '"\'"',
    '"&|!"',
    'x:*y',
    '\u00e9t\u00e9',
  ]) {
    await search(`"${text}"`)
    await search(text.replace(/:/g, ' '))
  }
})

test('wordsQuery() quotes every word and skips words without a letter or digit', () => {
  assert.equal(
    wordsQuery(["it's", 'a\\b', '-', '…'], ['x']),
    "('it''s' | 'it''s':*) & ('a\\\\b' | 'a\\\\b':*) & !'x':*",
  )
  assert.equal(wordsQuery(['--'], []), '')
})

test('states: the list default without a state term, else the states named', async () => {
  assert.deepEqual(await search('login'), ['login'])
  assert.deepEqual(await search('login state:all'), ['done', 'login'])
  assert.deepEqual(await search('state:done'), ['done'])
  assert.deepEqual(await search('-state:open'), ['done'])
})

test('people: by name in any case, nobody, me, and exclusions that keep unassigned tickets', async () => {
  assert.deepEqual(await search('assignee:bob'), ['login'])
  assert.deepEqual(await search(`assignee:${bob.id}`), ['login'])
  assert.deepEqual(await search('assignee:none'), ['loops', 'export', 'safari'])
  assert.deepEqual(await search('-assignee:bob'), ['loops', 'export', 'safari'])
  assert.deepEqual(await search('assignee:me', bob.id), ['login'])
  assert.deepEqual(await search('assignee:me', null), [])
  assert.deepEqual(await search('author:bob'), ['export'])
  assert.deepEqual(await search('-author:bob'), ['loops', 'safari', 'login'])
  assert.deepEqual(await search('author:me is:unassigned'), ['loops', 'safari'])
})

test('is:blocked means blocked by a ticket that is not done or dropped', async () => {
  assert.deepEqual(await search('is:blocked'), ['safari'])
  assert.deepEqual(await search('-is:blocked'), ['loops', 'export', 'login'])
})

test('#number finds a ticket by its number', async () => {
  assert.deepEqual(await search(`#${made.safari!.number}`), ['safari'])
  assert.deepEqual(await search(`#${made.safari!.number} #${made.login!.number}`), [
    'safari',
    'login',
  ])
})

test('sort: newest first by default, oldest first, and by last change', async () => {
  assert.deepEqual(await search(''), ['loops', 'export', 'safari', 'login'])
  assert.deepEqual(await search('sort:created-asc'), ['login', 'safari', 'export', 'loops'])
  assert.deepEqual(await search('sort:updated'), ['login', 'export', 'safari', 'loops'])
  assert.deepEqual((await search('sort:updated-asc'))[3], 'login')
})

test('the list API takes the same search as ?q=, on one project and on all', async () => {
  const got = await app.call(
    'GET',
    `/api/projects/${web.slug}/tickets?q=${encodeURIComponent('loops -safari')}`,
  )
  assert.equal(got.status, 200, got.text)
  assert.deepEqual(
    got.body.tickets.map((t: { id: string }) => names[t.id]),
    ['loops'],
  )
  const all = await app.call(
    'GET',
    `/api/tickets?q=${encodeURIComponent('login state:all sort:created-asc')}`,
  )
  assert.deepEqual(
    all.body.tickets.map((t: { id: string }) => names[t.id]),
    ['login', 'done', 'elsewhere'],
  )
  const md = await app.call('GET', `/api/projects/${web.slug}/tickets?q=state:done`, {
    headers: { accept: 'text/markdown' },
  })
  assert.match(md.text, /^# web \(Web\): 1 ticket \(done\)/)
})

test('the list API refuses a bad search with 400 naming the field q', async () => {
  const got = await app.call('GET', `/api/projects/${web.slug}/tickets?q=priority:high`)
  assert.equal(got.status, 400)
  assert.deepEqual(got.body, {
    error:
      "unknown search key 'priority:' (use state:, assignee:, author:, is:, label:, milestone:, due:, no:, has:, sort:); put text with a colon in double quotes",
    field: 'q',
  })
  assert.equal(got.headers.vary, 'Accept')
})

test('me in a search is the token or session user, and refused with 400 for nobody', async () => {
  const nobody = await app.call('GET', `/api/projects/${web.slug}/tickets?q=assignee:me`)
  assert.deepEqual(nobody.body, { error: "'me' in a search needs a signed-in person", field: 'q' })
  const byToken = await app.call('GET', `/api/projects/${web.slug}/tickets?q=assignee:me`, {
    token: bob.token,
  })
  assert.deepEqual(
    byToken.body.tickets.map((t: { id: string }) => names[t.id]),
    ['login'],
  )
  const bySession = await app.call('GET', `/api/projects/${web.slug}/tickets?q=author:me`, {
    headers: { cookie: bob.cookie },
  })
  assert.deepEqual(
    bySession.body.tickets.map((t: { id: string }) => names[t.id]),
    ['export'],
  )
})

// Last: it changes states, and with them the order by last change the tests above read.
test('is:blocked follows the blocker: done unblocks, reopened blocks again, removed unblocks', async () => {
  const state = (key: string, to: string) =>
    app.call('POST', `/api/tickets/${made[key]!.id}/state`, {
      token: alice.token,
      body: { state: to },
    })
  assert.equal((await state('login', 'done')).status, 201)
  assert.deepEqual(await search('is:blocked state:all'), [])
  assert.equal((await state('login', 'review')).status, 201)
  assert.deepEqual(await search('is:blocked'), ['safari'])
  assert.equal((await state('done', 'doing')).status, 201)
  assert.deepEqual(await search('is:blocked'), ['export', 'safari'])
  const removed = await app.call('POST', `/api/tickets/${made.export!.id}/blocked-by`, {
    token: alice.token,
    body: { remove: `${web.slug}#${made.done!.number}` },
  })
  assert.equal(removed.status, 201, removed.text)
  assert.deepEqual(await search('is:blocked'), ['safari'])
})

test("a search for a word every ticket holds walks the project's list and stops at a page, rather than reading every ticket with the word", async () => {
  // 30,000 tickets in ten projects whose subjects all hold "common", with the planner's statistics.
  const crowds = []
  for (let i = 0; i < 10; i++) crowds.push(await app.project(alice, `Crowd ${i}`))
  const crowd = crowds[0]!
  await app.sql`
    insert into tickets (project_id, number, subject, summary, state, author_id, created, updated)
    select (${crowds.map((c) => c.id)}::text[])[1 + n % 10], 1000 + n, 'Common subject ' || n, '', 'open', ${alice.id}, n, n
    from generate_series(1, 30000) n`
  await app.sql`analyze tickets`
  // (A word start that is no whole word, `comm`, is still estimated as 2% of the tickets when
  // the statistics know fewer than 100 common words: docs/performance.md, "Growth".)
  for (const text of ['common', 'COMMON', 'common subject', 'common -rare']) {
    const parsed = parseQuery(text)
    assert.ok(parsed.ok)
    const where = searchCondition(app.sql, parsed.query, { states: DEFAULT_FILTER, me: null })
    const plan = (
      await plannedEachTime(app.sql`
      explain select t.id from tickets t where t.project_id = ${crowd.id} and ${where}
      order by t.created desc, t.number desc, t.id desc limit 51`)
    )
      .map((r) => r['QUERY PLAN'] as string)
      .join('\n')
    assert.match(plan, /Index Scan Backward using tickets_(project_)?list/, `"${text}":\n${plan}`)
    assert.doesNotMatch(plan, /tickets_search/, `"${text}":\n${plan}`)
  }
})

test('pages of any size are read with a few prepared statements, the page size a constant in them', async () => {
  const conn = await app.sql.reserve()
  try {
    const parsed = parseQuery('')
    assert.ok(parsed.ok)
    const search = { states: DEFAULT_FILTER, me: alice.id, projectId: web.id }
    const tickets = ticketTable(conn)
    const whole = (await tickets.listPage(parsed.query, search, 1000, null)).map((t) => t.id)
    assert.ok(whole.length > 2)
    for (let limit = 1; limit <= 60; limit++) {
      const page = await tickets.listPage(parsed.query, search, limit, null)
      assert.deepEqual(
        page.map((t) => t.id),
        whole.slice(0, limit),
        `a page of ${limit}`,
      )
    }
    // The limits the list statements were prepared with (on the embedded database every
    // connection shares one session, so other files' statements are there too): constants
    // only, and for sixty page sizes these five.
    const rows = await conn<
      { statement: string }[]
    >`select statement from pg_prepared_statements where statement like '%t.id desc limit %' and statement not like '%pg_prepared_statements%'`
    const limits = new Set(
      rows
        .map((r) => /t\.id desc limit (\S+)\s*$/.exec(r.statement)?.[1])
        .filter((l) => l !== undefined),
    )
    for (const l of limits) assert.match(l, /^\d+$/, `a list statement prepared with limit ${l}`)
    for (const l of ['2', '11', '26', '51', '101'])
      assert.ok(limits.has(l), `limit ${l} among ${[...limits].join(', ')}`)
  } finally {
    conn.release()
  }
})

test('a search for words is sent unprepared, so each is planned for its words (a kept plan read every ticket holding a common word)', async () => {
  const conn = await app.sql.reserve()
  try {
    const prepared = async () =>
      (
        await conn`select count(*)::int as n from pg_prepared_statements where statement like '%to_tsquery%'`
      )[0]!.n as number
    const before = await prepared()
    const tickets = ticketTable(conn)
    const pages = pageReadTable(conn, 0)
    for (const text of ['login', 'login -safari', '"loops forever"']) {
      const parsed = parseQuery(text)
      assert.ok(parsed.ok)
      const search = { states: DEFAULT_FILTER, me: alice.id, projectId: web.id }
      await tickets.listPage(parsed.query, search, 50, null)
      await tickets.count(parsed.query, search)
      await tickets.search(parsed.query, search, { limit: 50, offset: 0 })
      await pages.list(parsed.query, search, 50, 0)
      const page = await pages.context(alice.id, web.slug, {
        query: parsed.query,
        search: { states: DEFAULT_FILTER, me: alice.id },
        limit: 50,
        skip: 0,
      })
      assert.ok(page.project?.list?.rows.length, `"${text}" finds tickets`)
    }
    assert.equal(await prepared(), before)
    // The same check sees a search sent prepared.
    await searchTickets(
      conn,
      conn`t.search @@ to_tsquery('simple', ${"'login'"})`,
      searchOrder(conn, null),
    )
    assert.equal(await prepared(), before + 1)
  } finally {
    conn.release()
  }
})
