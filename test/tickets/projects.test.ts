import assert from 'node:assert/strict'
import { test } from 'node:test'
import { slugFromTitle, withSuffix } from '../../src/tickets/rules/slugs.ts'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const carol = await app.login('carol')

test('slugFromTitle makes lower-case a-z0-9 with single dashes, at most 40 characters', () => {
  assert.equal(slugFromTitle('Hello, World!'), 'hello-world')
  assert.equal(slugFromTitle('  Café  au Lait '), 'cafe-au-lait')
  assert.equal(slugFromTitle('---'), 'project')
  assert.equal(slugFromTitle('a'.repeat(50)), 'a'.repeat(40))
  assert.equal(slugFromTitle('x'.repeat(39) + ' y'), 'x'.repeat(39))
  assert.equal(withSuffix('a'.repeat(40), 12), 'a'.repeat(37) + '-12')
})

test('a new project gets a slug from its title, a 12-character id, and its creator as admin', async () => {
  const made = await app.call('POST', '/api/projects', {
    token: alice.token,
    body: { title: 'Web Site', description: 'the site' },
  })
  expectJson(made, 201)
  assert.equal(made.body.project.slug, 'web-site')
  assert.match(made.body.project.id, /^[a-z0-9]{12}$/)
  assert.equal(made.body.project.title, 'Web Site')
  assert.equal(made.body.project.description, 'the site')
  assert.deepEqual(made.body.members, [{ user: { id: alice.id, name: 'alice' }, role: 'admin' }])
})

test('a taken slug gets a -2, -3 suffix', async () => {
  const a = await app.project(bob, 'Twin')
  const b = await app.project(bob, 'Twin')
  const c = await app.project(bob, 'Twin')
  assert.deepEqual([a.slug, b.slug, c.slug], ['twin', 'twin-2', 'twin-3'])
})

test('a reserved slug is refused when given and skipped when generated', async () => {
  for (const slug of ['api', 'login', 'tickets', 'projects', 'healthz', 'admin', 'new']) {
    expectJson(
      await app.call('POST', '/api/projects', { token: alice.token, body: { title: 'X', slug } }),
      400,
      { error: `'${slug}' is reserved`, field: 'slug' },
    )
  }
  const made = await app.project(alice, 'Admin')
  assert.equal(made.slug, 'admin-2')
})

test('a malformed slug is refused', async () => {
  for (const slug of [
    'Upper',
    'two--dashes',
    '-lead',
    'trail-',
    'a'.repeat(41),
    'sp ace',
    'dot.ted',
  ]) {
    expectJson(
      await app.call('POST', '/api/projects', { token: alice.token, body: { title: 'X', slug } }),
      400,
      { error: "a slug is 1 to 40 characters of a-z, 0-9 and single '-'", field: 'slug' },
    )
  }
})

