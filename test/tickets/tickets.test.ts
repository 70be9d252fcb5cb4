import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const demo = await app.project(alice, 'Demo')
await app.member(alice, demo.slug, bob, 'use')

test('creating on both paths numbers tickets per project from 1', async () => {
  const other = await app.project(alice, 'Other')
  const a = await app.call('POST', '/api/tickets', {
    token: alice.token,
    body: { project: other.slug, subject: 'one' },
  })
  const b = await app.call('POST', `/api/projects/${other.id}/tickets`, {
    token: alice.token,
    body: { subject: 'two', summary: 'more' },
  })
  expectJson(a, 201)
  expectJson(b, 201)
  assert.equal(a.body.existed, false)
  assert.deepEqual([a.body.ticket.number, b.body.ticket.number], [1, 2])
  assert.equal(a.body.ticket.ref, 'other#1')
  assert.equal(b.body.ticket.summary, 'more')
  assert.equal(b.body.ticket.project, other.id)
  assert.equal(b.body.ticket.state, 'open')
  assert.match(a.body.ticket.id, /^[0-9a-f-]{36}$/)
  assert.equal(a.body.ticket.author.id, alice.id)
})

test('parallel creates in one project never share a number', async () => {
  const p = await app.project(alice, 'Parallel')
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      app.call('POST', `/api/projects/${p.slug}/tickets`, {
        token: alice.token,
        body: { subject: `t${i}` },
      }),
    ),
  )
  for (const a of answers) expectJson(a, 201)
  const numbers = answers.map((a) => a.body.ticket.number as number).sort((x, y) => x - y)
  assert.deepEqual(
    numbers,
    Array.from({ length: 20 }, (_, i) => i + 1),
  )
})

test('a repeated source answers the existing ticket with 200, existed true, and emits nothing', async () => {
  const p = await app.project(alice, 'Scheduler')
  const first = await app.call('POST', `/api/projects/${p.slug}/tickets`, {
    token: alice.token,
    body: { subject: 'nightly', source: 'cron:nightly:2026-11-22' },
  })
  expectJson(first, 201)
  const before = (await app.events()).length
  const again = await app.call('POST', '/api/tickets', {
    token: alice.token,
    body: { project: p.id, subject: 'other words', source: 'cron:nightly:2026-11-22' },
  })
  expectJson(again, 200, { ticket: first.body.ticket, existed: true })
  assert.equal((await app.events()).length, before)
  const [row] = await app.sql`select count(*)::int as n from tickets where project_id = ${p.id}`
  assert.equal(row!.n, 1)
})

test('parallel creates with the same source make one ticket', async () => {
  const p = await app.project(alice, 'Same Source')
  const answers = await Promise.all(
    Array.from({ length: 5 }, () =>
      app.call('POST', `/api/projects/${p.slug}/tickets`, {
        token: alice.token,
        body: { subject: 's', source: 'once' },
      }),
    ),
  )
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 201])
  assert.equal(new Set(answers.map((a) => a.body.ticket.id)).size, 1)
})

test('the same source in another project is another ticket', async () => {
  const p1 = await app.project(alice, 'Source A')
  const p2 = await app.project(alice, 'Source B')
  await app.ticket(alice, p1.slug, { source: 'shared' })
  const second = await app.call('POST', `/api/projects/${p2.slug}/tickets`, {
    token: alice.token,
    body: { subject: 'x', source: 'shared' },
  })
  expectJson(second, 201)
})

test('creating emits ticketCreated with the ticket', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'watched' })
  const last = (await app.events()).at(-1)!
  assert.equal(last.name, 'ticketCreated')
  assert.equal(last.project_id, demo.id)
  assert.deepEqual(last.args, [t])
})

test('a new ticket may be assigned to a member by name, id or identity-provider id', async () => {
  for (const ref of ['bob', bob.id, 'idp-bob-2']) {
    const t = await app.ticket(alice, demo.slug, { assignee: ref })
    assert.deepEqual(t.assignee, { id: bob.id, name: 'bob' })
  }
  const nobody = await app.ticket(alice, demo.slug, { assignee: '' })
  assert.equal(nobody.assignee, null)
})

test('an assignee who is not a member answers 400 with field assignee', async () => {
  await app.login('outsider')
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: alice.token,
      body: { subject: 'x', assignee: 'outsider' },
    }),
    400,
    { error: "'outsider' is not a member of this project", field: 'assignee' },
  )
})

test('a non-member creating a ticket answers 403 { error, field }', async () => {
  const eve = await app.login('eve')
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: eve.token,
      body: { subject: 'x' },
    }),
    403,
    { error: 'you are not a member of this project', field: 'project' },
  )
})

test('creating in an unknown project answers 404 no such project', async () => {
  expectJson(
    await app.call('POST', '/api/tickets', {
      token: alice.token,
      body: { project: 'nope', subject: 'x' },
    }),
    404,
    { error: 'no such project' },
  )
  expectJson(
    await app.call('POST', '/api/projects/nope/tickets', {
      token: alice.token,
      body: { subject: 'x' },
    }),
    404,
    { error: 'no such project' },
  )
})

