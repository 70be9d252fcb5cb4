import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const carol = await app.login('carol')
const dave = await app.login('dave')
const web = await app.project(alice, 'Bulk web')
await app.member(alice, web.slug, bob, 'use')
await app.member(alice, web.slug, carol, 'edit')

const bulk = (token: string, body: unknown, slug = web.slug) =>
  app.call('POST', `/api/projects/${slug}/tickets/bulk`, { token, body })

/** The events stored since `from` (an index into the outbox). */
async function eventsSince(from: number) {
  return (await app.events()).slice(from)
}

test('a bulk state change changes every ticket the search finds, with one event each, and its Undo gives each back', async () => {
  const made = []
  for (let i = 0; i < 5; i++)
    made.push(await app.ticket(alice, web.slug, { subject: `crash ${i}` }))
  const other = await app.ticket(alice, web.slug, { subject: 'unrelated' })
  // One of them is already in review: it is not changed and gets no event.
  expectJson(
    await app.call('POST', `/api/tickets/${made[0]!.id}/state`, {
      token: alice.token,
      body: { state: 'review' },
    }),
    201,
  )
  const before = (await app.events()).length
  const got = await bulk(bob.token, { q: 'crash', state: 'review' })
  expectJson(got, 200)
  assert.equal(got.body.changed, 4)
  assert.match(got.body.undo, /^[a-z0-9]{12}$/)
  const events = await eventsSince(before)
  const ticketEvents = events.filter((e) => e.name === 'ticketEvent')
  assert.equal(ticketEvents.length, 4)
  assert.deepEqual(
    new Set(ticketEvents.map((e) => e.args[0])),
    new Set(made.slice(1).map((t) => t.id)),
  )
  for (const e of ticketEvents) {
    const [, event, ticket] = e.args as [string, Record<string, unknown>, Record<string, unknown>]
    assert.equal(event.kind, 'state')
    assert.equal(event.from, 'open')
    assert.equal(event.to, 'review')
    assert.equal(event.by, 'bob')
    assert.equal(ticket.state, 'review')
    // A bulk state change assigns nobody.
    assert.equal(ticket.assignee, null)
  }
  const history = (await app.call('GET', `/api/tickets/${made[1]!.id}`)).body.events
  assert.deepEqual(
    history.map((e: { kind: string; to?: string }) => [e.kind, e.to]),
    [['state', 'review']],
  )
  assert.equal((await app.call('GET', `/api/tickets/${other.id}`)).body.ticket.state, 'open')

  // Someone moves one on meanwhile: the Undo leaves it where they put it.
  expectJson(
    await app.call('POST', `/api/tickets/${made[4]!.id}/state`, {
      token: alice.token,
      body: { state: 'done' },
    }),
    201,
  )
  const beforeUndo = (await app.events()).length
  const undone = await bulk(bob.token, { undo: got.body.undo })
  expectJson(undone, 200)
  assert.equal(undone.body.changed, 3)
  const undoEvents = (await eventsSince(beforeUndo)).filter((e) => e.name === 'ticketEvent')
  assert.equal(undoEvents.length, 3)
  const states = await Promise.all(
    made.map(async (t) => (await app.call('GET', `/api/tickets/${t.id}`)).body.ticket.state),
  )
  assert.deepEqual(states, ['review', 'open', 'open', 'open', 'done'])
  // Undone once: a second Undo of the same change is refused.
  expectJson(await bulk(bob.token, { undo: got.body.undo }), 400, {
    error:
      'this bulk change cannot be undone: it is unknown, already undone, more than a day old or another person’s',
    field: 'undo',
  })
  // The Undo's own Undo sets the change again.
  const redo = await bulk(bob.token, { undo: undone.body.undo })
  expectJson(redo, 200)
  assert.equal(redo.body.changed, 3)
})

