/**
 * The pages cache what they read that is the same for everyone (the switcher, a project's
 * members and tab counts, pages of its list) between requests while the lists' version is the
 * same (src/tickets/store/page-reads.ts): every change of what they show must show on the next
 * read, however recently the page was read before it and whichever way it was written, through
 * the API or by a statement no write path knows; nothing changed, nothing is read again.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseQuery } from '../../src/tickets/rules/query.ts'
import { DEFAULT_FILTER } from '../../src/tickets/rules/states.ts'
import { pageReadTable, type ListRequest } from '../../src/tickets/store/page-reads.ts'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice', 'idp-alice')
const bob = await app.login('Bob', 'idp-bob')
const web = await app.project(alice, 'Web')
await app.member(alice, web.slug, bob, 'edit')
const login = await app.ticket(alice, web.slug, { subject: 'Login loops forever' })
const fonts = await app.ticket(alice, web.slug, { subject: 'Fonts render badly' })

/** The project page's list as a person reads it: the text of each row. */
async function rows(slug = web.slug, query = ''): Promise<string[]> {
  const page = await app.call('GET', `/${slug}${query}`, { headers: { cookie: alice.cookie } })
  assert.equal(page.status, 200, page.text)
  return [...page.text.matchAll(/<li data-key="[^"]+">([\s\S]*?)<\/li>/g)].map((m) =>
    m[1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  )
}

const row = (all: string[], subject: string) =>
  all.find((r) => r.includes(subject)) ??
  assert.fail(`no row for ${subject} in ${JSON.stringify(all)}`)

test('each change a row shows appears on the next read of a page read just before', async () => {
  await rows()
  const change = async (path: string, body: unknown, by = alice) => {
    const answer = await app.call('POST', path, { token: by.token, body })
    assert.ok(answer.status < 300, answer.text)
  }
  await change(`/api/tickets/${login.id}/state`, { state: 'doing' })
  assert.match(row(await rows(), 'Login loops'), /\bdoing\b/)
  await change(`/api/tickets/${login.id}/edit`, { subject: 'Login loops on Safari' })
  assert.match(row(await rows(), 'Login loops on Safari'), /doing/)
  await change(`/api/tickets/${login.id}/assign`, { assignee: 'Bob' })
  assert.match(row(await rows(), 'Login loops on Safari'), /assigned to Bob/)
  await change(`/api/tickets/${fonts.id}/blocked-by`, { add: `${web.slug}#${login.number}` })
  assert.match(row(await rows(), 'Fonts render'), /\bblocked\b/)
  await change(`/api/tickets/${login.id}/state`, { state: 'done' })
  const after = await rows()
  assert.doesNotMatch(row(after, 'Fonts render'), /\bblocked\b/, 'the blocker is done')
  assert.equal(
    after.some((r) => r.includes('Login loops')),
    false,
    'a done ticket leaves the active tab',
  )
  await app.ticket(bob, web.slug, { subject: 'Export to CSV' })
  assert.match(row(await rows(), 'Export to CSV'), /unassigned/)
})

test('changes without a ticket event show too: a person renamed at sign-in, a project renamed', async () => {
  await app.call('POST', `/api/tickets/${fonts.id}/assign`, {
    token: alice.token,
    body: { assignee: 'Bob' },
  })
  assert.match(row(await rows(), 'Fonts render'), /assigned to Bob/)
  await app.login('Robert', 'idp-bob')
  assert.match(row(await rows(), 'Fonts render'), /assigned to Robert/)
  const renamed = await app.call('POST', `/api/projects/${web.slug}`, {
    token: alice.token,
    body: { slug: 'site' },
  })
  assert.equal(renamed.status, 200, renamed.text)
  const moved = await app.call('GET', `/${web.slug}`, { headers: { cookie: alice.cookie } })
  assert.equal(moved.status, 301)
  const site = await app.call('GET', '/site', { headers: { cookie: alice.cookie } })
  assert.match(site.text, new RegExp(`<a class="subject" href="/site/${fonts.number}">`))
  await app.call('POST', '/api/projects/site', { token: alice.token, body: { slug: web.slug } })
})

test('the switcher, the members to assign, the tab counts and the description follow changes too', async () => {
  const page = async () =>
    (await app.call('GET', `/${web.slug}`, { headers: { cookie: alice.cookie } })).text
  const before = await page()
  const open = Number(/Open<span class="n">(\d+)<\/span>/.exec(before)![1])
  await app.project(bob, 'Mobile apps')
  assert.match(
    await page(),
    /<li><a href="\/mobile-apps">Mobile apps<\/a><\/li>/,
    'a new project joins the switcher',
  )
  const carol = await app.login('Carol')
  await app.member(alice, web.slug, carol, 'use')
  assert.match(
    await page(),
    /<option value="[^"]+">Carol<\/option>/,
    'a new member can be assigned',
  )
  const removed = await app.call('POST', `/api/projects/${web.slug}/members/remove`, {
    token: alice.token,
    body: { user: 'Carol' },
  })
  assert.equal(removed.status, 200, removed.text)
  assert.doesNotMatch(await page(), />Carol<\/option>/, 'a removed member cannot')
  await app.ticket(alice, web.slug, { subject: 'Counted' })
  assert.match(
    await page(),
    new RegExp(`Open<span class="n">${open + 1}</span>`),
    'the Open tab counts the new ticket',
  )
  const described = await app.call('POST', `/api/projects/${web.slug}`, {
    token: alice.token,
    body: { description: 'The public site' },
  })
  assert.equal(described.status, 200, described.text)
  assert.match(await page(), /<div class="muted markdown description"><p>The public site<\/p>/)
})

