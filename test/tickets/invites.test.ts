import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, test } from 'node:test'
import { SMTPServer } from 'smtp-server'
import { hashSecret } from '../../src/base/random.ts'
import { expectJson, ticketsApp } from './support.ts'

// A local SMTP server the invite mails go to.
const received: { to: string[]; data: string }[] = []
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, done) {
    let data = ''
    stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')))
    stream.on('end', () => {
      received.push({ to: session.envelope.rcptTo.map((r) => r.address), data })
      done()
    })
  },
})
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
after(() => new Promise<void>((resolve) => smtp.close(() => resolve())))
const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`

const app = await ticketsApp({ env: { SMTP_URL: smtpUrl } })
const alice = await app.login('alice')
const bob = await app.login('bob')
const demo = await app.project(alice, 'Demo')
const DAY = 24 * 60 * 60 * 1000

const invite = (body: Record<string, string>, who = alice, slug = demo.slug) =>
  app.call('POST', `/api/projects/${slug}/invites`, { token: who.token, body })

/** Logs `name` in through an invite link's return address. */
function join(id: string, name: string, idpId = `idp-join-${name}`) {
  return app.call(
    'GET',
    `/login/callback?idp_code=${app.idp.code({ id: idpId, name })}&invite=${encodeURIComponent(id)}`,
  )
}

test('an invite answers 201 { url, id, expires, mailed } with the provider-made link', async () => {
  const got = await invite({ role: 'edit' })
  expectJson(got, 201)
  assert.deepEqual(Object.keys(got.body), ['url', 'id', 'expires', 'mailed'])
  assert.equal(Buffer.from(got.body.id, 'base64url').length, 16)
  const back = `http://localhost:3002/login/callback?invite=${got.body.id}`
  assert.equal(got.body.url, `http://idp.test/login?key=dev-key&return=${encodeURIComponent(back)}`)
  assert.equal(got.body.expires, app.clock.now() + 7 * DAY)
  assert.equal(got.body.mailed, false)
  const [row] =
    await app.sql`select role, uses_left from invites where id = ${hashSecret(got.body.id)}`
  assert.deepEqual({ ...row }, { role: 'edit', uses_left: 1 })
})

test('an invite is stored under the hash of its id, so a copy of the database holds no link that works', async () => {
  const made = await invite({ role: 'use' })
  expectJson(made, 201)
  assert.equal((await app.sql`select 1 from invites where id = ${made.body.id}`).length, 0)
  // The ids a database copy holds, tried as links: none joins.
  const [stored] = await app.sql`select id from invites where id = ${hashSecret(made.body.id)}`
  const tried = await join(stored!.id as string, 'copier')
  assert.equal(tried.status, 400)
  assert.ok(tried.text.includes('<p>no such invite</p>'), tried.text)
  const real = await join(made.body.id, 'invited')
  assert.equal(real.status, 302)
})

test('uses must be a whole number from 1 to 1000 and days from 1 to 90', async () => {
  for (const uses of ['0', '1001', 'x', '1.5', '-1', '', '1e2']) {
    expectJson(await invite({ role: 'use', uses }), 400, {
      error: "'uses' must be a whole number from 1 to 1000",
      field: 'uses',
    })
  }
  for (const days of ['0', '91', 'seven', '']) {
    expectJson(await invite({ role: 'use', days }), 400, {
      error: "'days' must be a whole number from 1 to 90",
      field: 'days',
    })
  }
  const edges = await invite({ role: 'use', uses: '1000', days: '90' })
  expectJson(edges, 201)
  assert.equal(edges.body.expires, app.clock.now() + 90 * DAY)
  expectJson(await invite({ role: 'use', uses: '1', days: '1' }), 201)
})

test('an invite needs a known role, role admin, and a mail address that looks like one', async () => {
  expectJson(await invite({ role: 'owner' }), 400, {
    error: "unknown role 'owner': use one of use, edit, admin",
    field: 'role',
  })
  expectJson(await invite({ role: 'use', email: 'not an address' }), 400, {
    error: "'email' is not a mail address",
    field: 'email',
  })
  await app.member(alice, demo.slug, bob, 'edit')
  expectJson(await invite({ role: 'use' }, bob), 403, {
    error: 'this needs role admin',
    field: 'project',
  })
})

