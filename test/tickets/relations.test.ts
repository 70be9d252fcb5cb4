import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const demo = await app.project(alice, 'Demo')
const side = await app.project(alice, 'Side')
await app.member(alice, demo.slug, bob, 'edit')

const parent = (id: string, value: string, who = alice) =>
  app.call('POST', `/api/tickets/${id}/parent`, { token: who.token, body: { parent: value } })
const block = (id: string, body: Record<string, string>, who = alice) =>
  app.call('POST', `/api/tickets/${id}/blocked-by`, { token: who.token, body })

test('setting a parent by <project>#<number> answers 201 with a link event', async () => {
  const up = await app.ticket(alice, demo.slug)
  const down = await app.ticket(alice, demo.slug)
  const got = await parent(down.id, up.ref)
  expectJson(got, 201)
  assert.deepEqual(Object.keys(got.body).sort(), ['event', 'ticket'])
  assert.deepEqual(got.body.ticket.parent, { id: up.id, ref: up.ref })
  assert.equal(got.body.event.kind, 'link')
  assert.deepEqual(
    [got.body.event.relation, got.body.event.action, got.body.event.ticket],
    ['parent', 'set', { id: up.id, ref: up.ref }],
  )
  const [ev, related] = (await app.events()).slice(-2)
  assert.deepEqual(ev!.args, [down.id, got.body.event, got.body.ticket])
  assert.equal(related!.name, 'ticketsRelated')
  assert.deepEqual(
    (related!.args[0] as { id: string }[]).map((v) => v.id).sort(),
    [up.id, down.id].sort(),
  )
})

test('a parent may be named by UUID or by the project id, and removed with an empty string', async () => {
  const up = await app.ticket(alice, demo.slug)
  const down = await app.ticket(alice, demo.slug)
  expectJson(await parent(down.id, up.id), 201)
  expectJson(await parent(down.id, `${demo.id}#${up.number}`), 400, {
    error: `${up.ref} is already the parent of ${down.ref}`,
    field: 'parent',
  })
  const removed = await parent(down.id, '')
  expectJson(removed, 201)
  assert.equal(removed.body.ticket.parent, null)
  assert.equal(removed.body.event.action, 'removed')
  expectJson(await parent(down.id, ''), 400, {
    error: `${down.ref} has no parent`,
    field: 'parent',
  })
})

test('missing parent answers 400 field parent', async () => {
  const t = await app.ticket(alice, demo.slug)
  expectJson(
    await app.call('POST', `/api/tickets/${t.id}/parent`, { token: alice.token, body: {} }),
    400,
    { error: "'parent' is required", field: 'parent' },
  )
})

test('a ticket cannot be its own parent or ancestor, at any depth', async () => {
  const chain = []
  for (let i = 0; i < 6; i++) chain.push(await app.ticket(alice, demo.slug))
  for (let i = 1; i < chain.length; i++)
    expectJson(await parent(chain[i]!.id, chain[i - 1]!.ref), 201)
  expectJson(await parent(chain[0]!.id, chain[0]!.ref), 400, {
    error: 'a ticket cannot be its own parent',
    field: 'parent',
  })
  const top = chain[0]!
  const bottom = chain.at(-1)!
  expectJson(await parent(top.id, bottom.ref), 400, {
    error: `${bottom.ref} is under ${top.ref}: a ticket cannot be its own ancestor`,
    field: 'parent',
  })
  expectJson(await parent(chain[2]!.id, chain[4]!.ref), 400, {
    error: `${chain[4]!.ref} is under ${chain[2]!.ref}: a ticket cannot be its own ancestor`,
    field: 'parent',
  })
})

test('blockers are added and removed with link events', async () => {
  const a = await app.ticket(alice, demo.slug)
  const b = await app.ticket(alice, demo.slug)
  const added = await block(a.id, { add: b.ref })
  expectJson(added, 201)
  assert.deepEqual(added.body.ticket.blockedBy, [{ id: b.id, ref: b.ref }])
  assert.deepEqual(
    [added.body.event.kind, added.body.event.relation, added.body.event.action],
    ['link', 'blocked-by', 'added'],
  )
  expectJson(await block(a.id, { add: b.id }), 400, {
    error: `${a.ref} is already blocked by ${b.ref}`,
    field: 'add',
  })
  const removed = await block(a.id, { remove: b.id })
  expectJson(removed, 201)
  assert.deepEqual(removed.body.ticket.blockedBy, [])
  assert.equal(removed.body.event.action, 'removed')
  expectJson(await block(a.id, { remove: b.ref }), 400, {
    error: `${a.ref} is not blocked by ${b.ref}`,
    field: 'remove',
  })
  assert.deepEqual(
    (await app.events()).slice(-2).map((e) => e.name),
    ['ticketEvent', 'ticketsRelated'],
  )
})

test('blocked-by with both or neither of add and remove answers 400 naming the right field', async () => {
  const a = await app.ticket(alice, demo.slug)
  expectJson(await block(a.id, {}), 400, {
    error: "give exactly one of 'add' or 'remove'",
    field: 'add',
  })
  expectJson(await block(a.id, { add: 'demo#1', remove: 'demo#2' }), 400, {
    error: "give exactly one of 'add' or 'remove'",
    field: 'remove',
  })
})

