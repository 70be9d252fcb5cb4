/**
 * Labels, milestones and due dates through the API (docs/tickets-api.md, "Labels, milestones and
 * due dates"): every route with its refusals in the interface's order, the ticket's new fields
 * in JSON and Markdown, the history events, the live events and the webhooks' kinds.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'
import { webhookMessageOf } from '../../src/tickets/rules/webhook-events.ts'
import { importTickets } from '../../src/tickets/importer/import.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const carol = await app.login('carol')
const stranger = await app.login('stranger')
const demo = await app.project(alice, 'Organise')
await app.member(alice, demo.slug, bob, 'edit')
await app.member(alice, demo.slug, carol, 'use')

const labelsUrl = `/api/projects/${demo.slug}/labels`
const milestonesUrl = `/api/projects/${demo.slug}/milestones`
const makeLabel = (body: Record<string, string>, who = alice) =>
  app.call('POST', labelsUrl, { token: who.token, body })
const onTicket = (t: { number: number }, what: string, body: Record<string, string>, who = bob) =>
  app.call('POST', `/api/projects/${demo.slug}/tickets/${t.number}/${what}`, {
    token: who.token,
    body,
  })

await makeLabel({ name: 'bug', color: '#D73A4A', description: 'Something is broken' })
await makeLabel({ name: 'needs review', color: '#0e8a16' })
await app.call('POST', milestonesUrl, {
  token: alice.token,
  body: { title: 'v1.0', due: '2026-12-31' },
})

test('labels are listed by name with their colour (lower case) and description', async () => {
  expectJson(await app.call('GET', labelsUrl), 200, {
    labels: [
      { name: 'bug', color: '#d73a4a', description: 'Something is broken' },
      { name: 'needs review', color: '#0e8a16', description: '' },
    ],
  })
  expectJson(await app.call('GET', '/api/projects/nope/labels'), 404, { error: 'no such project' })
  expectJson(await app.call('DELETE', labelsUrl), 405, { error: 'GET or POST' })
})

test('creating a label: 401, then the body, then the project, then the role, then the rules', async () => {
  expectJson(await app.call('POST', labelsUrl, { body: { name: 'x', color: '#000000' } }), 401)
  expectJson(await makeLabel({ name: 'x' }), 400, { error: "'color' is required", field: 'color' })
  expectJson(await makeLabel({ name: 'x', color: '#000000', labels: 'y' }), 400, {
    error: "unknown field 'labels'",
    field: 'labels',
  })
  expectJson(
    await app.call('POST', '/api/projects/nope/labels', {
      token: alice.token,
      body: { name: 'x', color: '#000000' },
    }),
    404,
    { error: 'no such project' },
  )
  expectJson(await makeLabel({ name: 'x', color: '#000000' }, bob), 403, {
    error: 'this needs role admin',
    field: 'project',
  })
  expectJson(await makeLabel({ name: 'x', color: '#000000' }, stranger), 403, {
    error: 'you are not a member of this project',
    field: 'project',
  })
  expectJson(await makeLabel({ name: 'BUG', color: '#000000' }), 400, {
    error: "this project already has a label 'BUG'",
    field: 'name',
  })
  expectJson(await makeLabel({ name: 'x'.repeat(51), color: '#000000' }), 400, {
    error: "'name' must be 1 to 50 characters, without double quotes or control characters",
    field: 'name',
  })
  expectJson(await makeLabel({ name: 'say "hi"', color: '#000000' }), 400, {
    error: "'name' must be 1 to 50 characters, without double quotes or control characters",
    field: 'name',
  })
  for (const color of ['red', '#fff', '#12345g', '000000'])
    expectJson(await makeLabel({ name: 'x', color }), 400, {
      error: "'color' must be #rrggbb, six hexadecimal digits",
      field: 'color',
    })
  const made = await makeLabel({ name: '  ui  ', color: '#1D76DB', description: 'screens' })
  expectJson(made, 201, { label: { name: 'ui', color: '#1d76db', description: 'screens' } })
  const event = (await app.events()).at(-1)!
  assert.deepEqual([event.name, event.args], ['labelsChanged', [demo.slug]])
})

test('an admin renames, recolours and deletes a label; its tickets follow', async () => {
  expectJson(await makeLabel({ name: 'old name', color: '#111111' }), 201)
  const t = await app.ticket(alice, demo.slug)
  expectJson(await onTicket(t, 'labels', { add: 'old name' }), 201)
  const url = `${labelsUrl}/${encodeURIComponent('Old Name')}`
  expectJson(await app.call('POST', url, { token: bob.token, body: { color: '#222222' } }), 403, {
    error: 'this needs role admin',
    field: 'project',
  })
  expectJson(
    await app.call('POST', `${labelsUrl}/missing`, {
      token: alice.token,
      body: { color: '#222222' },
    }),
    404,
    { error: 'no such label in this project' },
  )
  expectJson(await app.call('POST', url, { token: alice.token, body: {} }), 400, {
    error: "give 'name', 'color' or 'description' to change",
    field: 'name',
  })
  expectJson(await app.call('POST', url, { token: alice.token, body: { name: 'Bug' } }), 400, {
    error: "this project already has a label 'Bug'",
    field: 'name',
  })
  expectJson(
    await app.call('POST', url, {
      token: alice.token,
      body: { name: 'renamed', color: '#ABCDEF' },
    }),
    200,
    { label: { name: 'renamed', color: '#abcdef', description: '' } },
  )
  // A change of case alone is a rename too.
  expectJson(
    await app.call('POST', `${labelsUrl}/renamed`, {
      token: alice.token,
      body: { name: 'Renamed' },
    }),
    200,
    { label: { name: 'Renamed', color: '#abcdef', description: '' } },
  )
  const read = await app.call('GET', `/api/tickets/${t.id}`)
  assert.deepEqual(read.body.ticket.labels, ['Renamed'])
  expectJson(await app.call('POST', `${labelsUrl}/renamed/remove`, { token: alice.token }), 200, {
    removed: { name: 'Renamed', color: '#abcdef', description: '' },
  })
  const after = await app.call('GET', `/api/tickets/${t.id}`)
  assert.deepEqual(after.body.ticket.labels, [])
  expectJson(await app.call('POST', `${labelsUrl}/renamed/remove`, { token: alice.token }), 404, {
    error: 'no such label in this project',
  })
})

test('adding and removing a ticket’s label answers 201 with the ticket and a label event', async () => {
  const t = await app.ticket(alice, demo.slug)
  const before = (await app.events()).length
  const added = await onTicket(t, 'labels', { add: 'Needs Review' })
  expectJson(added, 201)
  assert.deepEqual(Object.keys(added.body).sort(), ['event', 'ticket'])
  assert.deepEqual(added.body.ticket.labels, ['needs review'])
  assert.deepEqual(
    [added.body.event.kind, added.body.event.action, added.body.event.label, added.body.event.by],
    ['label', 'added', 'needs review', 'bob'],
  )
  const second = await app.call('POST', `/api/tickets/${t.id}/labels`, {
    token: bob.token,
    body: { add: 'bug' },
  })
  expectJson(second, 201)
  assert.deepEqual(second.body.ticket.labels, ['bug', 'needs review'], 'in name order')
  const removed = await onTicket(t, 'labels', { remove: 'BUG' })
  expectJson(removed, 201)
  assert.deepEqual(removed.body.ticket.labels, ['needs review'])
  assert.equal(removed.body.event.action, 'removed')
  const events = (await app.events()).slice(before)
  assert.deepEqual(
    events.map((e) => [e.name, (e.args[1] as { kind: string }).kind]),
    [
      ['ticketEvent', 'label'],
      ['ticketEvent', 'label'],
      ['ticketEvent', 'label'],
    ],
    'one live event a change',
  )
  const history = await app.call('GET', `/api/tickets/${t.id}`, {
    headers: { accept: 'text/markdown' },
  })
  assert.match(history.text, /bob added the label "needs review"/)
  assert.match(history.text, /bob removed the label "bug"/)
  assert.match(history.text, /^- labels: needs review$/m)
})

test('a ticket’s labels route checks 405, 401, the body, 404, 403, then the rules', async () => {
  const t = await app.ticket(alice, demo.slug)
  const url = `/api/projects/${demo.slug}/tickets/${t.number}/labels`
  expectJson(await app.call('GET', url), 405, { error: 'POST only' })
  expectJson(await app.call('POST', url, { body: { add: 'bug' } }), 401)
  expectJson(await onTicket(t, 'labels', {}), 400, {
    error: "give exactly one of 'add' or 'remove'",
    field: 'add',
  })
  expectJson(await onTicket(t, 'labels', { add: 'bug', remove: 'bug' }), 400, {
    error: "give exactly one of 'add' or 'remove'",
    field: 'remove',
  })
  expectJson(await onTicket(t, 'labels', { add: 'bug', label: 'x' }), 400, {
    error: "unknown field 'label'",
    field: 'label',
  })
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/tickets/9999/labels`, {
      token: bob.token,
      body: { add: 'nope' },
    }),
    404,
    { error: 'no such ticket' },
  )
  expectJson(await onTicket(t, 'labels', { add: 'nope' }, carol), 403, {
    error: 'this needs role edit or admin',
    field: 'project',
  })
  expectJson(await onTicket(t, 'labels', { add: 'nope' }, stranger), 403, {
    error: 'you are not a member of this project',
    field: 'project',
  })
  expectJson(await onTicket(t, 'labels', { add: 'nope' }), 400, {
    error: "this project has no label 'nope'",
    field: 'add',
  })
  expectJson(await onTicket(t, 'labels', { remove: 'bug' }), 400, {
    error: "the ticket does not have the label 'bug'",
    field: 'remove',
  })
  expectJson(await onTicket(t, 'labels', { add: 'bug' }), 201)
  expectJson(await onTicket(t, 'labels', { add: 'bug' }), 400, {
    error: "the ticket already has the label 'bug'",
    field: 'add',
  })
})

test('milestones: created by editors, listed with progress, refused in the interface’s order', async () => {
  expectJson(await app.call('POST', milestonesUrl, { body: { title: 'x' } }), 401)
  expectJson(await app.call('POST', milestonesUrl, { token: bob.token, body: {} }), 400, {
    error: "'title' is required",
    field: 'title',
  })
  expectJson(
    await app.call('POST', milestonesUrl, { token: carol.token, body: { title: 'x' } }),
    403,
    { error: 'this needs role edit or admin', field: 'project' },
  )
  expectJson(
    await app.call('POST', milestonesUrl, { token: bob.token, body: { title: 'V1.0' } }),
    400,
    { error: "this project already has a milestone 'V1.0'", field: 'title' },
  )
  expectJson(
    await app.call('POST', milestonesUrl, {
      token: bob.token,
      body: { title: 'v2', due: '2026-02-30' },
    }),
    400,
    { error: "'due' must be a day as YYYY-MM-DD (for example 2026-12-31), or empty", field: 'due' },
  )
  const made = await app.call('POST', milestonesUrl, {
    token: bob.token,
    body: { title: 'Someday', description: 'later' },
  })
  expectJson(made, 201, {
    milestone: {
      title: 'Someday',
      due: null,
      description: 'later',
      state: 'open',
      progress: { closed: 0, total: 0 },
    },
  })
  const t1 = await app.ticket(alice, demo.slug)
  const t2 = await app.ticket(alice, demo.slug)
  expectJson(await onTicket(t1, 'milestone', { milestone: 'someday' }), 201)
  expectJson(await onTicket(t2, 'milestone', { milestone: 'Someday' }), 201)
  expectJson(
    await app.call('POST', `/api/tickets/${t2.id}/state`, {
      token: bob.token,
      body: { state: 'done' },
    }),
    201,
  )
  const listed = await app.call('GET', milestonesUrl)
  expectJson(listed, 200)
  const someday = listed.body.milestones.find((m: { title: string }) => m.title === 'Someday')
  assert.deepEqual(someday.progress, { closed: 1, total: 2 })
  assert.equal(listed.body.milestones[0].title, 'v1.0', 'the soonest due first')
  const closed = await app.call('POST', `${milestonesUrl}/someday`, {
    token: bob.token,
    body: { state: 'closed' },
  })
  expectJson(closed, 200)
  assert.equal(closed.body.milestone.state, 'closed')
  expectJson(
    await app.call('POST', `${milestonesUrl}/someday`, { token: bob.token, body: { state: 'x' } }),
    400,
    { error: "'state' must be open or closed", field: 'state' },
  )
  expectJson(
    await app.call('POST', `${milestonesUrl}/nothing`, {
      token: bob.token,
      body: { state: 'open' },
    }),
    404,
    { error: 'no such milestone in this project' },
  )
})

test('a ticket’s milestone: set, changed, removed, with events and refusals', async () => {
  await app.call('POST', milestonesUrl, { token: alice.token, body: { title: 'v2.0' } })
  const t = await app.ticket(alice, demo.slug)
  expectJson(await onTicket(t, 'milestone', {}), 400, {
    error: "'milestone' is required",
    field: 'milestone',
  })
  expectJson(await onTicket(t, 'milestone', { milestone: 'v1.0' }, carol), 403, {
    error: 'this needs role edit or admin',
    field: 'project',
  })
  expectJson(await onTicket(t, 'milestone', { milestone: 'v9' }), 400, {
    error: "this project has no milestone 'v9'",
    field: 'milestone',
  })
  expectJson(await onTicket(t, 'milestone', { milestone: '' }), 400, {
    error: 'the ticket has no milestone already',
    field: 'milestone',
  })
  const set = await onTicket(t, 'milestone', { milestone: 'v1.0' })
  expectJson(set, 201)
  assert.equal(set.body.ticket.milestone, 'v1.0')
  assert.deepEqual(
    [set.body.event.kind, set.body.event.from, set.body.event.to],
    ['milestone', null, 'v1.0'],
  )
  expectJson(await onTicket(t, 'milestone', { milestone: 'V1.0' }), 400, {
    error: "the ticket is already in the milestone 'v1.0'",
    field: 'milestone',
  })
  const moved = await onTicket(t, 'milestone', { milestone: 'v2.0' })
  assert.deepEqual([moved.body.event.from, moved.body.event.to], ['v1.0', 'v2.0'])
  const removed = await onTicket(t, 'milestone', { milestone: '' })
  assert.equal(removed.body.ticket.milestone, null)
  const md = await app.call('GET', `/api/tickets/${t.id}`, { headers: { accept: 'text/markdown' } })
  assert.match(md.text, /bob set the milestone to "v1\.0"/)
  assert.match(md.text, /bob changed the milestone from "v1\.0" to "v2\.0"/)
  assert.match(md.text, /bob removed the milestone "v2\.0"/)
})

test('a ticket’s due day: set, changed, removed, with events and refusals', async () => {
  const t = await app.ticket(alice, demo.slug)
  expectJson(await onTicket(t, 'due', {}), 400, { error: "'due' is required", field: 'due' })
  expectJson(await onTicket(t, 'due', { due: '2026-12-24' }, carol), 403, {
    error: 'this needs role edit or admin',
    field: 'project',
  })
  for (const due of ['tomorrow', '2026-13-01', '2026-2-1', '2026-02-29'])
    expectJson(await onTicket(t, 'due', { due }), 400, {
      error: "'due' must be a day as YYYY-MM-DD (for example 2026-12-31), or empty",
      field: 'due',
    })
  const set = await onTicket(t, 'due', { due: '2028-02-29' })
  expectJson(set, 201)
  assert.equal(set.body.ticket.due, '2028-02-29')
  assert.deepEqual(
    [set.body.event.kind, set.body.event.from, set.body.event.to],
    ['due', null, '2028-02-29'],
  )
  expectJson(await onTicket(t, 'due', { due: '2028-02-29' }), 400, {
    error: 'the ticket is already due 2028-02-29',
    field: 'due',
  })
  const removed = await onTicket(t, 'due', { due: '' })
  expectJson(removed, 201)
  assert.equal(removed.body.ticket.due, null)
  expectJson(await onTicket(t, 'due', { due: '' }), 400, {
    error: 'the ticket has no due date already',
    field: 'due',
  })
  const md = await app.call('GET', `/api/tickets/${t.id}`, { headers: { accept: 'text/markdown' } })
  assert.match(md.text, /bob set the due date to 2028-02-29/)
  assert.match(md.text, /bob removed the due date 2028-02-29/)
})

test('the ticket JSON, the list rows and the Markdown list carry labels, milestone and due', async () => {
  const t = await app.ticket(alice, demo.slug, { subject: 'Carries everything' })
  await onTicket(t, 'labels', { add: 'needs review' })
  await onTicket(t, 'labels', { add: 'bug' })
  await onTicket(t, 'milestone', { milestone: 'v1.0' })
  await onTicket(t, 'due', { due: '2026-12-24' })
  const plain = await app.ticket(alice, demo.slug, { subject: 'Carries nothing' })
  const list = await app.call('GET', `/api/projects/${demo.slug}/tickets?q=%23${t.number}`)
  expectJson(list, 200)
  const row = list.body.tickets[0]
  assert.deepEqual(
    [row.labels, row.milestone, row.due],
    [['bug', 'needs review'], 'v1.0', '2026-12-24'],
  )
  const read = await app.call('GET', `/api/tickets/${plain.id}`)
  assert.deepEqual(
    [read.body.ticket.labels, read.body.ticket.milestone, read.body.ticket.due],
    [[], null, null],
  )
  const md = await app.call('GET', `/api/projects/${demo.slug}/tickets?q=Carries`, {
    headers: { accept: 'text/markdown' },
  })
  assert.ok(
    md.text.includes(
      `- ${t.ref} [open] Carries everything (unassigned; labels: bug, needs review; milestone: v1.0; due: 2026-12-24) <`,
    ),
    md.text,
  )
  assert.ok(md.text.includes(`- ${plain.ref} [open] Carries nothing (unassigned) <`), md.text)
})

test('a new ticket’s body with labels, milestone or due stays an unknown field', async () => {
  for (const field of ['labels', 'milestone', 'due'])
    expectJson(
      await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
        token: alice.token,
        body: { subject: 'x', [field]: 'bug' },
      }),
      400,
      { error: `unknown field '${field}'`, field },
    )
})

test('the changes become webhooks of their own kinds', async () => {
  const t = await app.ticket(alice, demo.slug)
  await onTicket(t, 'labels', { add: 'bug' })
  await onTicket(t, 'milestone', { milestone: 'v1.0' })
  await onTicket(t, 'due', { due: '2027-01-15' })
  const kinds = (await app.events())
    .slice(-3)
    .map((e) => webhookMessageOf({ ...e, seq: 1, projectId: demo.id, created: 0 } as never, demo))
  assert.deepEqual(
    kinds.map((k) => k?.type),
    ['ticket.labeled', 'ticket.milestoned', 'ticket.due_changed'],
  )
  assert.deepEqual((kinds[2]!.data.ticket as { due: string }).due, '2027-01-15')
})

test('the importer takes labels, milestones and due dates, and refuses bad ones naming the place', async () => {
  const file = (tickets: unknown[], project: Record<string, unknown> = {}) => ({
    project: { slug: 'imported-organise', title: 'Imported', admin: 'alice', ...project },
    tickets,
  })
  const refused = async (data: unknown, error: string) => {
    const got = await importTickets(app.sql, data, app.clock.now())
    assert.ok(!got.ok, error)
    assert.equal((got as { message: string }).message, error)
  }
  await refused(
    file([{ number: 7001, subject: 'x', labels: 'bug' }]),
    'tickets[0].labels must be a list of label names (1 to 50 characters, without double quotes or control characters)',
  )
  await refused(
    file([{ number: 7001, subject: 'x', due: '2026-02-30' }]),
    'tickets[0].due must be a day as YYYY-MM-DD',
  )
  await refused(
    file([{ number: 7001, subject: 'x', milestone: 3 }]),
    'tickets[0].milestone must be a milestone title (1 to 100 characters, without double quotes or control characters)',
  )
  await refused(
    file([], { labels: [{ name: 'bug', color: 'red' }] }),
    'project.labels[0] must be { name, color?, description? }: a name of 1 to 50 characters, a colour #rrggbb, a description of at most 200 characters',
  )
  const done = await importTickets(
    app.sql,
    file(
      [
        {
          number: 7001,
          subject: 'Listed label',
          labels: ['Bug', 'perf'],
          milestone: 'V1',
          due: '2027-03-01',
        },
        { number: 7002, subject: 'Named only', labels: ['perf'], milestone: 'v1' },
      ],
      {
        labels: [{ name: 'bug', color: '#D73A4A', description: 'broken' }],
        milestones: [{ title: 'v1', due: '2027-04-01', state: 'open' }],
      },
    ),
    app.clock.now(),
  )
  assert.ok(done.ok)
  expectJson(await app.call('GET', '/api/projects/imported-organise/labels'), 200, {
    labels: [
      { name: 'bug', color: '#d73a4a', description: 'broken' },
      { name: 'perf', color: '#ededed', description: '' },
    ],
  })
  const first = await app.call('GET', '/api/tickets/7001')
  assert.deepEqual(
    [first.body.ticket.labels, first.body.ticket.milestone, first.body.ticket.due],
    [['bug', 'perf'], 'v1', '2027-03-01'],
  )
  const milestones = await app.call('GET', '/api/projects/imported-organise/milestones')
  assert.deepEqual(milestones.body.milestones[0].progress, { closed: 0, total: 2 })
})
