/**
 * Invites a project's admins can see again and revoke (issue 36, point 3):
 * `GET /api/projects/<slug>/invites` and `POST /api/projects/<slug>/invites/<id>/revoke`, with
 * the order of checks of every project route, and a revoked link that says it is no longer valid.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { hashSecret } from '../../src/base/random.ts'
import { expectJson, ticketsApp } from './support.ts'
import { webhookMessageOf } from '../../src/tickets/rules/webhook-events.ts'

const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const demo = await app.project(alice, 'Demo')
await app.member(alice, demo.slug, bob, 'edit')
const DAY = 24 * 60 * 60 * 1000

const invite = (body: Record<string, string>) =>
  app.call('POST', `/api/projects/${demo.slug}/invites`, { token: alice.token, body })
const list = (who = alice, slug = demo.slug) =>
  app.call('GET', `/api/projects/${slug}/invites`, { token: who.token })
const revoke = (id: string, who = alice, slug = demo.slug) =>
  app.call('POST', `/api/projects/${slug}/invites/${encodeURIComponent(id)}/revoke`, {
    token: who.token,
    body: {},
  })
const join = (id: string, name: string) =>
  app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: `idp-${name}`, name })}&invite=${encodeURIComponent(id)}`,
  )

test('an admin lists the open invites with role, uses, uses left, expiry and who made them, newest first', async () => {
  const first = await invite({ role: 'use', uses: '3' })
  expectJson(first, 201)
  app.clock.advance(1000)
  const second = await invite({ role: 'admin', days: '2' })
  expectJson(second, 201)
  assert.equal((await join(first.body.id, 'carol')).status, 302)
  const got = await list()
  expectJson(got, 200)
  assert.equal(got.headers['cache-control'], 'no-store')
  const mine = got.body.invites.filter((i: { id: string }) =>
    [hashSecret(first.body.id), hashSecret(second.body.id)].includes(i.id),
  )
  assert.deepEqual(mine, [
    {
      id: hashSecret(second.body.id),
      role: 'admin',
      uses: 1,
      usesLeft: 1,
      expires: second.body.expires,
      by: { id: alice.id, name: 'alice' },
    },
    {
      id: hashSecret(first.body.id),
      role: 'use',
      uses: 3,
      usesLeft: 2,
      expires: first.body.expires,
      by: { id: alice.id, name: 'alice' },
    },
  ])
})

test('used-up and expired invites are not listed', async () => {
  const once = await invite({ role: 'use' })
  const short = await invite({ role: 'use', days: '1' })
  assert.equal((await join(once.body.id, 'dan')).status, 302)
  app.clock.advance(DAY + 1)
  const ids = (await list()).body.invites.map((i: { id: string }) => i.id)
  assert.ok(!ids.includes(hashSecret(once.body.id)))
  assert.ok(!ids.includes(hashSecret(short.body.id)))
})

test('a revoked invite is no longer listed, and its link says it is no longer valid', async () => {
  const made = await invite({ role: 'edit', uses: '5' })
  const listed = (await list()).body.invites.find(
    (i: { id: string }) => i.id === hashSecret(made.body.id),
  )
  const gone = await revoke(listed.id)
  expectJson(gone, 200)
  assert.equal(gone.body.revoked, listed.id)
  assert.ok(!gone.body.invites.some((i: { id: string }) => i.id === listed.id))
  assert.ok(!(await list()).body.invites.some((i: { id: string }) => i.id === listed.id))
  const tried = await join(made.body.id, 'erin')
  assert.equal(tried.status, 400)
  assert.match(tried.text, /this invite is no longer valid/)
  const [member] =
    await app.sql`select 1 from members m join users u on u.id = m.user_id where u.name = 'erin'`
  assert.equal(member, undefined)
})

test('an invite is revoked by the id its creation answered, too', async () => {
  const made = await invite({ role: 'use' })
  expectJson(await revoke(made.body.id), 200)
  assert.match((await join(made.body.id, 'fay')).text, /no longer valid/)
})

test('revoking: 401 without credentials, 404 no such project, 403 for a member who is not an admin, 404 no such invite', async () => {
  const made = await invite({ role: 'use' })
  const id = hashSecret(made.body.id)
  expectJson(
    await app.call('POST', `/api/projects/${demo.slug}/invites/${id}/revoke`, { body: {} }),
    401,
  )
  expectJson(await revoke(id, alice, 'nope'), 404, { error: 'no such project' })
  expectJson(await revoke(id, bob), 403)
  expectJson(await revoke('not-an-invite'), 404, { error: 'no such invite' })
  expectJson(await revoke(id), 200)
  expectJson(await revoke(id), 404, { error: 'no such invite' })
  expectJson(
    await app.call('GET', `/api/projects/${demo.slug}/invites/${id}/revoke`, {
      token: alice.token,
    }),
    405,
  )
})

test('listing: 401 without credentials, 404 no such project, 403 for a member who is not an admin', async () => {
  expectJson(await app.call('GET', `/api/projects/${demo.slug}/invites`), 401)
  expectJson(await list(alice, 'nope'), 404, { error: 'no such project' })
  expectJson(await list(bob), 403)
})

test('making, using and revoking an invite each emit invitesChanged with the slug alone, and no webhook kind', async () => {
  const before = (await app.events()).length
  const made = await invite({ role: 'use', uses: '2' })
  assert.equal(made.status, 201)
  await join(made.body.id, 'carol')
  assert.equal((await revoke(made.body.id)).status, 200)
  const emitted = (await app.events()).slice(before)
  assert.deepEqual(
    emitted.filter((e) => e.name === 'invitesChanged'),
    [1, 2, 3].map(() => ({ name: 'invitesChanged', args: [demo.slug], project_id: demo.id })),
  )
  assert.ok(
    !JSON.stringify(emitted).includes(made.body.id),
    'no event carries the link’s secret id',
  )
  assert.equal(
    webhookMessageOf({ id: 1, name: 'invitesChanged', args: [demo.slug], created: 0 } as never, {
      id: demo.id,
      slug: demo.slug,
    }),
    null,
  )
})
