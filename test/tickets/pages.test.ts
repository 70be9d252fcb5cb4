import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp, type Answer } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const p = await app.project(alice, 'Old Name')
const t = await app.ticket(alice, p.slug, { subject: 'A <b>bold</b> ticket', summary: 'x < y' })
await app.call('POST', `/api/projects/${p.slug}`, {
  token: alice.token,
  body: { slug: 'new-name' },
})

function assertMoved(answer: Answer, location: string): void {
  assert.equal(answer.status, 301, answer.text)
  assert.equal(answer.headers.location, location)
}

function assertMissing(answer: Answer, text: string): void {
  assert.equal(answer.status, 404, answer.text)
  assert.ok(answer.text.includes(`<p>${text}</p>`), answer.text)
}

test('/tickets/<uuid> answers 301 to /<current slug>/<number>', async () => {
  assertMoved(await app.call('GET', `/tickets/${t.id}`), `/new-name/${t.number}`)
})

test('/tickets/<unknown> answers 404 no such ticket', async () => {
  assertMissing(
    await app.call('GET', '/tickets/00000000-0000-4000-8000-000000000000'),
    'no such ticket',
  )
  assertMissing(await app.call('GET', '/tickets/77'), 'no such ticket')
})

test('/projects/<slug, old slug or id> answers 301 to /<current slug>', async () => {
  for (const ref of ['old-name', 'new-name', p.id])
    assertMoved(await app.call('GET', `/projects/${ref}`), '/new-name')
  assertMissing(await app.call('GET', '/projects/nope'), 'no such project')
})

test('/projects/<slug>/<number> and /projects/<slug>/tickets/<number> answer 301 to /<slug>/<number>', async () => {
  assertMoved(await app.call('GET', `/projects/old-name/${t.number}`), `/new-name/${t.number}`)
  assertMoved(
    await app.call('GET', `/projects/${p.id}/tickets/${t.number}`),
    `/new-name/${t.number}`,
  )
  assertMissing(await app.call('GET', '/projects/old-name/99'), 'no such ticket')
  assertMissing(await app.call('GET', '/projects/nope/tickets/1'), 'no such ticket')
})

test('the project page answers HTML listing its tickets, escaped, with the strict page headers', async () => {
  const got = await app.call('GET', '/new-name')
  assert.equal(got.status, 200)
  assert.equal(got.headers['content-type'], 'text/html; charset=utf-8')
  assert.ok(got.text.includes('<title>Old Name · Tickets</title>'), got.text)
  assert.ok(got.text.includes('<ul class="tickets" aria-label="Tickets">'))
  assert.ok(
    got.text.includes(
      `<a class="subject" href="/new-name/${t.number}">A &lt;b&gt;bold&lt;/b&gt; ticket</a>`,
    ),
    got.text,
  )
  assert.ok(!got.text.includes('<b>bold</b>'))
  assert.match(
    String(got.headers['content-security-policy']),
    /script-src 'self';.*frame-ancestors 'none'/,
  )
  assert.equal(got.headers['x-content-type-options'], 'nosniff')
  assert.equal(got.headers['referrer-policy'], 'same-origin')
  assert.equal(got.headers['cache-control'], 'private, no-cache')
})

test('the pages carry the sign-in button, returning to the page after login', async () => {
  const got = await app.call('GET', '/new-name?state=all')
  const back = encodeURIComponent(
    `http://localhost:3002/login/callback?next=${encodeURIComponent('/new-name?state=all')}`,
  )
  assert.ok(
    got.text.includes(
      `<a class="button primary" href="http://idp.test/login?key=dev-key&amp;return=${back}">Sign in</a>`,
    ),
    got.text,
  )
})

test('the ticket page answers HTML with the ticket, escaped', async () => {
  const got = await app.call('GET', `/new-name/${t.number}`)
  assert.equal(got.status, 200)
  assert.ok(
    got.text.includes(
      `<h1 class="ticket-title"><span>A &lt;b&gt;bold&lt;/b&gt; ticket</span> <span class="ref">new-name#${t.number}</span></h1>`,
    ),
    got.text,
  )
  assert.ok(got.text.includes('<p>x &lt; y</p>'))
})