test('a project answers identically by slug, old slug and id', async () => {
  const p = await app.project(alice, 'Renamed Later')
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}`, {
      token: alice.token,
      body: { slug: 'new-name', title: 'New Name' },
    }),
    200,
  )
  const bySlug = await app.call('GET', '/api/projects/new-name')
  const byOld = await app.call('GET', '/api/projects/renamed-later')
  const byId = await app.call('GET', `/api/projects/${p.id}`)
  expectJson(bySlug, 200)
  assert.equal(bySlug.body.project.slug, 'new-name')
  assert.equal(bySlug.body.project.title, 'New Name')
  assert.equal(byOld.text, bySlug.text)
  assert.equal(byId.text, bySlug.text)
  await app.ticket(alice, 'new-name')
  const lists = await Promise.all(
    ['new-name', 'renamed-later', p.id].map((ref) =>
      app.call('GET', `/api/projects/${ref}/tickets`),
    ),
  )
  assert.equal(lists[1]!.text, lists[0]!.text)
  assert.equal(lists[2]!.text, lists[0]!.text)
})

test('an old slug keeps working after a second change and cannot be taken by another project', async () => {
  const p = await app.project(alice, 'First')
  await app.call('POST', `/api/projects/first`, { token: alice.token, body: { slug: 'second' } })
  await app.call('POST', `/api/projects/second`, { token: alice.token, body: { slug: 'third' } })
  for (const ref of ['first', 'second', 'third'])
    assert.equal((await app.call('GET', `/api/projects/${ref}`)).body.project.id, p.id)
  expectJson(
    await app.call('POST', '/api/projects', {
      token: bob.token,
      body: { title: 'x', slug: 'first' },
    }),
    400,
    { error: "'first' is taken", field: 'slug' },
  )
  assert.equal((await app.project(bob, 'First')).slug, 'first-2')
  expectJson(
    await app.call('POST', `/api/projects/third`, { token: alice.token, body: { slug: 'first' } }),
    200,
  )
  assert.equal((await app.call('GET', '/api/projects/third')).body.project.slug, 'first')
})

test('a project id can be used as a slug reference but not taken as a slug', async () => {
  const p = await app.project(alice, 'Owner')
  expectJson(
    await app.call('POST', '/api/projects', { token: bob.token, body: { title: 'x', slug: p.id } }),
    400,
    { error: `'${p.id}' is taken`, field: 'slug' },
  )
})

test('GET /api/projects lists slugs, details, states and roles', async () => {
  const got = await app.call('GET', '/api/projects')
  expectJson(got, 200)
  assert.deepEqual(got.body.states, ['open', 'doing', 'review', 'done', 'dropped'])
  assert.deepEqual(got.body.roles, ['use', 'edit', 'admin'])
  assert.deepEqual(
    got.body.projects,
    got.body.details.map((d: { slug: string }) => d.slug),
  )
  assert.ok(got.body.projects.includes('web-site'))
})

test('an unknown project answers 404 no such project', async () => {
  expectJson(await app.call('GET', '/api/projects/nope'), 404, { error: 'no such project' })
  expectJson(await app.call('POST', '/api/projects/nope', { token: alice.token, body: {} }), 404, {
    error: 'no such project',
  })
  expectJson(
    await app.call('POST', '/api/projects/nope/members', {
      token: alice.token,
      body: { user: 'bob', role: 'use' },
    }),
    404,
    { error: 'no such project' },
  )
  expectJson(
    await app.call('POST', '/api/projects/nope/members/remove', {
      token: alice.token,
      body: { user: 'bob' },
    }),
    404,
    { error: 'no such project' },
  )
  expectJson(
    await app.call('POST', '/api/projects/nope/invites', {
      token: alice.token,
      body: { role: 'use' },
    }),
    404,
    { error: 'no such project' },
  )
})

test('project routes answer 405 with the interface texts', async () => {
  expectJson(await app.call('PUT', '/api/projects'), 405, { error: 'GET or POST' })
  expectJson(await app.call('DELETE', '/api/projects/web-site'), 405, { error: 'GET or POST' })
  expectJson(await app.call('GET', '/api/projects/web-site/members'), 405, { error: 'POST only' })
  expectJson(await app.call('GET', '/api/projects/web-site/members/remove'), 405, {
    error: 'POST only',
  })
  // GET lists the open invites (docs/tickets-api.md); other methods are refused.
  expectJson(await app.call('DELETE', '/api/projects/web-site/invites'), 405, {
    error: 'GET or POST',
  })
  expectJson(await app.call('GET', '/api/projects/web-site/invites/x/revoke'), 405, {
    error: 'POST only',
  })
  expectJson(await app.call('POST', '/api/inbox'), 405, { error: 'GET only' })
})

test('project writes check 405, 401, 400 and 404 in that order', async () => {
  expectJson(await app.call('PUT', '/api/projects/nope/members', { raw: '{' }), 405, {
    error: 'POST only',
  })
  expectJson(await app.call('POST', '/api/projects/nope/members', { raw: '{' }), 401, {
    error: 'a token is needed',
  })
  expectJson(
    await app.call('POST', '/api/projects/nope/members', { token: alice.token, raw: '{' }),
    400,
    { error: 'invalid JSON at character 1', field: 'body' },
  )
  expectJson(
    await app.call('POST', '/api/projects/nope/members', {
      token: alice.token,
      body: { user: 'x', role: 'use' },
    }),
    404,
    { error: 'no such project' },
  )
})

test('members: a user is named by display name, user id or identity-provider id', async () => {
  const p = await app.project(alice, 'Members')
  for (const [ref, role] of [
    ['bob', 'use'],
    [bob.id, 'edit'],
    ['idp-carol-3', 'admin'],
  ] as const) {
    expectJson(
      await app.call('POST', `/api/projects/${p.slug}/members`, {
        token: alice.token,
        body: { user: ref, role },
      }),
      200,
    )
  }
  const got = await app.call('GET', `/api/projects/${p.slug}`)
  assert.deepEqual(got.body.members, [
    { user: { id: alice.id, name: 'alice' }, role: 'admin' },
    { user: { id: carol.id, name: 'carol' }, role: 'admin' },
    { user: { id: bob.id, name: 'bob' }, role: 'edit' },
  ])
})

test('members: an unresolved user answers 400 with field user and a bad role with field role', async () => {
  const p = await app.project(alice, 'Unresolved')
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members`, {
      token: alice.token,
      body: { user: 'nobody', role: 'use' },
    }),
    400,
    { error: "no user 'nobody' has logged in here", field: 'user' },
  )
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members`, {
      token: alice.token,
      body: { user: 'bob', role: 'owner' },
    }),
    400,
    { error: "unknown role 'owner': use one of use, edit, admin", field: 'role' },
  )
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members/remove`, {
      token: alice.token,
      body: { user: 'bob' },
    }),
    400,
    { error: "'bob' is not a member of this project", field: 'user' },
  )
})

