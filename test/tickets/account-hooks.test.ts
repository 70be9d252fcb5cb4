/**
 * What the tracker hands the built-in provider (src/tickets/account-hooks.ts, through the
 * provider's src/accounts/service-hooks.ts): an invite's words for the sign-in page, and what an
 * account loses here when it signs out everywhere or is disabled; and that the provider's account
 * store runs every service's hooks inside its own transaction.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { inviteContextOf, type ServiceHooks } from '../../src/accounts/service-hooks.ts'
import { createAccountStore } from '../../src/accounts/store.ts'
import { notesAccountHooks } from '../../src/notes/account-hooks.ts'
import { inviteIdOf, ticketsAccountHooks } from '../../src/tickets/account-hooks.ts'
import { hashSecret } from '../../src/base/random.ts'
import { ticketsApp } from './support.ts'

const TICKETS = 'http://localhost:3002'

const app = await ticketsApp()
const { sql, clock } = app
const hooks = ticketsAccountHooks({ sql, clock: clock.now, publicUrl: TICKETS })

const count = async (table: 'sessions' | 'tokens', userId: string) =>
  (await sql`select count(*)::int as n from ${sql(table)} where user_id = ${userId}`)[0]!
    .n as number

test('an invite id is read only from the tracker’s own login return address', () => {
  assert.equal(inviteIdOf(TICKETS, `${TICKETS}/login/callback?invite=abc`), 'abc')
  assert.equal(inviteIdOf(TICKETS, `${TICKETS}/base/login/callback?invite=abc`), 'abc')
  assert.equal(inviteIdOf(TICKETS, `http://localhost:3001/login/callback?invite=abc`), null)
  assert.equal(inviteIdOf(TICKETS, `${TICKETS}/login?invite=abc`), null)
  assert.equal(inviteIdOf(TICKETS, `${TICKETS}/login/callback`), null)
  assert.equal(inviteIdOf(TICKETS, `${TICKETS}/login/callback?invite=${'a'.repeat(101)}`), null)
  assert.equal(inviteIdOf(TICKETS, 'not an address'), null)
})

test('a live invite’s context names the project, the inviter and the role; an expired one names nothing', async () => {
  const olivia = await app.login('Olivia')
  const { slug } = await app.project(olivia, 'Web site')
  const made = await app.call('POST', `/api/projects/${slug}/invites`, {
    token: olivia.token,
    body: { role: 'edit' },
  })
  assert.equal(made.status, 201, made.text)
  const returnTo = new URL(made.body.url).searchParams.get('return')!
  assert.deepEqual(await hooks.inviteContext!(returnTo), {
    project: 'Web site',
    inviter: 'Olivia',
    role: 'edit',
  })
  assert.deepEqual(await inviteContextOf([notesAccountHooks(), hooks], returnTo), {
    project: 'Web site',
    inviter: 'Olivia',
    role: 'edit',
  })
  assert.equal(
    await ticketsAccountHooks({ sql, clock: clock.now, publicUrl: null }).inviteContext!(returnTo),
    null,
  )
  assert.equal(await hooks.inviteContext!(`${TICKETS}/login/callback?invite=unknown`), null)

  clock.advance(8 * 24 * 60 * 60 * 1000)
  assert.equal(await hooks.inviteContext!(returnTo), null)
})

test('ending an account’s sessions at the tracker leaves its tokens and other people’s sessions', async () => {
  const pat = await app.login('Pat', 'account-pat')
  const sam = await app.login('Sam', 'account-sam')
  await sql.begin((tx) => hooks.endSessions(tx, 'account-pat'))
  assert.equal(await count('sessions', pat.id), 0)
  assert.equal(await count('tokens', pat.id), 1)
  assert.equal(await count('sessions', sam.id), 1)
  assert.equal(
    (await app.call('GET', '/api/me', { headers: { cookie: pat.cookie } })).body.user,
    null,
  )
  assert.equal(
    (await app.call('GET', '/api/me', { headers: { cookie: sam.cookie } })).body.user.name,
    'Sam',
  )
  await sql.begin((tx) => hooks.endSessions(tx, 'account-never-signed-in-here'))
})

test('disabling an account at the tracker revokes its tokens', async () => {
  const lee = await app.login('Lee', 'account-lee')
  assert.equal((await app.call('GET', '/api/tokens', { token: lee.token })).status, 200)
  await sql.begin((tx) => hooks.onDisable!(tx, 'account-lee'))
  assert.equal(await count('tokens', lee.id), 0)
  assert.equal((await app.call('GET', '/api/tokens', { token: lee.token })).status, 401)
})

test('the notes service’s hook ends its sessions of the account and no other service’s', async () => {
  await sql`insert into sessions (id, service, user_id, created, expires) values ('notes-of-kim', 'notes', 'account-kim', 0, ${Date.now() + 1e9})`
  await sql`insert into sessions (id, service, user_id, created, expires) values ('tickets-named-kim', 'tickets', 'account-kim', 0, ${Date.now() + 1e9})`
  await sql.begin((tx) => notesAccountHooks().endSessions(tx, 'account-kim'))
  assert.deepEqual(
    (await sql`select service from sessions where user_id = 'account-kim'`).map((r) => r.service),
    ['tickets'],
  )
})

test('the account store runs every service’s hooks in the transaction that disables the account', async () => {
  const calls: string[] = []
  const recording = (name: string, failOnDisable = false): ServiceHooks => ({
    async endSessions(tx, accountId) {
      calls.push(`${name} ends ${accountId}`)
      await tx`select 1`
    },
    async endSignIn() {},
    async onDisable(_tx, accountId) {
      calls.push(`${name} disables ${accountId}`)
      if (failOnDisable) throw new Error(`${name} cannot disable`)
    },
  })
  const store = createAccountStore({
    sql,
    clock: clock.now,
    hooks: [recording('notes'), recording('tickets')],
  })
  await store.create({ name: 'Olivia owner', passwordHash: 'x', owner: true })
  const made = await store.create({ name: 'Dana', passwordHash: 'x', owner: false })
  assert.ok(made.ok)
  await store.setDisabled(made.account.id, true)
  const id = made.account.id
  assert.deepEqual(calls, [
    `notes ends ${id}`,
    `tickets ends ${id}`,
    `notes disables ${id}`,
    `tickets disables ${id}`,
  ])
  assert.equal((await store.byId(id))!.disabled, true)

  calls.length = 0
  await store.signOutEverywhere(id)
  assert.deepEqual(calls, [`notes ends ${id}`, `tickets ends ${id}`])

  calls.length = 0
  await store.setDisabled(id, false)
  assert.deepEqual(calls, [])

  const failing = createAccountStore({
    sql,
    clock: clock.now,
    hooks: [recording('notes'), recording('tickets', true)],
  })
  await assert.rejects(failing.setDisabled(id, true), /tickets cannot disable/)
  assert.equal(
    (await store.byId(id))!.disabled,
    false,
    'a hook that fails leaves the account enabled',
  )
})

test('an invite made before sign-up places were counted has as many places as it has uses left', async () => {
  // sql/0023_invite_signups.sql: `signups_left` is null for those invites.
  const olivia = await app.login('Olivia places')
  const { slug } = await app.project(olivia, 'Older invites')
  const made = await app.call('POST', `/api/projects/${slug}/invites`, {
    token: olivia.token,
    body: { role: 'edit', uses: '2' },
  })
  assert.equal(made.status, 201, made.text)
  const returnTo = new URL(made.body.url).searchParams.get('return')!
  const id = inviteIdOf(TICKETS, returnTo)!
  await sql`update invites set signups_left = null where id = ${hashSecret(id)}`
  const take = () => sql.begin((tx) => hooks.takeInviteSignup!(tx, returnTo))
  assert.deepEqual([await take(), await take(), await take()], [true, true, false])
  assert.equal(
    await sql.begin((tx) =>
      hooks.takeInviteSignup!(tx, `${TICKETS}/login/callback?invite=unknown`),
    ),
    false,
  )
  assert.equal(
    await sql.begin((tx) => hooks.takeInviteSignup!(tx, 'http://localhost:3001/login/callback')),
    null,
    'not an invite of the tracker',
  )
})