test('the ticket page of each project shows its own ticket of that number, though other projects have one too', async () => {
  for (const title of ['Second', 'Third']) {
    const other = await app.project(alice, title)
    const own = await app.ticket(alice, other.slug, { subject: `The first of ${title}` })
    assert.equal(own.number, 1)
    const got = await app.call('GET', `/${other.slug}/1`)
    assert.equal(got.status, 200, got.text)
    assert.ok(
      got.text.includes(
        `<span>The first of ${title}</span> <span class="ref">${other.slug}#1</span>`,
      ),
      got.text,
    )
  }
  const first = await app.call('GET', `/new-name/${t.number}`)
  assert.equal(first.status, 200)
  assert.ok(first.text.includes('<span>A &lt;b&gt;bold&lt;/b&gt; ticket</span>'))
})

test('a short page reached by an old slug or the id moves to the current slug', async () => {
  assertMoved(await app.call('GET', '/old-name'), '/new-name')
  assertMoved(await app.call('GET', `/${p.id}/${t.number}`), `/new-name/${t.number}`)
})

test('unknown short pages answer 404 in words a person reads, naming what was asked for', async () => {
  const said = (answer: Answer) => answer.text.replaceAll('&#39;', "'")
  const project = await app.call('GET', '/nope')
  assertMissing(
    project,
    'There is no project at /nope. Check the address, or pick a project from the list.',
  )
  assert.equal(project.headers['x-error-code'], 'no_such_project')
  for (const path of ['/new-name/999', '/new-name/abc']) {
    const ticket = await app.call('GET', path)
    assert.equal(ticket.status, 404)
    assert.ok(
      said(ticket).includes(
        `<p>There is no ticket new-name#${path.slice(10)}. Check the number, or find it from the project's list.</p>`,
      ),
      ticket.text,
    )
  }
  assertMissing(
    await app.call('GET', '/nope/1'),
    'There is no project at /nope. Check the address, or pick a project from the list.',
  )
})

test('pages answer 405 GET only to other methods, and an unknown API path stays a JSON 404', async () => {
  expectJson(await app.call('POST', '/new-name'), 405, { error: 'GET only' })
  expectJson(await app.call('POST', `/tickets/${t.id}`), 405, { error: 'GET only' })
  expectJson(await app.call('POST', '/api/nothing'), 404, { error: 'not found' })
  expectJson(await app.call('GET', '/api/nothing/here'), 404, { error: 'not found' })
})

test('the home page lists the projects with links to their pages, escaped, and the sign-in link', async () => {
  await app.project(alice, 'A <i>fancy</i> one')
  const got = await app.call('GET', '/')
  assert.equal(got.status, 200)
  assert.equal(got.headers['content-type'], 'text/html; charset=utf-8')
  assert.ok(got.text.includes('<li data-key="new-name"><a href="/new-name">Old Name</a>'), got.text)
  assert.ok(got.text.includes('A &lt;i&gt;fancy&lt;/i&gt; one'), got.text)
  assert.ok(got.text.includes('>Sign in</a>'))
})

test('GET /login sends the browser to the identity provider, coming back to a safe next path', async () => {
  const got = await app.call('GET', '/login?next=/new-name')
  assert.equal(got.status, 302)
  assert.equal(got.headers['cache-control'], 'no-store')
  const back = encodeURIComponent(
    `http://localhost:3002/login/callback?next=${encodeURIComponent('/new-name')}`,
  )
  assert.equal(got.headers.location, `http://idp.test/login?key=dev-key&return=${back}`)
  const unsafe = await app.call('GET', '/login?next=//evil.example/')
  assert.equal(
    unsafe.headers.location,
    `http://idp.test/login?key=dev-key&return=${encodeURIComponent('http://localhost:3002/login/callback')}`,
  )
})
