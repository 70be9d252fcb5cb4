/**
 * The ticket lists' pages, streaming and 304 (docs/tickets-api.md, "Pages: `limit` and `after`"
 * and "Conditional requests"): pages walk the whole list once, also while tickets are made; the
 * unpaged list is streamed with the bytes it always had; a client that has the list's tag is
 * answered 304 after one statement.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Sql } from '../../src/db/client.ts'
import { bodyText, isStream } from '../../src/http/response.ts'
import { createHandler } from '../../src/http/handler.ts'
import { makeRequest } from '../../src/http/request.ts'
import { ticketAnswers } from '../../src/tickets/representations/json.ts'
import { listMarkdown } from '../../src/tickets/representations/markdown.ts'
import { parseQuery } from '../../src/tickets/rules/query.ts'
import { importTickets } from '../../src/tickets/importer/import.ts'
import { createTicketsService } from '../../src/tickets/service.ts'
import { createTicketStore } from '../../src/tickets/store/ticket-store.ts'
import { serviceDeps, testLogger } from '../support/service.ts'
import { caller, expectJson, ticketsApp, type Answer } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const one = await app.project(alice, 'Pages One')
const two = await app.project(alice, 'Pages Two')
// Tickets made at the same instant in two projects share `created` and `number`: only the id
// tells them apart, so the pages must use it.
for (let i = 0; i < 7; i++) {
  await app.ticket(alice, one.slug, { subject: `one ${i}` })
  await app.ticket(alice, two.slug, { subject: `two ${i}` })
  if (i % 3 === 2) app.clock.advance(1000)
}

const ids = (answer: Answer) => (answer.body.tickets as { id: string }[]).map((t) => t.id)

/** Follows `next` from `url` to the last page, checking that `next` and `Link` agree. */
async function walk(
  url: string,
  between?: (page: number) => Promise<void>,
): Promise<{ ids: string[]; pages: number }> {
  const seen: string[] = []
  let pages = 0
  for (let at: string | null = url; at !== null; pages++) {
    const page = await app.call('GET', at.replace(app.config.ticketsUrl, ''))
    expectJson(page, 200)
    seen.push(...ids(page))
    const next = page.body.next as string | null
    assert.equal(page.headers.link, next === null ? undefined : `<${next}>; rel="next"`)
    if (between) await between(pages)
    at = next
  }
  return { ids: seen, pages }
}

test('pages of limit tickets walk the whole list in its order, each ticket once; next and Link agree', async () => {
  for (const url of [
    '/api/tickets',
    `/api/projects/${one.slug}/tickets`,
    `/api/tickets?project=${two.id}`,
  ]) {
    const whole = ids(await app.call('GET', url))
    for (const limit of [1, 3, 5, 1000]) {
      const sep = url.includes('?') ? '&' : '?'
      const { ids: walked, pages } = await walk(`${url}${sep}limit=${limit}`)
      assert.deepEqual(walked, whole, `${url} limit ${limit}`)
      assert.equal(pages, Math.max(1, Math.ceil(whole.length / limit)), `${url} limit ${limit}`)
    }
  }
})

test('the last page has next null and no Link; a page is { tickets, next }', async () => {
  const last = await app.call('GET', `/api/projects/${one.slug}/tickets?limit=1000`)
  expectJson(last, 200)
  assert.deepEqual(Object.keys(last.body), ['tickets', 'next'])
  assert.equal(last.body.next, null)
  assert.equal(last.headers.link, undefined)
})

