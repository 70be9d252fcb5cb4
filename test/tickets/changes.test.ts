import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const carol = await app.login('carol')
const demo = await app.project(alice, 'Demo')
await app.member(alice, demo.slug, bob, 'use')
await app.member(alice, demo.slug, carol, 'edit')

test('a comment answers 201 { ticket, event } and emits ticketEvent', async () => {
  const t = await app.ticket(alice, demo.slug)
  const got = await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: bob.token,
    body: { text: 'looks good' },
  })
  expectJson(got, 201)
  assert.equal(got.body.event.kind, 'comment')
  assert.equal(got.body.event.text, 'looks good')
  assert.equal(got.body.event.by, 'bob')
  assert.equal(got.body.event.user, bob.id)
  const last = (await app.events()).at(-1)!
  assert.deepEqual(last, {
    name: 'ticketEvent',
    args: [t.id, got.body.event, got.body.ticket],
    project_id: demo.id,
  })
})

test('a comment by project and number works like one by UUID', async () => {
  const t = await app.ticket(alice, demo.slug)
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets/${t.number}/comments`, {
      token: bob.token,
      body: { text: 'x' },
    }),
    201,
  )
  expectJson(
    await app.call('POST', `/api/projects/${demo.id}/tickets/${t.number}/comments`, {
      token: bob.token,
      body: { text: 'y' },
    }),
    201,
  )
  const events = (await app.call('GET', `/api/tickets/${t.id}`)).body.events
  assert.deepEqual(
    events.map((e: { text: string }) => e.text),
    ['x', 'y'],
  )
})

test('comment checks 405 POST only, 401, 400, then 404 no such ticket', async () => {
  const path = '/api/tickets/00000000-0000-4000-8000-000000000000/comments'
  expectJson(await app.call('GET', path), 405, { error: 'POST only' })
  expectJson(await app.call('POST', path, { body: { text: 'x' } }), 401, {
    error: 'a token is needed',
  })
  expectJson(await app.call('POST', path, { token: bob.token, body: {} }), 400, {
    error: "'text' is required",
    field: 'text',
  })
  expectJson(await app.call('POST', path, { token: bob.token, body: { text: 'x' } }), 404, {
    error: 'no such ticket',
  })
})

test('state change to doing on an unassigned ticket assigns the acting user', async () => {
  const t = await app.ticket(alice, demo.slug)
  const got = await app.call('POST', `/api/tickets/${t.id}/state`, {
    token: bob.token,
    body: { state: 'doing', text: 'on it' },
  })
  expectJson(got, 201)
  assert.equal(got.body.ticket.state, 'doing')
  assert.deepEqual(got.body.ticket.assignee, { id: bob.id, name: 'bob' })
  assert.equal(got.body.event.kind, 'state')
  assert.deepEqual(
    [got.body.event.from, got.body.event.to, got.body.event.text],
    ['open', 'doing', 'on it'],
  )
  assert.equal(got.body.assignEvent.kind, 'assign')
  assert.equal(got.body.assignEvent.from, null)
  assert.deepEqual(got.body.assignEvent.to, { id: bob.id, name: 'bob' })
  const names = (await app.events()).slice(-3)
  assert.deepEqual(
    names.map((e) => e.name),
    ['ticketEvent', 'ticketEvent', 'ticketsRelated'],
  )
  assert.deepEqual(names[0]!.args, [t.id, got.body.event, got.body.ticket])
  assert.deepEqual(names[1]!.args, [t.id, got.body.assignEvent, got.body.ticket])
  assert.deepEqual(
    (names[2]!.args[0] as { id: string }[]).map((v) => v.id),
    [t.id],
  )
})

test('state change to doing on an assigned ticket keeps the assignee and has no assignEvent', async () => {
  const t = await app.ticket(alice, demo.slug, { assignee: 'carol' })
  const got = await app.call('POST', `/api/tickets/${t.id}/state`, {
    token: bob.token,
    body: { state: 'doing' },
  })
  expectJson(got, 201)
  assert.equal(got.body.ticket.assignee.id, carol.id)
  assert.equal('assignEvent' in got.body, false)
  assert.deepEqual(
    (await app.events()).slice(-2).map((e) => e.name),
    ['ticketEvent', 'ticketsRelated'],
  )
})

test('state change to review gives the ticket back to its author when someone else holds it', async () => {
  const t = await app.ticket(alice, demo.slug, { assignee: 'bob' })
  const got = await app.call('POST', `/api/tickets/${t.id}/state`, {
    token: bob.token,
    body: { state: 'review' },
  })
  expectJson(got, 201)
  assert.deepEqual(got.body.ticket.assignee, { id: alice.id, name: 'alice' })
  assert.deepEqual(got.body.assignEvent.from, { id: bob.id, name: 'bob' })
  assert.deepEqual(got.body.assignEvent.to, { id: alice.id, name: 'alice' })
})

test('state change to review leaves an unassigned ticket or one the author holds alone', async () => {
  for (const assignee of ['', 'alice']) {
    const t = await app.ticket(alice, demo.slug, { assignee })
    const got = await app.call('POST', `/api/tickets/${t.id}/state`, {
      token: bob.token,
      body: { state: 'review' },
    })
    expectJson(got, 201)
    assert.equal('assignEvent' in got.body, false)
    assert.equal(got.body.ticket.assignee?.id ?? null, assignee ? alice.id : null)
  }
})

test('state change refuses an unknown state and the current state with 400 field state', async () => {
  const t = await app.ticket(alice, demo.slug)
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/state`, {
      token: bob.token,
      body: { state: 'closed' },
    }),
    400,
    { error: "unknown state 'closed'", field: 'state' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/state`, {
      token: bob.token,
      body: { state: 'open' },
    }),
    400,
    { error: 'the ticket is already open', field: 'state' },
  )
})

test('a refused change stores no event and no history', async () => {
  const t = await app.ticket(alice, demo.slug)
  const before = (await app.events()).length
  await app.call('POST', `/api/tickets/${t.id}/state`, {
    token: bob.token,
    body: { state: 'closed' },
  })
  assert.equal((await app.events()).length, before)
  assert.deepEqual((await app.call('GET', `/api/tickets/${t.id}`)).body.events, [])
})

test('assign sets and clears the assignee with an assign event', async () => {
  const t = await app.ticket(alice, demo.slug)
  const set = await app.call('POST', `/api/tickets/${t.id}/assign`, {
    token: carol.token,
    body: { assignee: 'idp-bob-2' },
  })
  expectJson(set, 201)
  assert.deepEqual(set.body.ticket.assignee, { id: bob.id, name: 'bob' })
  assert.deepEqual(Object.keys(set.body).sort(), ['event', 'ticket'])
  assert.equal(set.body.event.kind, 'assign')
  assert.deepEqual((await app.events()).at(-1)!.args, [t.id, set.body.event, set.body.ticket])
  const cleared = await app.call('POST', `/api/tickets/${t.id}/assign`, {
    token: carol.token,
    body: { assignee: '' },
  })
  expectJson(cleared, 201)
  assert.equal(cleared.body.ticket.assignee, null)
  assert.deepEqual(cleared.body.event.from, { id: bob.id, name: 'bob' })
  assert.equal(cleared.body.event.to, null)
})

test('assign without the assignee field answers 400 field assignee', async () => {
  const t = await app.ticket(alice, demo.slug)
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/assign`, { token: carol.token, body: {} }),
    400,
    { error: "'assignee' is required", field: 'assignee' },
  )
})