test('a search keeps its own page: its count and rows follow changes like the first page', async () => {
  const before = await rows(web.slug, '?q=csv')
  assert.equal(before.length, 1)
  const made = await app.ticket(alice, web.slug, { subject: 'Import from CSV' })
  const after = await rows(web.slug, '?q=csv')
  assert.equal(after.length, 2)
  const page = await app.call('GET', `/${web.slug}?q=csv`, { headers: { cookie: alice.cookie } })
  assert.match(page.text, /1–2 of 2/)
  await app.call('POST', `/api/tickets/${made.id}/state`, {
    token: alice.token,
    body: { state: 'dropped' },
  })
  assert.equal((await rows(web.slug, '?q=csv')).length, 1)
})

test('writes through SQL alone, with no event and no write path, show on the next read of the pages', async () => {
  const page = async (path = `/${web.slug}`) => {
    const answer = await app.call('GET', path, { headers: { cookie: alice.cookie } })
    assert.equal(answer.status, 200, answer.text)
    return answer.text
  }
  const apiList = () => app.call('GET', `/api/projects/${web.slug}/tickets`, { token: alice.token })
  await page()
  const tagBefore = (await apiList()).headers.etag
  await app.sql`update tickets set subject = 'Typed straight into the database' where id = ${fonts.id}`
  assert.match(
    row(await rows(), 'Typed straight into the database'),
    /assigned to/,
    "a row's subject",
  )
  assert.notEqual((await apiList()).headers.etag, tagBefore, "the API list's tag")
  const open = Number(/Open<span class="n">(\d+)<\/span>/.exec(await page())![1])
  await app.sql`update tickets set state = 'review' where id = ${fonts.id}`
  const moved = await page()
  assert.match(moved, new RegExp(`Open<span class="n">${open - 1}</span>`), 'the tab counts')
  assert.equal(
    (await rows()).some((r) => r.includes('Typed straight')),
    true,
  )
  assert.match(row(await rows(), 'Typed straight'), /\breview\b/, "a row's state")
  await app.sql`update users set name = 'Bobby' where idp_id = 'idp-bob'`
  assert.match(row(await rows(), 'Typed straight'), /assigned to Bobby/, "an assignee's name")
  await app.sql`update projects set title = 'The Web' where id = ${web.id}`
  assert.match(await page('/'), /<li><a href="\/[^"]+">The Web<\/a><\/li>/, 'the switcher')
  const settings = `/${web.slug}/settings`
  assert.match(await page(settings), /<option value="edit" selected>edit<\/option>/)
  await app.sql`update members set role = 'use' where project_id = ${web.id} and role = 'edit'`
  const after = await page(settings)
  assert.doesNotMatch(after, /<option value="edit" selected>edit<\/option>/, "a member's role")
  assert.match(after, /<option value="use" selected>use<\/option>/)
  await app.sql`delete from blockers where ticket_id = ${fonts.id}`
  await app.sql`update tickets set open_blockers = 0 where id = ${fonts.id}`
  assert.doesNotMatch(row(await rows(), 'Typed straight'), /\bblocked\b/)
  // Put back what the later tests expect.
  await app.sql`update members set role = 'edit' where project_id = ${web.id} and role = 'use'`
  await app.sql`update users set name = 'Robert' where idp_id = 'idp-bob'`
})