test('members: a display name two people share is refused as ambiguous', async () => {
  await app.login('sam', 'idp-sam-a')
  await app.login('sam', 'idp-sam-b')
  const p = await app.project(alice, 'Ambiguous')
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members`, {
      token: alice.token,
      body: { user: 'sam', role: 'use' },
    }),
    400,
    { error: "'sam' names more than one user: use the user id", field: 'user' },
  )
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members`, {
      token: alice.token,
      body: { user: 'idp-sam-a', role: 'use' },
    }),
    200,
  )
})

test('the last admin cannot be demoted or removed', async () => {
  const p = await app.project(alice, 'Last Admin')
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members`, {
      token: alice.token,
      body: { user: 'alice', role: 'edit' },
    }),
    400,
    { error: 'the last admin cannot be demoted', field: 'role' },
  )
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members/remove`, {
      token: alice.token,
      body: { user: 'alice' },
    }),
    400,
    { error: 'the last admin cannot be removed', field: 'user' },
  )
  await app.member(alice, p.slug, bob, 'admin')
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members/remove`, {
      token: alice.token,
      body: { user: 'alice' },
    }),
    200,
  )
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members`, {
      token: bob.token,
      body: { user: 'bob', role: 'use' },
    }),
    400,
    { error: 'the last admin cannot be demoted', field: 'role' },
  )
})

test('two admins demoting each other at once leave one admin', async () => {
  const p = await app.project(alice, 'Race')
  await app.member(alice, p.slug, bob, 'admin')
  await Promise.all([
    app.call('POST', `/api/projects/${p.slug}/members`, {
      token: alice.token,
      body: { user: 'bob', role: 'use' },
    }),
    app.call('POST', `/api/projects/${p.slug}/members`, {
      token: bob.token,
      body: { user: 'alice', role: 'use' },
    }),
  ])
  const [row] =
    await app.sql`select count(*)::int as n from members where project_id = ${p.id} and role = 'admin'`
  assert.equal(row!.n, 1)
})

test('removing a member answers the remaining members', async () => {
  const p = await app.project(alice, 'Removal')
  await app.member(alice, p.slug, bob, 'use')
  const removed = await app.call('POST', `/api/projects/${p.slug}/members/remove`, {
    token: alice.token,
    body: { user: bob.id },
  })
  expectJson(removed, 200, {
    removed: { id: bob.id, name: 'bob' },
    members: [{ user: { id: alice.id, name: 'alice' }, role: 'admin' }],
  })
})

test('updating a project changes only the fields given and answers { project }', async () => {
  const p = await app.project(alice, 'Partial', { description: 'keep me' })
  const got = await app.call('POST', `/api/projects/${p.slug}`, {
    token: alice.token,
    body: { title: 'Partial 2' },
  })
  expectJson(got, 200)
  assert.deepEqual(Object.keys(got.body), ['project'])
  assert.equal(got.body.project.title, 'Partial 2')
  assert.equal(got.body.project.description, 'keep me')
  assert.equal(got.body.project.slug, 'partial')
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}`, { token: alice.token, body: { title: ' ' } }),
    400,
    { error: "'title' is required", field: 'title' },
  )
})

test('a project title is required when creating', async () => {
  expectJson(
    await app.call('POST', '/api/projects', { token: alice.token, body: { slug: 'x' } }),
    400,
    { error: "'title' is required", field: 'title' },
  )
  expectJson(
    await app.call('POST', '/api/projects', { token: alice.token, body: { title: '' } }),
    400,
    { error: "'title' is required", field: 'title' },
  )
})

test('member changes emit membersChanged and a project update emits projectChanged with the new slug, for open settings pages', async () => {
  const p = await app.project(alice, 'Evented')
  const names = async (from: number) =>
    (await app.events()).slice(from).map((e) => [e.name, e.args, e.project_id === p.id])
  let before = (await app.events()).length
  await app.member(alice, p.slug, bob, 'use')
  await app.member(alice, p.slug, bob, 'edit')
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}/members/remove`, {
      token: alice.token,
      body: { user: bob.id },
    }),
    200,
  )
  assert.deepEqual(await names(before), [
    ['membersChanged', [p.slug], true],
    ['membersChanged', [p.slug], true],
    ['membersChanged', [p.slug], true],
  ])
  before = (await app.events()).length
  expectJson(
    await app.call('POST', `/api/projects/${p.slug}`, {
      token: alice.token,
      body: { title: 'Evented 2', slug: 'evented-two' },
    }),
    200,
  )
  assert.deepEqual(await names(before), [['projectChanged', ['evented-two'], true]])
  before = (await app.events()).length
  expectJson(
    await app.call('POST', `/api/projects/evented-two/members`, {
      token: bob.token,
      body: { user: carol.id, role: 'use' },
    }),
    403,
  )
  assert.deepEqual(await names(before), [])
})