test('assign to someone outside the project answers 400 field assignee', async () => {
  const t = await app.ticket(alice, demo.slug)
  await app.login('dave')
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/assign`, {
      token: carol.token,
      body: { assignee: 'dave' },
    }),
    400,
    { error: "'dave' is not a member of this project", field: 'assignee' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/assign`, {
      token: carol.token,
      body: { assignee: 'ghost' },
    }),
    400,
    { error: "'ghost' is not a member of this project", field: 'assignee' },
  )
})

test('assign needs role edit or admin: 403 { error, field }', async () => {
  const t = await app.ticket(alice, demo.slug)
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/assign`, {
      token: bob.token,
      body: { assignee: 'bob' },
    }),
    403,
    { error: 'this needs role edit or admin', field: 'project' },
  )
})

test('edit keeps the previous values in the history and emits ticketEvent and ticketsRelated', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'old subject', summary: 'old summary' })
  const got = await app.call('POST', `/api/tickets/${t.id}/edit`, {
    token: carol.token,
    body: { subject: 'new subject', summary: 'new summary' },
  })
  expectJson(got, 201)
  assert.equal(got.body.ticket.subject, 'new subject')
  assert.equal(got.body.ticket.summary, 'new summary')
  assert.equal(got.body.event.kind, 'edit')
  assert.deepEqual(got.body.event.subject, { from: 'old subject', to: 'new subject' })
  assert.deepEqual(got.body.event.summary, { from: 'old summary', to: 'new summary' })
  const again = await app.call('POST', `/api/tickets/${t.id}/edit`, {
    token: carol.token,
    body: { summary: 'third' },
  })
  assert.deepEqual(again.body.event.summary, { from: 'new summary', to: 'third' })
  assert.equal('subject' in again.body.event, false)
  const history = (await app.call('GET', `/api/tickets/${t.id}`)).body.events
  assert.deepEqual(
    history.map((e: { summary: { from: string } }) => e.summary.from),
    ['old summary', 'new summary'],
  )
  assert.deepEqual(
    (await app.events()).slice(-2).map((e) => e.name),
    ['ticketEvent', 'ticketsRelated'],
  )
})

test('edit refuses nothing to change and an empty subject with 400', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'same' })
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/edit`, { token: carol.token, body: {} }),
    400,
    { error: "give 'subject' or 'summary' to change", field: 'subject' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/edit`, {
      token: carol.token,
      body: { subject: '' },
    }),
    400,
    { error: "'subject' cannot be empty", field: 'subject' },
  )
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/edit`, {
      token: carol.token,
      body: { subject: 'same' },
    }),
    400,
    { error: 'nothing changed: the ticket already reads so', field: 'subject' },
  )
})