test('the next address keeps the filters and the search, absolute, with limit and an opaque after', async () => {
  const first = await app.call('GET', `/api/tickets?project=${one.slug}&state=all&q=one&limit=2`)
  expectJson(first, 200)
  const next = new URL(first.body.next)
  assert.equal(next.origin + next.pathname, `${app.config.ticketsUrl}/api/tickets`)
  assert.equal(next.searchParams.get('project'), one.slug)
  assert.equal(next.searchParams.get('state'), 'all')
  assert.equal(next.searchParams.get('q'), 'one')
  assert.equal(next.searchParams.get('limit'), '2')
  assert.match(next.searchParams.get('after') ?? '', /^[A-Za-z0-9_-]+$/)
  const { ids: walked } = await walk(first.body.next)
  assert.deepEqual(
    [...ids(first), ...walked],
    ids(await app.call('GET', `/api/tickets?project=${one.slug}&state=all&q=one`)),
  )
})

test('a walk misses and repeats no ticket when tickets are made and changed during it, in every sort order', async () => {
  const p = await app.project(alice, 'Pages Walk')
  for (let i = 0; i < 9; i++) await app.ticket(alice, p.slug, { subject: `walk ${i}` })
  for (const q of ['', 'sort:created-asc', 'sort:updated-desc', 'sort:updated-asc']) {
    const url = `/api/projects/${p.slug}/tickets?state=all&q=${encodeURIComponent(q)}&limit=2`
    const before = new Set(ids(await app.call('GET', `/api/projects/${p.slug}/tickets?state=all`)))
    const made: string[] = []
    const { ids: walked } = await walk(url, async (page) => {
      if (page > 1) return
      app.clock.advance(10)
      made.push((await app.ticket(alice, p.slug, { subject: `made during ${q}` })).id)
    })
    assert.equal(new Set(walked).size, walked.length, `no ticket twice (${q || 'newest first'})`)
    for (const id of before)
      assert.ok(
        walked.includes(id),
        `every ticket there at the start is listed (${q || 'newest first'})`,
      )
    // Oldest first, a ticket made during the walk comes on a later page.
    if (q === 'sort:created-asc' || q === 'sort:updated-asc') assert.ok(walked.includes(made[0]!))
  }
})

test('a bad limit or after answers 400 { error, field } before anything is read', async () => {
  const limit = { error: "'limit' must be a whole number from 1 to 1000", field: 'limit' }
  for (const bad of ['0', '1001', '-1', '1.5', 'ten', '', '00000001', '%201']) {
    expectJson(await app.call('GET', `/api/tickets?limit=${bad}`), 400, limit)
    expectJson(await app.call('GET', `/api/projects/${one.slug}/tickets?limit=${bad}`), 400, limit)
  }
  const first = await app.call('GET', `/api/tickets?limit=1`)
  const cursor = new URL(first.body.next).searchParams.get('after')!
  const after = {
    error: "'after' must be a cursor from a 'next' address of this list",
    field: 'after',
  }
  const forged = Buffer.from('1.2.not-an-id').toString('base64url')
  for (const bad of ['', 'x', '!!', forged, `${cursor}A`, cursor.slice(1)]) {
    expectJson(await app.call('GET', `/api/tickets?limit=1&after=${bad}`), 400, after)
    expectJson(await app.call('GET', `/api/projects/${one.slug}/tickets?after=${bad}`), 400, after)
  }
  // The state filter's 400 comes first, then limit's, then after's.
  expectJson(await app.call('GET', '/api/tickets?state=x&limit=0&after=x'), 400, {
    error: "unknown state 'x'",
    field: 'state',
  })
  expectJson(await app.call('GET', '/api/tickets?limit=0&after=x'), 400, limit)
})

test('after without limit answers every ticket after the cursor, without next', async () => {
  const whole = ids(await app.call('GET', '/api/tickets'))
  const first = await app.call('GET', '/api/tickets?limit=4')
  const rest = await app.call(
    'GET',
    `/api/tickets?after=${new URL(first.body.next).searchParams.get('after')}`,
  )
  expectJson(rest, 200)
  assert.deepEqual(Object.keys(rest.body), ['tickets'])
  assert.deepEqual([...ids(first), ...ids(rest)], whole)
})