test('a bulk assignment sets the assignee of the numbered tickets of a search, and nobody with ""', async () => {
  const a = await app.ticket(alice, web.slug, { subject: 'assign me' })
  const b = await app.ticket(alice, web.slug, { subject: 'assign me too', assignee: 'bob' })
  const c = await app.ticket(alice, web.slug, { subject: 'assign me not' })
  const got = await bulk(carol.token, {
    q: 'state:all',
    numbers: `${a.number},${b.number}`,
    assignee: 'carol',
  })
  expectJson(got, 200)
  assert.equal(got.body.changed, 2)
  const read = async (id: string) => (await app.call('GET', `/api/tickets/${id}`)).body
  const bRead = await read(b.id)
  assert.deepEqual(bRead.ticket.assignee, { id: carol.id, name: 'carol' })
  assert.deepEqual(bRead.events.at(-1).from, { id: bob.id, name: 'bob' })
  assert.deepEqual(bRead.events.at(-1).to, { id: carol.id, name: 'carol' })
  assert.equal((await read(c.id)).ticket.assignee, null)
  const undone = await bulk(carol.token, { undo: got.body.undo })
  assert.equal(undone.body.changed, 2)
  assert.deepEqual((await read(b.id)).ticket.assignee, { id: bob.id, name: 'bob' })
  assert.equal((await read(a.id)).ticket.assignee, null)
  const none = await bulk(carol.token, { q: '', numbers: `${b.number}`, assignee: '' })
  expectJson(none, 200, { changed: 1, undo: none.body.undo })
  assert.equal((await read(b.id)).ticket.assignee, null)
})

test('the bulk route checks 405, 401, the body, 404, the role, then the rules, in that order', async () => {
  const path = `/api/projects/${web.slug}/tickets/bulk`
  expectJson(await app.call('GET', path), 405, { error: 'POST only' })
  expectJson(await app.call('POST', path, { body: { q: '', state: 'done' } }), 401, {
    error: 'a token is needed',
  })
  expectJson(await bulk(bob.token, { q: '' }), 400, {
    error:
      "give exactly one change: 'state', 'assignee', 'addLabel', 'removeLabel', 'milestone' or 'undo'",
    field: 'state',
  })
  expectJson(await bulk(bob.token, { q: '', state: 'done', assignee: 'bob' }), 400, {
    error:
      "give exactly one change: 'state', 'assignee', 'addLabel', 'removeLabel', 'milestone' or 'undo'",
    field: 'assignee',
  })
  expectJson(await bulk(bob.token, { state: 'done' }), 400, {
    error: "'q' is required: the search of the tickets to change",
    field: 'q',
  })
  expectJson(await bulk(bob.token, { q: 'priority:high', state: 'done' }), 400)
  assert.equal((await bulk(bob.token, { q: 'state:shut', state: 'done' })).body.field, 'q')
  expectJson(await bulk(bob.token, { q: '', numbers: '1,x', state: 'done' }), 400, {
    error: "'numbers' must be ticket numbers separated by commas (12,13,20), at most 1000",
    field: 'numbers',
  })
  expectJson(await bulk(bob.token, { q: '', state: 'done', extra: 'x' }), 400, {
    error: "unknown field 'extra'",
    field: 'extra',
  })
  expectJson(await bulk(bob.token, { q: '', state: 'done' }, 'no-such-project'), 404, {
    error: 'no such project',
  })
  expectJson(await bulk(dave.token, { q: '', state: 'done' }), 403, {
    error: 'you are not a member of this project',
    field: 'state',
  })
  expectJson(await bulk(bob.token, { q: '', assignee: 'bob' }), 403, {
    error: 'this needs role edit or admin',
    field: 'assignee',
  })
  expectJson(await bulk(bob.token, { q: '', state: 'shut' }), 400, {
    error: "unknown state 'shut'",
    field: 'state',
  })
  expectJson(await bulk(carol.token, { q: '', assignee: 'dave' }), 400, {
    error: "'dave' is not a member of this project",
    field: 'assignee',
  })
  expectJson(await bulk(carol.token, { undo: 'nosuchchange' }), 400)
  // Another person's change is not theirs to undo.
  const t = await app.ticket(alice, web.slug, { subject: 'mine to undo' })
  const mine = await bulk(alice.token, { q: '', numbers: String(t.number), state: 'doing' })
  assert.equal(mine.body.changed, 1)
  expectJson(await bulk(carol.token, { undo: mine.body.undo }), 400)
})

