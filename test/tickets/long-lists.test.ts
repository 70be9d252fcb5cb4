/**
 * Long lists on the pages (docs/tickets-app.md, "Pages"; docs/scaling.md, "A million
 * tickets"): a search's page reads the rows it shows and one more, and says "more than" where a
 * count would read every match; the inbox comes in pages of 50 with its counts true; the API's
 * answers stay whole and exact.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const web = await app.project(alice, 'Long lists')
const T0 = app.clock.now()

/** Adds `n` tickets to `projectId` with `subject(i)`, in `state`, assigned to `assignee`, the newest last. */
async function fill(
  projectId: string,
  n: number,
  subject: string,
  state: string,
  assignee: string | null,
  from = 0,
): Promise<void> {
  await app.sql`
    insert into tickets (project_id, number, subject, state, assignee_id, author_id, created, updated)
    select ${projectId}, p.next_number + i - 1, ${subject} || ' ' || i, ${state}, ${assignee}, ${alice.id}, ${T0}::bigint + (${from} + i) * 1000, ${T0}::bigint + (${from} + i) * 1000
    from projects p, generate_series(1, ${n}::int) i where p.id = ${projectId}`
  await app.sql`update projects set next_number = next_number + ${n} where id = ${projectId}`
}

// 120 tickets that mention a crash (all open), and 1,100 that mention a login (open).
await fill(web.id, 120, 'Crash on start', 'open', null)
await fill(web.id, 1_100, 'Login loops', 'open', null, 120)
// 63 open and 4 in review assigned to alice, in a project of their own.
const mine = await app.project(alice, 'Inbox pages')
await fill(mine.id, 63, 'Mine to do', 'open', alice.id)
await fill(mine.id, 4, 'Mine to review', 'review', alice.id, 63)

/** A page as alice sees it, its text without tags. */
async function page(path: string): Promise<{ text: string; html: string }> {
  const answer = await app.call('GET', path, { headers: { cookie: alice.cookie } })
  assert.equal(answer.status, 200, answer.text)
  return {
    html: answer.text,
    text: answer.text
      .replace(/<[^>]+>/g, ' ')
      .replace(/&quot;/g, '"')
      .replace(/\s+/g, ' '),
  }
}

/** The subjects a list of the page shows, by its accessible name. */
function listed(html: string, label: string): string[] {
  const list = new RegExp(`<ul class="tickets[^"]*" aria-label="${label}">([\\s\\S]*?)</ul>`).exec(
    html,
  )
  if (list === null) return []
  return [...list[1]!.matchAll(/<a class="subject" href="[^"]+">([\s\S]*?)<\/a>/g)].map((m) =>
    m[1]!.replace(/<[^>]+>/g, '').trim(),
  )
}

/** The address of the link named `name` on the page. */
function link(html: string, name: string): string {
  const found = [...html.matchAll(/<a href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].find(
    (m) => m[2]!.trim() === name,
  )
  assert.ok(found, `a link named ${name}`)
  return found[1]!.replace(/&amp;/g, '&')
}

test('a search with many matches says "more than" the tickets up to its page, and walks to the last page, which counts them all', async () => {
  const first = await page(`/${web.slug}?q=login`)
  assert.match(first.text, /1–50 of more than 50 matching login/)
  assert.match(first.text, /Page 1 Next →/)
  assert.equal(listed(first.html, 'Tickets').length, 50)
  assert.equal(listed(first.html, 'Tickets')[0], 'Login loops 1100', 'newest first')
  const second = await page(link(first.html, 'Next →'))
  assert.match(second.text, /51–100 of more than 100 matching login/)
  assert.match(second.text, /← Previous Page 2 Next →/)
  const last = await page(`/${web.slug}?q=login&page=22`)
  assert.match(last.text, /1,051–1,100 of 1,100 matching login/)
  assert.doesNotMatch(last.html, /rel="next"/)
  assert.deepEqual(listed(last.html, 'Tickets').at(-1), 'Login loops 1')
})

test('a search that fits on one page counts its matches exactly, and a search of states alone is always counted', async () => {
  const few = await page(`/${web.slug}?q=crash`)
  assert.match(few.text, /1–50 of more than 50 matching crash/)
  const one = await page(`/${web.slug}?q=${encodeURIComponent('"crash on start 7"')}`)
  assert.match(one.text, /1–1 of 1 matching "crash on start 7"/)
  const states = await page(`/${web.slug}?q=state:open`)
  assert.match(states.text, /1–50 of 1,220 matching state:open/)
  assert.match(states.text, /Page 1 of 25/)
})

test('the search in every project pages too, and says "more than" until its last page', async () => {
  const first = await page('/tickets?q=crash')
  assert.match(first.text, /More than 50 tickets in every project matching crash/)
  const third = await page(link((await page(link(first.html, 'Next →'))).html, 'Next →'))
  assert.match(third.text, /120 tickets in every project matching crash/)
  assert.equal(listed(third.html, 'Tickets').length, 20)
  assert.doesNotMatch(third.html, /rel="next"/)
})

test('the API still answers every match of a search, and its Markdown heading counts them all', async () => {
  const all = await app.call('GET', `/api/projects/${web.slug}/tickets?q=login`, {
    token: alice.token,
  })
  assert.equal(all.status, 200, all.text)
  assert.equal((all.body.tickets as unknown[]).length, 1_100)
  const md = await app.call('GET', `/api/projects/${web.slug}/tickets?q=login`, {
    token: alice.token,
    headers: { accept: 'text/markdown' },
  })
  assert.match(md.text, /: 1100 tickets|: 1,100 tickets/)
})

test('the inbox shows 50 tickets a list with the true counts, and its second page the rest', async () => {
  const first = await page('/inbox')
  assert.match(first.text, /Waiting for you \(63\)/)
  assert.match(first.text, /In review \(4\)/)
  assert.match(first.html, /data-live="inbox-count">(<span[^>]*>)?67</, 'the count in the top bar')
  const pending = listed(first.html, 'Waiting for you')
  assert.equal(pending.length, 50)
  assert.equal(pending[0], 'Mine to do 63', 'latest change first')
  assert.equal(listed(first.html, 'In review').length, 4)
  assert.match(first.text, /50 of 63 shown Next →/)
  const second = await page(link(first.html, 'Next →'))
  assert.match(second.text, /Waiting for you \(63\)/, 'the count is of every page')
  assert.deepEqual(
    listed(second.html, 'Waiting for you'),
    Array.from({ length: 13 }, (_, i) => `Mine to do ${13 - i}`),
  )
  assert.equal(listed(second.html, 'In review').length, 4, 'the other list stays on its page')
  assert.match(second.text, /← First page 13 of 63 shown/)
  assert.doesNotMatch(second.html, /rel="next"/)
  assert.equal(
    listed((await page(link(second.html, '← First page'))).html, 'Waiting for you').length,
    50,
  )
})

test('an inbox address with a cursor the inbox did not hand out shows the first page', async () => {
  const odd = await page('/inbox?pending=bm90LWEtY3Vyc29y&review=%3Cscript%3E')
  assert.equal(listed(odd.html, 'Waiting for you')[0], 'Mine to do 63')
})

test('the inbox API still answers every ticket assigned', async () => {
  const all = await app.call('GET', '/api/inbox', { token: alice.token })
  assert.equal(all.status, 200, all.text)
  assert.equal((all.body.pending as unknown[]).length, 63)
  assert.equal((all.body.review as unknown[]).length, 4)
})
