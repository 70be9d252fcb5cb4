/**
 * The tickets' domain layer (src/tickets/domain/) called as the API, the pages and the importer
 * call it, without a request: who may create and change a ticket, the one membership rule that
 * the store's one-statement writes and the refusals share, and what a change emits.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Refusal } from '../../src/http/refusal.ts'
import { changeState, comment } from '../../src/tickets/domain/changes.ts'
import { createTicket } from '../../src/tickets/domain/tickets.ts'
import { mayAct, rolesAtLeast, ROLES } from '../../src/tickets/rules/roles.ts'
import type { Actor } from '../../src/tickets/rules/actor.ts'
import { createTicketStore } from '../../src/tickets/store/ticket-store.ts'
import { ticketsApp } from './support.ts'

const URL = 'http://localhost:3002'
const app = await ticketsApp()
const owner = await app.login('Owner')
const user = await app.login('User')
const outsider = await app.login('Outsider')
const { slug } = await app.project(owner, 'Rules')
await app.member(owner, slug, user, 'use')
const project = (await app.call('GET', `/api/projects/${slug}`)).body.project
const ticketStore = createTicketStore({ sql: app.sql, clock: app.clock.now })

const actor = (who: { id: string; name: string }): Actor => ({
  user: { id: who.id, name: who.name },
  app: null,
  now: app.clock.now(),
})

test('the membership rule: each role may do what the roles below it may, and nobody else may', () => {
  assert.deepEqual(rolesAtLeast('use'), ['use', 'edit', 'admin'])
  assert.deepEqual(rolesAtLeast('edit'), ['edit', 'admin'])
  assert.deepEqual(rolesAtLeast('admin'), ['admin'])
  for (const needed of ROLES) {
    assert.equal(mayAct(null, needed), false, `a non-member may not do what ${needed} may`)
    for (const role of ROLES)
      assert.equal(
        mayAct(role, needed),
        ROLES.indexOf(role) >= ROLES.indexOf(needed),
        `${role} for ${needed}`,
      )
  }
})

test('a member creates a ticket in one statement and its creation is emitted; a non-member is refused and nothing is written', async () => {
  const before = (await app.events()).length
  const made = await ticketStore.transact((tx) =>
    createTicket(tx, URL, actor(user), project, {
      subject: 'By a member',
      summary: '',
      source: '',
      assignee: '',
    }),
  )
  assert.ok(made.ok)
  assert.equal(made.ticket.subject, 'By a member')
  const emitted = (await app.events()).slice(before)
  assert.deepEqual(
    emitted.map((e) => e.name),
    ['ticketCreated'],
  )
  const refused = await ticketStore.transact((tx) =>
    createTicket(tx, URL, actor(outsider), project, {
      subject: 'By an outsider',
      summary: '',
      source: '',
      assignee: '',
    }),
  )
  assert.ok(refused instanceof Refusal)
  assert.equal(refused.status, 403)
  assert.equal(refused.code, 'forbidden')
  assert.equal(refused.message, 'you are not a member of this project')
  assert.equal(refused.field, 'project')
  assert.equal(
    (await app.sql`select count(*)::int as n from tickets where subject = 'By an outsider'`)[0]!.n,
    0,
  )
})

test('a comment by a member is written; by a non-member it is refused, before its length is looked at', async () => {
  const t = await app.ticket(owner, slug)
  const said = await ticketStore.transact((tx) => comment(tx, URL, actor(user), t.id, 'Seen it'))
  assert.ok(said.ok)
  assert.equal(said.event.kind, 'comment')
  assert.equal(said.ticket.url, `${URL}/${slug}/${t.number}`)
  for (const text of ['Me too', 'x'.repeat(100_001)]) {
    const refused = await ticketStore.transact((tx) =>
      comment(tx, URL, actor(outsider), t.id, text),
    )
    assert.ok(refused instanceof Refusal)
    assert.equal(refused.status, 403)
  }
  const long = await ticketStore.transact((tx) =>
    comment(tx, URL, actor(user), t.id, 'x'.repeat(100_001)),
  )
  assert.ok(long instanceof Refusal)
  assert.equal(long.status, 400)
  assert.equal(long.field, 'text')
})

test('the store’s one-statement change checks the same rule as the refusal: a use member cannot make an edit-level change', async () => {
  const t = await app.ticket(owner, slug)
  const asUse = await ticketStore.transact((tx) =>
    tx.tickets.changeAsMember(
      t.id,
      { updated: app.clock.now() },
      [{ kind: 'comment', data: { text: 'edit-level' } }],
      actor(user),
      'edit',
    ),
  )
  assert.deepEqual(asUse, { ok: false, role: 'use' })
  const asNobody = await ticketStore.transact((tx) =>
    tx.tickets.changeAsMember(
      t.id,
      { updated: app.clock.now() },
      [{ kind: 'comment', data: { text: 'x' } }],
      actor(outsider),
      'use',
    ),
  )
  assert.deepEqual(asNobody, { ok: false, role: null })
  const asAdmin = await ticketStore.transact((tx) =>
    tx.tickets.changeAsMember(
      t.id,
      { updated: app.clock.now() },
      [{ kind: 'comment', data: { text: 'by the admin' } }],
      actor(owner),
      'edit',
    ),
  )
  assert.equal(asAdmin.ok, true)
})

test('a state change to doing assigns the person who takes the ticket', async () => {
  const t = await app.ticket(owner, slug)
  const taken = await ticketStore.transact((tx) =>
    changeState(tx, URL, actor(user), t.id, 'doing', ''),
  )
  assert.ok(taken.ok)
  assert.equal(taken.ticket.assignee?.name, 'User')
  assert.equal(taken.assignEvent?.kind, 'assign')
})