test('a bulk change refuses a search of more than 1,000 tickets with a 400 naming q, and changes nothing', async () => {
  const big = await app.project(alice, 'Bulk big')
  await app.sql`
    insert into tickets (project_id, number, subject, created, updated)
    select ${big.id}, n, 'many ' || n, n, n from generate_series(1, 1001) as n`
  await app.sql`update projects set next_number = 1002 where id = ${big.id}`
  const before = (await app.events()).length
  // What the page asks before it offers Select all N matching: past 1,000, only that it is more.
  const counted = (q: string) =>
    app.call('GET', `/api/projects/${big.slug}/tickets/count?q=${encodeURIComponent(q)}`)
  expectJson(await counted(''), 200, { count: 1000, more: true })
  expectJson(await bulk(alice.token, { q: '', state: 'done' }, big.slug), 400, {
    error: 'the search finds more than 1000 tickets: narrow it, at most 1000 are changed at once',
    field: 'q',
  })
  assert.equal((await app.events()).length, before)
  const [open] = await app.sql<{ n: number }[]>`
    select count(*)::int as n from tickets where project_id = ${big.id} and state = 'open'`
  assert.equal(open!.n, 1001)
  // 1,000 of them at once is allowed, in one change with an event each, and the tab counts follow.
  const done = await bulk(
    alice.token,
    { q: 'state:open', numbers: range(1, 1000), state: 'done' },
    big.slug,
  )
  expectJson(done, 200)
  assert.equal(done.body.changed, 1000)
  const ticketEvents = (await eventsSince(before)).filter((e) => e.name === 'ticketEvent')
  assert.equal(ticketEvents.length, 1000)
  const [tabs] = await app.sql<{ n: number }[]>`
    select coalesce(sum(count), 0)::int as n from ticket_counts where project_id = ${big.id} and state = 'done'`
  assert.equal(tabs!.n, 1000)
  expectJson(await counted(''), 200, { count: 1, more: false })
  expectJson(await counted('state:done'), 200, { count: 1000, more: false })
  expectJson(await counted('state:all many'), 200, { count: 1000, more: true })
})

test('the count of a bulk change’s search says how many tickets it would reach, as the change reads the search, and checks 405, the search, then the project', async () => {
  const p = await app.project(alice, 'Bulk count')
  await app.member(alice, p.slug, bob, 'use')
  for (const subject of ['count crash', 'count crash again', 'count other'])
    await app.ticket(alice, p.slug, { subject })
  const mine = await app.ticket(alice, p.slug, { subject: 'count crash mine' })
  expectJson(
    await app.call('POST', `/api/tickets/${mine.id}/state`, {
      token: alice.token,
      body: { state: 'done' },
    }),
    201,
  )
  const path = (q: string, slug = p.slug) =>
    `/api/projects/${slug}/tickets/count?q=${encodeURIComponent(q)}`
  // Without a state: term, open, doing and review, as the list and the bulk change read it.
  expectJson(await app.call('GET', path('crash')), 200, { count: 2, more: false })
  expectJson(await app.call('GET', path('crash state:all')), 200, { count: 3, more: false })
  expectJson(await app.call('GET', path('')), 200, { count: 3, more: false })
  // `me` is the reader: a token's user here; nobody, refused as the lists refuse it.
  await app.call('POST', `/api/tickets/${mine.id}/assign`, {
    token: alice.token,
    body: { assignee: 'bob' },
  })
  expectJson(await app.call('GET', path('assignee:me state:all'), { token: bob.token }), 200, {
    count: 1,
    more: false,
  })
  expectJson(await app.call('GET', path('assignee:me')), 400, {
    error: "'me' in a search needs a signed-in person",
    field: 'q',
  })
  expectJson(await app.call('POST', path('')), 405, { error: 'GET only' })
  assert.equal((await app.call('GET', path('state:shut'))).body.field, 'q')
  expectJson(await app.call('GET', path('state:shut', 'no-such-project')), 400)
  expectJson(await app.call('GET', path('', 'no-such-project')), 404, {
    error: 'no such project',
  })
})