test('creating without project on /api/tickets answers 400 naming it', async () => {
  expectJson(
    await app.call('POST', '/api/tickets', { token: alice.token, body: { subject: 'x' } }),
    400,
    { error: "'project' is required", field: 'project' },
  )
})

test('list routes answer 405 GET or POST', async () => {
  expectJson(await app.call('PUT', '/api/tickets'), 405, { error: 'GET or POST' })
  expectJson(await app.call('DELETE', `/api/projects/${demo.slug}/tickets`), 405, {
    error: 'GET or POST',
  })
})

test('the lists show open, doing and review by default; ?state= filters; ?state=all shows all', async () => {
  const p = await app.project(alice, 'Filter')
  const made: Record<string, string> = {}
  for (const state of ['open', 'doing', 'review', 'done', 'dropped']) {
    const t = await app.ticket(alice, p.slug, { subject: state })
    made[state] = t.id
    if (state !== 'open')
      expectJson(
        await app.call('POST', `/api/tickets/${t.id}/state`, {
          token: alice.token,
          body: { state },
        }),
        201,
      )
  }
  const states = async (url: string) =>
    ((await app.call('GET', url)).body.tickets as { state: string }[]).map((t) => t.state).sort()
  assert.deepEqual(await states(`/api/projects/${p.slug}/tickets`), ['doing', 'open', 'review'])
  assert.deepEqual(await states(`/api/projects/${p.slug}/tickets?state=done,dropped`), [
    'done',
    'dropped',
  ])
  assert.deepEqual(await states(`/api/projects/${p.slug}/tickets?state=all`), [
    'doing',
    'done',
    'dropped',
    'open',
    'review',
  ])
  assert.deepEqual(await states(`/api/tickets?project=${p.slug}&state=done`), ['done'])
})

test('the lists answer 400 for an unknown state', async () => {
  expectJson(await app.call('GET', '/api/tickets?state=open,closed'), 400, {
    error: "unknown state 'closed'",
    field: 'state',
  })
  expectJson(await app.call('GET', `/api/projects/${demo.slug}/tickets?state=x`), 400, {
    error: "unknown state 'x'",
    field: 'state',
  })
})

test('/api/tickets lists every project without ?project and one project with it, newest first', async () => {
  const a = await app.project(alice, 'List A')
  const b = await app.project(alice, 'List B')
  const ta = await app.ticket(alice, a.slug)
  app.clock.advance(1000)
  const tb = await app.ticket(alice, b.slug)
  const all = (await app.call('GET', '/api/tickets')).body.tickets.map((t: { id: string }) => t.id)
  assert.ok(all.indexOf(tb.id) < all.indexOf(ta.id))
  const onlyA = await app.call('GET', `/api/tickets?project=${a.id}`)
  assert.deepEqual(
    onlyA.body.tickets.map((t: { id: string }) => t.id),
    [ta.id],
  )
  const empty = await app.call('GET', '/api/tickets?project=')
  assert.equal(empty.body.tickets.length, all.length)
  expectJson(await app.call('GET', '/api/tickets?project=nope'), 404, { error: 'no such project' })
  expectJson(await app.call('GET', '/api/projects/nope/tickets'), 404, { error: 'no such project' })
})

test('a single ticket answers with its events by UUID and by project and number', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'single' })
  await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: alice.token,
    body: { text: 'first comment' },
  })
  const byId = await app.call('GET', `/api/tickets/${t.id}`)
  expectJson(byId, 200)
  assert.equal(byId.body.ticket.subject, 'single')
  assert.equal(byId.body.events.length, 1)
  assert.equal(byId.body.events[0].kind, 'comment')
  assert.equal(byId.body.events[0].text, 'first comment')
  const byNumber = await app.call('GET', `/api/projects/${demo.slug}/tickets/${t.number}`)
  assert.equal(byNumber.text, byId.text)
  const byUpper = await app.call('GET', `/api/tickets/${t.id.toUpperCase()}`)
  assert.equal(byUpper.text, byId.text)
})

test('an unknown ticket answers 404 no such ticket', async () => {
  for (const path of [
    '/api/tickets/00000000-0000-4000-8000-000000000000',
    '/api/tickets/999',
    '/api/tickets/not-a-ref',
    '/api/tickets/99999999999999',
    `/api/projects/${demo.slug}/tickets/999`,
    `/api/projects/${demo.slug}/tickets/abc`,
    '/api/projects/nope/tickets/1',
    `/api/projects/${demo.slug}/tickets/0`,
  ]) {
    expectJson(await app.call('GET', path), 404, { error: 'no such ticket' })
  }
})

test('the single ticket answers 405 GET only', async () => {
  expectJson(await app.call('POST', `/api/projects/${demo.slug}/tickets/1`), 405, {
    error: 'GET only',
  })
  expectJson(await app.call('DELETE', '/api/tickets/1'), 405, { error: 'GET only' })
})

test('a route parameter named like an Object.prototype member is only a name', async () => {
  expectJson(await app.call('GET', '/api/projects/constructor'), 404, { error: 'no such project' })
  expectJson(await app.call('GET', '/api/tickets/__proto__'), 404, { error: 'no such ticket' })
})
