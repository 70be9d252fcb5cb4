import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const carol = await app.login('carol')
const web = await app.project(alice, 'Views web')
await app.member(alice, web.slug, bob, 'use')
await app.member(alice, web.slug, carol, 'edit')

const views = `/api/projects/${web.slug}/views`
const list = async (token?: string) =>
  (await app.call('GET', views, token ? { token } : {})).body.views as {
    id: string
    name: string
    q: string
    shared: boolean
    count: number
    more: boolean
    api: string
  }[]

test('a saved view is its search: listed with its live count, and its q works in the API', async () => {
  await app.ticket(alice, web.slug, { subject: 'Login loops', assignee: 'bob' })
  await app.ticket(alice, web.slug, { subject: 'Login fails' })
  await app.ticket(alice, web.slug, { subject: 'Export' })
  const saved = await app.call('POST', views, {
    token: bob.token,
    body: { name: '  Login trouble ', q: 'login' },
  })
  expectJson(saved, 201)
  assert.equal(saved.body.view.name, 'Login trouble')
  assert.equal(saved.body.view.shared, false)
  const mine = await app.call('POST', views, {
    token: bob.token,
    body: { name: 'Mine', q: 'assignee:me' },
  })
  expectJson(mine, 201)
  const bobs = await list(bob.token)
  assert.deepEqual(
    bobs.map((v) => [v.name, v.count, v.more]),
    [
      ['Login trouble', 2, false],
      ['Mine', 1, false],
    ],
  )
  // The API's list with the view's q lists what the count says.
  const found = await app.call('GET', `${bobs[0]!.api.replace(/^http:\/\/[^/]+/, '')}`)
  assert.equal(found.body.tickets.length, 2)
  // The count follows a change at once.
  await app.ticket(alice, web.slug, { subject: 'Login again' })
  assert.equal((await list(bob.token))[0]!.count, 3)
  // Another person, and nobody signed in, see none of bob's own views.
  assert.deepEqual(await list(carol.token), [])
  assert.deepEqual(await list(), [])
})

test('shared views are saved by edit and admin members and seen by every reader', async () => {
  expectJson(
    await app.call('POST', views, {
      token: bob.token,
      body: { name: 'Team', q: 'is:open', scope: 'shared' },
    }),
    403,
    { error: 'this needs role edit or admin', field: 'scope' },
  )
  const shared = await app.call('POST', views, {
    token: carol.token,
    body: { name: 'Team', q: 'is:open', scope: 'shared' },
  })
  expectJson(shared, 201)
  assert.equal(shared.body.view.shared, true)
  const last = (await app.events()).at(-1)!
  assert.equal(last.name, 'viewsChanged')
  assert.equal(last.project_id, web.id)
  assert.deepEqual(
    (await list()).map((v) => v.name),
    ['Team'],
  )
  // A person's own view may have a shared view's name; two of one kind may not share one.
  expectJson(
    await app.call('POST', views, { token: bob.token, body: { name: 'team', q: '' } }),
    201,
  )
  expectJson(
    await app.call('POST', views, {
      token: alice.token,
      body: { name: 'TEAM', q: '', scope: 'shared' },
    }),
    400,
    { error: "a view named 'TEAM' is already saved here", field: 'name' },
  )
  // bob (use) cannot rename or remove it; carol and alice can.
  const id = shared.body.view.id
  expectJson(
    await app.call('POST', `${views}/${id}`, { token: bob.token, body: { name: 'Ours' } }),
    403,
    { error: 'this needs role edit or admin' },
  )
  const renamed = await app.call('POST', `${views}/${id}`, {
    token: alice.token,
    body: { name: 'Ours', q: 'is:open sort:updated' },
  })
  expectJson(renamed, 200)
  assert.equal(renamed.body.view.q, 'is:open sort:updated')
  expectJson(await app.call('POST', `${views}/${id}/remove`, { token: carol.token }), 200, {
    removed: id,
  })
  assert.deepEqual(await list(), [])
})