test('a ticket cannot block itself nor close a blocked-by cycle of any length', async () => {
  const t = []
  for (let i = 0; i < 5; i++) t.push(await app.ticket(alice, demo.slug))
  expectJson(await block(t[0]!.id, { add: t[0]!.ref }), 400, {
    error: 'a ticket cannot block itself',
    field: 'add',
  })
  for (let i = 0; i < 4; i++) expectJson(await block(t[i]!.id, { add: t[i + 1]!.ref }), 201)
  expectJson(await block(t[1]!.id, { add: t[0]!.ref }), 400, {
    error: `${t[0]!.ref} already waits for ${t[1]!.ref}: that would make a blocked-by cycle`,
    field: 'add',
  })
  expectJson(await block(t[4]!.id, { add: t[0]!.ref }), 400, {
    error: `${t[0]!.ref} already waits for ${t[4]!.ref}: that would make a blocked-by cycle`,
    field: 'add',
  })
  // A shortcut along the chain's own direction is no cycle.
  expectJson(await block(t[0]!.id, { add: t[4]!.ref }), 201)
})

test('concurrent blocked-by adds cannot close a cycle between them', async () => {
  const a = await app.ticket(alice, demo.slug)
  const b = await app.ticket(alice, demo.slug)
  const answers = await Promise.all([block(a.id, { add: b.ref }), block(b.id, { add: a.ref })])
  assert.deepEqual(answers.map((x) => x.status).sort(), [201, 400])
})

test('an unknown related ticket answers 404 no such ticket', async () => {
  const a = await app.ticket(alice, demo.slug)
  for (const name of [
    'demo#999',
    'nope#1',
    '#99999',
    '99999',
    'http://localhost:3002/demo/99999',
    '00000000-0000-4000-8000-000000000000',
  ]) {
    expectJson(await parent(a.id, name), 404, { error: 'no such ticket', field: 'parent' })
    expectJson(await block(a.id, { add: name }), 404, { error: 'no such ticket', field: 'add' })
  }
  expectJson(
    await app.call('POST', '/api/tickets/123456/parent', {
      token: alice.token,
      body: { parent: '' },
    }),
    404,
    { error: 'no such ticket' },
  )
})

test('relations need edit or admin in both projects: 403 { error }', async () => {
  const mine = await app.ticket(alice, demo.slug)
  const other = await app.ticket(alice, side.slug)
  expectJson(await parent(mine.id, other.ref, bob), 403, {
    error: 'you are not a member of this project',
  })
  expectJson(await block(mine.id, { add: other.ref }, bob), 403, {
    error: 'you are not a member of this project',
  })
  await app.member(alice, side.slug, bob, 'use')
  expectJson(await parent(mine.id, other.ref, bob), 403, { error: 'this needs role edit or admin' })
  await app.member(alice, side.slug, bob, 'edit')
  expectJson(await parent(mine.id, other.ref, bob), 201)
  assert.equal((await app.call('GET', `/api/tickets/${mine.id}`)).body.ticket.parent.ref, other.ref)
})

test('text that names no ticket is refused with 400 saying what is accepted, not "no such ticket"', async () => {
  const a = await app.ticket(alice, demo.slug)
  for (const name of [
    'demo',
    'demo#x',
    'hello there',
    'https://elsewhere.example/demo/1',
    'http://localhost:3002/demo/settings',
  ]) {
    const error = `'${name}' does not name a ticket: give its number (12 or #12), web#12, or paste its address`
    expectJson(await parent(a.id, name), 400, { error, field: 'parent' })
    expectJson(await block(a.id, { add: name }), 400, { error, field: 'add' })
  }
})

test('a related ticket may be named #N, N (this project), SLUG#N in any case, or by its address', async () => {
  const a = await app.ticket(alice, demo.slug)
  const others = [
    await app.ticket(alice, demo.slug),
    await app.ticket(alice, demo.slug),
    await app.ticket(alice, demo.slug),
    await app.ticket(alice, demo.slug),
  ]
  const names = [
    `#${others[0]!.number}`,
    ` ${others[1]!.number} `,
    `${demo.slug.toUpperCase()}#${others[2]!.number}`,
    `http://localhost:3002/${demo.slug}/${others[3]!.number}?x=1#top`,
  ]
  for (const [i, name] of names.entries()) {
    const got = await block(a.id, { add: name })
    expectJson(got, 201)
    assert.equal(got.body.event.ticket.ref, others[i]!.ref, name)
  }
  expectJson(await parent(a.id, `#${others[0]!.number}`), 201)
  // A bare number belongs to the ticket's own project, not another one.
  const elsewhere = await app.ticket(alice, side.slug)
  expectJson(await parent(elsewhere.id, String(others[1]!.number)), 404, {
    error: 'no such ticket',
    field: 'parent',
  })
})

test('relations check 405, 401, 400, 404 in order', async () => {
  const path = `/api/projects/${demo.slug}/tickets/999/blocked-by`
  expectJson(await app.call('GET', path), 405, { error: 'POST only' })
  expectJson(await app.call('POST', path, { raw: 'x' }), 401, { error: 'a token is needed' })
  expectJson(await app.call('POST', path, { token: alice.token, raw: 'x' }), 400, {
    error: 'invalid JSON at character 0',
    field: 'body',
  })
  expectJson(await app.call('POST', path, { token: alice.token, body: { add: 'demo#1' } }), 404, {
    error: 'no such ticket',
  })
})