function range(from: number, to: number): string {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i).join(',')
}

test('labels are added and taken off in bulk, and a milestone set, with one event a ticket and one Undo each', async () => {
  const p = await app.project(alice, 'Bulk labels')
  await app.member(alice, p.slug, carol, 'edit')
  await app.member(alice, p.slug, bob, 'use')
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/labels`, {
      token: alice.token,
      body: { name: 'bug', color: '#d73a4a' },
    }),
    201,
  )
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/milestones`, {
      token: alice.token,
      body: { title: 'v1.0' },
    }),
    201,
  )
  const made = []
  for (let i = 0; i < 3; i++) made.push(await app.ticket(alice, p.slug, { subject: `crash ${i}` }))
  // One has the label already: it gets no second one and no event.
  expectJson(
    await app.call('POST', `/api/tickets/${made[0]!.id}/labels`, {
      token: alice.token,
      body: { add: 'bug' },
    }),
    201,
  )
  const read = async (id: string) => (await app.call('GET', `/api/tickets/${id}`)).body
  const before = (await app.events()).length
  const added = await bulk(carol.token, { q: 'crash', addLabel: 'BUG' }, p.slug)
  expectJson(added, 200)
  assert.equal(added.body.changed, 2)
  const labelEvents = (await eventsSince(before)).filter((e) => e.name === 'ticketEvent')
  assert.equal(labelEvents.length, 2)
  for (const e of labelEvents) {
    const [, event, ticket] = e.args as [string, Record<string, unknown>, { labels: string[] }]
    assert.equal(event.kind, 'label')
    assert.equal(event.action, 'added')
    assert.equal(event.label, 'bug')
    // The ticket each event carries has the label it was given.
    assert.deepEqual(ticket.labels, ['bug'])
  }
  for (const t of made) assert.deepEqual((await read(t.id)).ticket.labels, ['bug'])
  const undone = await bulk(carol.token, { undo: added.body.undo }, p.slug)
  assert.equal(undone.body.changed, 2)
  assert.deepEqual(await Promise.all(made.map(async (t) => (await read(t.id)).ticket.labels)), [
    ['bug'],
    [],
    [],
  ])
  const removed = await bulk(carol.token, { q: 'crash', removeLabel: 'bug' }, p.slug)
  assert.equal(removed.body.changed, 1)
  assert.deepEqual((await read(made[0]!.id)).ticket.labels, [])

  const milestoned = await bulk(carol.token, { q: 'crash', milestone: 'v1.0' }, p.slug)
  assert.equal(milestoned.body.changed, 3)
  const m = await read(made[1]!.id)
  assert.equal(m.ticket.milestone, 'v1.0')
  assert.equal(m.events.at(-1).kind, 'milestone')
  assert.equal(m.events.at(-1).to, 'v1.0')
  assert.equal(m.events.at(-1).from, null)
  const back = await bulk(carol.token, { undo: milestoned.body.undo }, p.slug)
  assert.equal(back.body.changed, 3)
  assert.equal((await read(made[1]!.id)).ticket.milestone, null)

  expectJson(await bulk(bob.token, { q: '', addLabel: 'bug' }, p.slug), 403, {
    error: 'this needs role edit or admin',
    field: 'addLabel',
  })
  expectJson(await bulk(carol.token, { q: '', addLabel: 'nope' }, p.slug), 400, {
    error: "this project has no label 'nope'",
    field: 'addLabel',
  })
  expectJson(await bulk(carol.token, { q: '', milestone: 'v9' }, p.slug), 400, {
    error: "this project has no milestone 'v9'",
    field: 'milestone',
  })
})