test('pages answer Markdown too, with the next address in Link', async () => {
  const md = await app.call('GET', `/api/projects/${one.slug}/tickets?limit=2`, {
    headers: { accept: 'text/markdown' },
  })
  assert.equal(md.status, 200)
  assert.match(md.text, /: 2 tickets \(open, doing, review\)\n\n- pages-one#7 .*\n- pages-one#6 /)
  assert.match(
    String(md.headers.link),
    /^<http:\/\/[^>]+\/api\/projects\/pages-one\/tickets\?limit=2&after=[A-Za-z0-9_-]+>; rel="next"$/,
  )
})

test('the whole list is streamed in batches, with exactly the bytes of the list made in one piece', async () => {
  const big = await app.project(alice, 'Pages Big')
  // 1,234 tickets, many sharing a time: more than two batches of the stream.
  await app.sql`
    insert into tickets (project_id, number, subject, state, author_id, created, updated)
    select ${big.id}, n, 'bulk ' || n, (array['open', 'doing', 'review', 'done'])[1 + n % 4], ${alice.id}, 1000 + n / 7, 1000 + n / 7
    from generate_series(1, 1234) as n`
  await app.sql`update projects set next_number = 1235 where id = ${big.id}`
  const store = createTicketStore({ sql: app.sql, clock: app.clock.now })
  const handler = createHandler(app.service.routes, { name: 'tickets', logger: testLogger() })
  for (const [url, q, state] of [
    [
      `/api/projects/${big.slug}/tickets?state=all`,
      '',
      ['open', 'doing', 'review', 'done', 'dropped'],
    ],
    [`/api/tickets?project=${big.slug}`, '', ['open', 'doing', 'review']],
    ['/api/tickets?state=all', '', ['open', 'doing', 'review', 'done', 'dropped']],
    [
      `/api/tickets?q=${encodeURIComponent('bulk sort:updated-asc')}`,
      'bulk sort:updated-asc',
      ['open', 'doing', 'review'],
    ],
  ] as const) {
    const response = await handler(makeRequest({ method: 'GET', url }))
    assert.ok(isStream(response.body), url)
    const pieces: (string | Uint8Array)[] = []
    for await (const piece of response.body) pieces.push(piece)
    assert.ok(pieces.length >= 4, `${url}: read in batches (${pieces.length} pieces)`)
    const parsed = parseQuery(q)
    assert.ok(parsed.ok)
    const projectId = url.includes(big.slug) ? big.id : undefined
    const before = await store.tickets.search(parsed.query, {
      states: parsed.query.states ?? state,
      me: null,
      ...(projectId ? { projectId } : {}),
    })
    // The one-piece list left tickets of two projects with the same time and number in no
    // particular order; the list now puts them by id, in its own direction.
    const key = (t: (typeof before)[number]) =>
      parsed.query.sort?.startsWith('updated') ? t.updated : t.created
    const asc = parsed.query.sort?.endsWith('asc') ? 1 : -1
    const ordered = [...before].sort(
      (a, b) => asc * (key(a) - key(b) || a.number - b.number || (a.id < b.id ? -1 : 1)),
    )
    assert.deepEqual(
      ordered.map((t) => t.ref).filter((_, i) => ordered[i]!.project === big.id),
      before.map((t) => t.ref).filter((_, i) => before[i]!.project === big.id),
      'one project: the same order as before',
    )
    assert.equal(
      pieces.join(''),
      JSON.stringify({ tickets: ticketAnswers(app.config.ticketsUrl, ordered) }),
      url,
    )
  }
})

test('after without limit streams every ticket after the cursor, past any page size', async () => {
  const big = (await app.call('GET', '/api/projects/pages-big/tickets?state=all&limit=1')).body
  const cursor = new URL(big.next).searchParams.get('after')
  const handler = createHandler(app.service.routes, { name: 'tickets', logger: testLogger() })
  const rest = await handler(
    makeRequest({
      method: 'GET',
      url: `/api/projects/pages-big/tickets?state=all&after=${cursor}`,
    }),
  )
  assert.ok(isStream(rest.body))
  const tickets = JSON.parse(await bodyText(rest.body)).tickets as { ref: string }[]
  assert.equal(tickets.length, 1233)
  assert.equal(new Set([big.tickets[0].ref, ...tickets.map((t) => t.ref)]).size, 1234)
})

test('the whole Markdown list is streamed too: its heading counts the tickets (after the cursor), then the lines of the list made in one piece', async () => {
  const handler = createHandler(app.service.routes, { name: 'tickets', logger: testLogger() })
  const accept = { accept: 'text/markdown' }
  const title = 'pages-big (Pages Big)'
  const states = ['open', 'doing', 'review', 'done', 'dropped']
  const whole = await handler(
    makeRequest({
      method: 'GET',
      url: '/api/projects/pages-big/tickets?state=all',
      headers: accept,
    }),
  )
  assert.ok(isStream(whole.body))
  assert.equal(whole.headers?.['content-type'], 'text/markdown; charset=utf-8')
  const pieces: (string | Uint8Array)[] = []
  for await (const piece of whole.body) pieces.push(piece)
  assert.ok(pieces.length >= 4, `read in batches (${pieces.length} pieces)`)
  const all = JSON.parse(
    await bodyText(
      (
        await handler(
          makeRequest({ method: 'GET', url: '/api/projects/pages-big/tickets?state=all' }),
        )
      ).body,
    ),
  ).tickets
  assert.equal(all.length, 1234)
  assert.equal(pieces.join(''), listMarkdown(title, states, all))
  assert.match(
    String(pieces[0]),
    /^# pages-big \(Pages Big\): 1234 tickets \(open, doing, review, done, dropped\)\n\n$/,
  )

  const first = await app.call('GET', '/api/projects/pages-big/tickets?state=all&limit=1000')
  const cursor = new URL(first.body.next).searchParams.get('after')
  const rest = await handler(
    makeRequest({
      method: 'GET',
      url: `/api/projects/pages-big/tickets?state=all&after=${cursor}`,
      headers: accept,
    }),
  )
  assert.equal(await bodyText(rest.body), listMarkdown(title, states, all.slice(1000)))

  const none = await app.call('GET', '/api/projects/pages-big/tickets?q=nothing-matches-this', {
    headers: accept,
  })
  assert.equal(
    none.text,
    '# pages-big (Pages Big): 0 tickets (open, doing, review)\n\nNo tickets.\n',
  )
})

/** A client on `sql` that counts the statements it runs. */
function counting(sql: Sql): { sql: Sql; count: () => number; reset: () => void } {
  let n = 0
  const proxy = new Proxy(sql, {
    apply(target, self, args) {
      const query = Reflect.apply(target, self, args) as { then?: (...a: unknown[]) => unknown }
      // A fragment is never awaited; a statement is, once.
      if (query !== null && typeof query === 'object' && typeof query.then === 'function') {
        const then = query.then.bind(query)
        query.then = (...a: unknown[]) => {
          n++
          return then(...a)
        }
      }
      return query
    },
  })
  return { sql: proxy, count: () => n, reset: () => (n = 0) }
}

test('a client that has the list gets 304 after one statement; any write gives a new tag', async (t) => {
  const counted = counting(app.sql)
  const { deps } = await serviceDeps(counted.sql, 'tickets', { clock: app.clock.now })
  // Its webhook worker stays stopped: a round of it would count among the request's statements.
  const service = createTicketsService({ ...deps, webhooks: { start: false } })
  // Stopped with the test: its other workers, left running, reconnected the database's ended
  // pool after the file's tests and kept the process from exiting.
  t.after(() => service.close?.())
  const call = caller(service)
  for (const url of [
    `/api/projects/${one.slug}/tickets`,
    '/api/tickets?state=all',
    `/api/tickets?project=${two.slug}&limit=2`,
  ]) {
    const first = await call('GET', url)
    const tag = first.headers.etag as string
    assert.match(tag, /^"[A-Za-z0-9_-]{20}"$/, url)
    assert.equal((await call('GET', url)).headers.etag, tag, `${url}: the same list, the same tag`)
    counted.reset()
    const again = await call('GET', url, { headers: { 'if-none-match': tag } })
    assert.equal(again.status, 304, url)
    assert.equal(again.text, '')
    assert.equal(again.headers.etag, tag)
    assert.equal(again.headers.vary, 'Accept')
    assert.equal(counted.count(), 1, `${url}: one statement for the 304`)
    const md = await call('GET', url, { headers: { accept: 'text/markdown' } })
    assert.notEqual(md.headers.etag, tag, 'Markdown has its own tag')
  }
  const url = `/api/projects/${one.slug}/tickets`
  const tag = (await call('GET', url)).headers.etag as string
  // A write in another project changes the tag too: the version is the whole service's.
  const made = await app.ticket(alice, two.slug, { subject: 'elsewhere' })
  const changed = await call('GET', url, { headers: { 'if-none-match': tag } })
  assert.equal(changed.status, 200)
  const tag2 = changed.headers.etag as string
  expectJson(
    await app.call('POST', `/api/tickets/${made.id}/state`, {
      token: alice.token,
      body: { state: 'doing' },
    }),
    201,
  )
  assert.equal((await call('GET', url, { headers: { 'if-none-match': tag2 } })).status, 200)
})

test('the 304 comes after the 400s, and a project that does not exist still answers 404', async () => {
  const tag = (await app.call('GET', '/api/projects/nope/tickets')).headers.etag
  assert.equal(tag, undefined)
  const good = (await app.call('GET', `/api/projects/${one.slug}/tickets`)).headers.etag as string
  expectJson(
    await app.call('GET', `/api/projects/${one.slug}/tickets?limit=0`, {
      headers: { 'if-none-match': good },
    }),
    400,
  )
  expectJson(
    await app.call('GET', '/api/projects/nope/tickets', { headers: { 'if-none-match': good } }),
    404,
    { error: 'no such project' },
  )
})

test('writes that emit no event change the tag too: an import, a project renamed, and a new display name at login', async () => {
  const url = '/api/tickets?state=all'
  const tag = (await app.call('GET', url)).headers.etag as string
  const imported = await importTickets(
    app.sql,
    {
      project: { slug: 'pages-import', title: 'Imported', admin: 'alice' },
      tickets: [{ number: 9001, subject: 'old' }],
    },
    app.clock.now(),
  )
  assert.ok(imported.ok)
  const afterImport = await app.call('GET', url, { headers: { 'if-none-match': tag } })
  assert.equal(afterImport.status, 200, 'an import changes the tag')
  const carol = await app.login('carol', 'idp-carol-pages')
  const p = await app.project(carol, 'Pages Carol')
  await app.ticket(carol, p.slug)
  const before = (await app.call('GET', url)).headers.etag as string
  await app.login('carol', 'idp-carol-pages')
  assert.equal(
    (await app.call('GET', url, { headers: { 'if-none-match': before } })).status,
    304,
    'a login with the same name changes nothing',
  )
  await app.login('Caroline', 'idp-carol-pages')
  const renamed = await app.call('GET', url, { headers: { 'if-none-match': before } })
  assert.equal(renamed.status, 200, 'a new name changes the tag')
  assert.ok(renamed.text.includes('"name":"Caroline"'))
  const projectTag = (await app.call('GET', `/api/projects/${p.slug}/tickets`)).headers
    .etag as string
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}`, {
      token: carol.token,
      body: { slug: 'pages-carol-2' },
    }),
    200,
  )
  const moved = await app.call('GET', `/api/projects/${p.slug}/tickets`, {
    headers: { 'if-none-match': projectTag },
  })
  assert.equal(moved.status, 200, 'a new slug changes the tag')
  assert.ok(moved.text.includes('"ref":"pages-carol-2#1"'))
})