test("edit with If-Match: the ticket's ETag saves, a stale one answers 412 and changes nothing", async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'concurrent', summary: 'first words' })
  const read = await app.call('GET', `/api/tickets/${t.id}`)
  const etag = String(read.headers.etag)
  assert.match(etag, /^"[^"]+"$/)
  const path = `/api/tickets/${t.id}/edit`
  expectJson(
    await app.call('POST', path, {
      token: carol.token,
      headers: { 'if-match': etag },
      body: { summary: 'Version from tab 1' },
    }),
    201,
  )
  expectJson(
    await app.call('POST', path, {
      token: alice.token,
      headers: { 'if-match': etag },
      body: { summary: 'Version from tab 2' },
    }),
    412,
    {
      error: 'the ticket has changed since you read it: read it again and merge your edit',
    },
  )
  const now = await app.call('GET', `/api/projects/${demo.slug}/tickets/${t.number}`)
  assert.equal(now.body.ticket.summary, 'Version from tab 1')
  assert.notEqual(now.headers.etag, etag)
  // The new tag, a list naming it, and `*` are accepted; a weak tag never is.
  expectJson(
    await app.call('POST', path, {
      token: alice.token,
      headers: { 'if-match': `W/${String(now.headers.etag)}` },
      body: { summary: 'weak' },
    }),
    412,
  )
  expectJson(
    await app.call('POST', path, {
      token: alice.token,
      headers: { 'if-match': `"other", ${String(now.headers.etag)}` },
      body: { summary: 'Version 3' },
    }),
    201,
  )
  expectJson(
    await app.call('POST', path, {
      token: alice.token,
      headers: { 'if-match': '*' },
      body: { summary: 'Version 4' },
    }),
    201,
  )
  // Without If-Match the interface's behaviour stays: the last save wins.
  expectJson(
    await app.call('POST', path, { token: carol.token, body: { summary: 'Version 5' } }),
    201,
  )
  const history = (await app.call('GET', `/api/tickets/${t.id}`)).body.events.filter(
    (e: { kind: string }) => e.kind === 'edit',
  )
  assert.deepEqual(
    history.map((e: { summary: { from: string; to: string } }) => [e.summary.from, e.summary.to]),
    [
      ['first words', 'Version from tab 1'],
      ['Version from tab 1', 'Version 3'],
      ['Version 3', 'Version 4'],
      ['Version 4', 'Version 5'],
    ],
  )
})