test('joining an invite makes a member, emits membersChanged and invitesChanged and sends the browser to the project page', async () => {
  const made = await invite({ role: 'edit' })
  const before = (await app.events()).length
  const got = await join(made.body.id, 'newcomer')
  assert.deepEqual((await app.events()).slice(before), [
    { name: 'membersChanged', args: [demo.slug], project_id: demo.id },
    { name: 'invitesChanged', args: [demo.slug], project_id: demo.id },
  ])
  assert.equal(got.status, 302)
  assert.equal(got.headers.location, `/${demo.slug}`)
  const members = (await app.call('GET', `/api/projects/${demo.slug}`)).body.members
  assert.ok(
    members.some(
      (m: { user: { name: string }; role: string }) =>
        m.user.name === 'newcomer' && m.role === 'edit',
    ),
  )
})

test('an invite works as many times as its uses, then answers Invite failed', async () => {
  const made = await invite({ role: 'use', uses: '2' })
  assert.equal((await join(made.body.id, 'u1')).status, 302)
  assert.equal((await join(made.body.id, 'u2')).status, 302)
  const third = await join(made.body.id, 'u3')
  assert.equal(third.status, 400)
  assert.ok(third.text.includes('<h1>Invite failed</h1>'))
  assert.ok(third.text.includes('<p>this invite has been used up</p>'))
})

test('parallel joins never take more uses than the invite has', async () => {
  const made = await invite({ role: 'use', uses: '3' })
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => join(made.body.id, `racer${i}`)),
  )
  assert.equal(answers.filter((a) => a.status === 302).length, 3)
  assert.equal(answers.filter((a) => a.status === 400).length, 5)
  const [row] = await app.sql`select uses_left from invites where id = ${hashSecret(made.body.id)}`
  assert.equal(row!.uses_left, 0)
})

test('an expired or unknown invite answers Invite failed, 400', async () => {
  const made = await invite({ role: 'use', days: '1' })
  app.clock.advance(DAY + 1)
  const late = await join(made.body.id, 'late')
  assert.equal(late.status, 400)
  assert.ok(late.text.includes('<p>this invite has expired</p>'))
  const unknown = await join('nope', 'lost')
  assert.equal(unknown.status, 400)
  assert.ok(
    unknown.text.includes('<title>Invite failed</title>') &&
      unknown.text.includes('<p>no such invite</p>'),
  )
})

test('a member joining an invite keeps the higher of the two roles', async () => {
  const p = await app.project(alice, 'Roles Kept')
  const carol = await app.login('carol', 'idp-join-carol')
  await app.member(alice, p.slug, carol, 'edit')
  const lower = await invite({ role: 'use' }, alice, p.slug)
  assert.equal((await join(lower.body.id, 'carol')).status, 302)
  const role = async () =>
    (
      await app.sql`select role from members where project_id = ${p.id} and user_id = ${carol.id}`
    )[0]!.role
  assert.equal(await role(), 'edit')
  const higher = await invite({ role: 'admin' }, alice, p.slug)
  assert.equal((await join(higher.body.id, 'carol')).status, 302)
  assert.equal(await role(), 'admin')
})

test('with SMTP_URL set, an invite with email is mailed and answers mailed true', async () => {
  const got = await invite({ role: 'use', email: 'friend@example.com' })
  expectJson(got, 201)
  assert.equal(got.body.mailed, true)
  const mail = received.at(-1)!
  assert.deepEqual(mail.to, ['friend@example.com'])
  assert.ok(mail.data.includes('Subject: Invitation to Demo'), mail.data)
  assert.ok(mail.data.replace(/=\r\n/g, '').includes(got.body.id), 'the mail carries the link')
})

test('without SMTP_URL, or when the mail server cannot be reached, mailed is false', async () => {
  const before = received.length
  const plain = await app.another({})
  const unset = await plain('POST', `/api/projects/${demo.slug}/invites`, {
    token: alice.token,
    body: { role: 'use', email: 'friend@example.com' },
  })
  expectJson(unset, 201)
  assert.equal(unset.body.mailed, false)
  const down = await app.another({ SMTP_URL: 'smtp://127.0.0.1:1' })
  const failed = await down('POST', `/api/projects/${demo.slug}/invites`, {
    token: alice.token,
    body: { role: 'use', email: 'friend@example.com' },
  })
  expectJson(failed, 201)
  assert.equal(failed.body.mailed, false)
  assert.equal(received.length, before)
})