test('a write rolled back leaves the pages and the tag as they were; the same write committed changes both', async () => {
  const url = `/api/projects/${web.slug}/tickets`
  const tag = (await app.call('GET', url, { token: alice.token })).headers.etag as string
  await rows()
  await assert.rejects(
    app.sql.begin(async (tx) => {
      await tx`update tickets set subject = 'Never saved' where id = ${login.id}`
      throw new Error('rolled back')
    }),
    /rolled back/,
  )
  assert.equal(
    (await app.call('GET', url, { token: alice.token, headers: { 'if-none-match': tag } })).status,
    304,
  )
  assert.equal(
    (await rows(web.slug, '?q=state:all')).some((r) => r.includes('Never saved')),
    false,
  )
  await app.sql.begin(
    (tx) => tx`update tickets set subject = 'Saved in a transaction' where id = ${login.id}`,
  )
  assert.equal(
    (await app.call('GET', url, { token: alice.token, headers: { 'if-none-match': tag } })).status,
    200,
  )
  assert.ok(
    (await rows(web.slug, '?q=state:all')).some((r) => r.includes('Saved in a transaction')),
  )
})

test('nothing changed since a page was read: the same page is answered without reading its rows again', async () => {
  const pages = pageReadTable(app.sql, 10)
  const parsed = parseQuery('')
  assert.ok(parsed.ok)
  const ask: ListRequest = {
    query: parsed.query,
    search: { states: DEFAULT_FILTER, me: null },
    limit: 50,
    skip: 0,
  }
  const first = await pages.context(null, web.slug, ask)
  const second = await pages.context(null, web.slug, ask)
  assert.ok(first.project?.list && second.project?.list)
  assert.equal(second.project.list.rows, first.project.list.rows, 'the cached rows, not a new read')
  assert.equal(second.switcher, first.switcher, 'the cached switcher')
  assert.equal(second.project.members, first.project.members, 'the cached members')
  await app.call('POST', `/api/tickets/${fonts.id}/edit`, {
    token: alice.token,
    body: { summary: 'Only on Windows' },
  })
  const third = await pages.context(null, web.slug, ask)
  assert.notEqual(third.project!.list!.rows, first.project.list.rows, 'read again after a change')
  assert.notEqual(third.switcher, first.switcher)
  assert.deepEqual(
    third.project!.list!.rows.map((r) => r.ticket.id),
    first.project.list.rows.map((r) => r.ticket.id),
  )
})

test('at most the given number of pages are cached, the least recently used dropped first', async () => {
  const pages = pageReadTable(app.sql, 2)
  const ask = (text: string): ListRequest => {
    const parsed = parseQuery(text)
    assert.ok(parsed.ok)
    return { query: parsed.query, search: { states: DEFAULT_FILTER, me: null }, limit: 50, skip: 0 }
  }
  const read = async (text: string) =>
    (await pages.context(null, web.slug, ask(text))).project!.list!.rows
  const a = await read('fonts')
  const b = await read('csv')
  assert.equal(await read('fonts'), a)
  await read('export')
  assert.notEqual(await read('csv'), b, 'csv was the least recently used, so it was dropped')
  const none = pageReadTable(app.sql, 0)
  const once = (await none.context(null, web.slug, ask('fonts'))).project!.list!.rows
  assert.notEqual(
    (await none.context(null, web.slug, ask('fonts'))).project!.list!.rows,
    once,
    'with none cached, every read reads',
  )
})

test('two people reading the same pages in turn each see their own inbox count and their own "me"', async () => {
  // Bob signs in as Robert since an earlier test.
  await app.ticket(alice, web.slug, { subject: 'Bob reviews the login', assignee: 'Robert' })
  const waiting = async (who: typeof alice) => {
    const inbox = (await app.call('GET', '/api/inbox', { token: who.token })).body as {
      pending: unknown[]
      review: unknown[]
    }
    const n = inbox.pending.length + inbox.review.length
    return n === 1 ? '1 ticket waits for you' : `${n} tickets wait for you`
  }
  const expected = { bob: await waiting(bob), alice: await waiting(alice) }
  assert.notEqual(expected.bob, expected.alice)
  const read = async (who: typeof alice, query = '') => {
    const page = await app.call('GET', `/${web.slug}${query}`, { headers: { cookie: who.cookie } })
    assert.equal(page.status, 200, page.text)
    return {
      waits: /<span id="inbox-count-text" hidden[^>]*>([^<]*)<\/span>/.exec(page.text)?.[1],
      subjects: [...page.text.matchAll(/<a class="subject"[^>]*>([^<]*)</g)].map((m) => m[1]),
    }
  }
  for (let turn = 0; turn < 2; turn++) {
    assert.equal((await read(bob)).waits, expected.bob)
    assert.equal((await read(alice)).waits, expected.alice)
    assert.ok((await read(bob, '?q=assignee%3Ame')).subjects.includes('Bob reviews the login'))
    assert.ok(!(await read(alice, '?q=assignee%3Ame')).subjects.includes('Bob reviews the login'))
  }
})