test('edit checks the role before If-Match: a member without edit gets 403, not 412', async () => {
  const t = await app.ticket(alice, demo.slug)
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/edit`, {
      token: bob.token,
      headers: { 'if-match': '"stale"' },
      body: { subject: 'x' },
    }),
    403,
    { error: 'this needs role edit or admin' },
  )
})

test('edit needs role edit or admin: 403 { error } without a field', async () => {
  const t = await app.ticket(alice, demo.slug)
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/edit`, {
      token: bob.token,
      body: { subject: 'x' },
    }),
    403,
    { error: 'this needs role edit or admin' },
  )
})

test('edit, assign and state answer 404 no such ticket after the body check', async () => {
  for (const [suffix, body] of [
    ['edit', { subject: 'x' }],
    ['assign', { assignee: '' }],
    ['state', { state: 'done' }],
  ] as const) {
    expectJson(
      await app.call('POST', `/api/projects/${demo.slug}/tickets/999/${suffix}`, {
        token: carol.token,
        body,
      }),
      404,
      { error: 'no such ticket' },
    )
    expectJson(await app.call('GET', `/api/projects/${demo.slug}/tickets/1/${suffix}`), 405, {
      error: 'POST only',
    })
  }
})

test('a change moves the ticket’s updated time', async () => {
  const t = await app.ticket(alice, demo.slug)
  app.clock.advance(5000)
  const got = await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: bob.token,
    body: { text: 'later' },
  })
  assert.equal(got.body.ticket.updated, (t.updated as number) + 5000)
})

test('a subject or comment of spaces is refused like an empty one, and a subject is stored trimmed', async () => {
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
      token: alice.token,
      body: { subject: '    ' },
    }),
    400,
    { error: "'subject' is required", field: 'subject' },
  )
  expectJson(
    await app.call('POST', '/api/tickets', {
      token: alice.token,
      body: { project: demo.slug, subject: ' \n\t' },
    }),
    400,
    { error: "'subject' is required", field: 'subject' },
  )
  const made = await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
    token: alice.token,
    body: { subject: '  Trim me  ' },
  })
  expectJson(made, 201)
  assert.equal(made.body.ticket.subject, 'Trim me')
  const id = made.body.ticket.id
  expectJson(
    await app.call('POST', `/api/tickets/${id}/comments`, {
      token: bob.token,
      body: { text: '   \n ' },
    }),
    400,
    { error: "'text' is required", field: 'text' },
  )
  const edited = await app.call('POST', `/api/tickets/${id}/edit`, {
    token: carol.token,
    body: { subject: ' Trimmed too ' },
  })
  assert.equal(edited.body.ticket.subject, 'Trimmed too')
  const events = (await app.call('GET', `/api/tickets/${id}`)).body.events
  assert.deepEqual(
    events.map((e: { kind: string }) => e.kind),
    ['edit'],
  )
})

test('a project title is stored trimmed', async () => {
  const made = await app.call('POST', '/api/projects', {
    token: alice.token,
    body: { title: '  Spaced  ' },
  })
  expectJson(made, 201)
  assert.equal(made.body.project.title, 'Spaced')
})