test('a person renames and removes their own views; another person’s is no view at all to them', async () => {
  const made = await app.call('POST', views, {
    token: carol.token,
    body: { name: 'Carol’s', q: 'state:review' },
  })
  const id = made.body.view.id
  expectJson(
    await app.call('POST', `${views}/${id}`, { token: alice.token, body: { name: 'x' } }),
    404,
    { error: 'no such view in this project' },
  )
  expectJson(await app.call('POST', `${views}/${id}/remove`, { token: alice.token }), 404)
  expectJson(
    await app.call('POST', `${views}/${id}`, { token: carol.token, body: { name: 'Reviews' } }),
    200,
  )
  expectJson(await app.call('POST', `${views}/${id}/remove`, { token: carol.token }), 200)
  assert.deepEqual(await list(carol.token), [])
})

test('the views routes check 405, 401, the body, 404, then the rules', async () => {
  expectJson(await app.call('DELETE', views), 405)
  expectJson(await app.call('POST', views, { body: { name: 'x', q: '' } }), 401)
  expectJson(await app.call('POST', views, { token: bob.token, body: { q: '' } }), 400, {
    error: "'name' is required",
    field: 'name',
  })
  expectJson(await app.call('POST', views, { token: bob.token, body: { name: 'x' } }), 400, {
    error: "'q' is required",
    field: 'q',
  })
  const refused = await app.call('POST', views, {
    token: bob.token,
    body: { name: 'x', q: 'state:shut' },
  })
  expectJson(refused, 400)
  assert.equal(refused.body.field, 'q')
  expectJson(
    await app.call('POST', views, { token: bob.token, body: { name: 'x', q: '', scope: 'all' } }),
    400,
    { error: "'scope' must be 'mine' or 'shared'", field: 'scope' },
  )
  expectJson(
    await app.call('POST', '/api/projects/nope/views', {
      token: bob.token,
      body: { name: 'x', q: '' },
    }),
    404,
    { error: 'no such project' },
  )
  expectJson(await app.call('GET', '/api/projects/nope/views'), 404)
  expectJson(
    await app.call('POST', views, { token: bob.token, body: { name: 'x'.repeat(51), q: '' } }),
    400,
    { error: "'name' must be 1 to 50 characters", field: 'name' },
  )
  expectJson(
    await app.call('POST', views, { token: bob.token, body: { name: '   ', q: '' } }),
    400,
    { error: "'name' must be 1 to 50 characters", field: 'name' },
  )
  expectJson(await app.call('POST', `${views}/nosuchview00`, { token: bob.token, body: {} }), 400, {
    error: "give 'name' or 'q' to change",
    field: 'name',
  })
  expectJson(
    await app.call('POST', `${views}/nosuchview00`, { token: bob.token, body: { name: 'y' } }),
    404,
    { error: 'no such view in this project' },
  )
})

test('a view counts up to 1,000 and then says more', async () => {
  const big = await app.project(alice, 'Views big')
  await app.sql`
    insert into tickets (project_id, number, subject, created, updated)
    select ${big.id}, n, 'many ' || n, n, n from generate_series(1, 1005) as n`
  await app.sql`update projects set next_number = 1006 where id = ${big.id}`
  expectJson(
    await app.call('POST', `/api/projects/${big.slug}/views`, {
      token: alice.token,
      body: { name: 'Many', q: 'many' },
    }),
    201,
  )
  const got = await app.call('GET', `/api/projects/${big.slug}/views`, { token: alice.token })
  assert.deepEqual(
    got.body.views.map((v: { count: number; more: boolean }) => [v.count, v.more]),
    [[1000, true]],
  )
})

test('the bulk bar offers the project’s labels to editors, not to members who only use it', async () => {
  const made = await app.call('POST', `/api/projects/${web.slug}/labels`, {
    token: alice.token,
    body: { name: 'triage', color: '#336699' },
  })
  expectJson(made, 201)
  await app.ticket(alice, web.slug, { subject: 'Needs sorting' })
  const page = async (person: { cookie: string }) => {
    const got = await app.call('GET', `/${web.slug}`, { headers: { cookie: person.cookie } })
    assert.equal(got.status, 200, got.text)
    assert.match(got.text, /aria-label="Change the selected tickets"/)
    return got.text
  }
  const editor = await page(carol)
  assert.match(editor, /<option value="addLabel:triage">\+ triage<\/option>/)
  assert.match(editor, /<option value="removeLabel:triage">/)
  assert.doesNotMatch(await page(bob), /value="addLabel:/)
})
