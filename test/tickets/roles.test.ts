/**
 * What each role may and may not do (docs/tickets-api.md, "Roles"): one test per role, each trying
 * every kind of write.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ticketsApp, type Person } from './support.ts'

const app = await ticketsApp()
const owner = await app.login('owner')
const demo = await app.project(owner, 'Demo')
const target = await app.login('target')
await app.member(owner, demo.slug, target, 'use')

/** Tries every write as `who` and answers each one's status. */
async function tryEverything(who: Person): Promise<Record<string, number>> {
  const t = await app.ticket(owner, demo.slug)
  const other = await app.ticket(owner, demo.slug)
  const post = async (path: string, body: Record<string, string>) =>
    (await app.call('POST', path, { token: who.token, body })).status
  const on = `/api/tickets/${t.id}`
  return {
    create: await post(`/api/projects/${demo.slug}/tickets`, { subject: 'mine' }),
    comment: await post(`${on}/comments`, { text: 'hello' }),
    state: await post(`${on}/state`, { state: 'done' }),
    assign: await post(`${on}/assign`, { assignee: 'target' }),
    edit: await post(`${on}/edit`, { subject: 'edited' }),
    parent: await post(`${on}/parent`, { parent: other.ref }),
    blockedBy: await post(`${on}/blocked-by`, { add: other.ref }),
    updateProject: await post(`/api/projects/${demo.slug}`, { description: `by ${who.name}` }),
    setMember: await post(`/api/projects/${demo.slug}/members`, { user: 'target', role: 'use' }),
    removeMember: await post(`/api/projects/${demo.slug}/members/remove`, { user: 'target' }),
    invite: await post(`/api/projects/${demo.slug}/invites`, { role: 'use' }),
    createProject: await post('/api/projects', { title: `${who.name}'s own` }),
  }
}

const ALLOWED = { create: 201, comment: 201, state: 201 }
const EDITING = { assign: 201, edit: 201, parent: 201, blockedBy: 201 }
const ADMIN = { updateProject: 200, setMember: 200, removeMember: 200, invite: 201 }
const refused = (names: object) => Object.fromEntries(Object.keys(names).map((k) => [k, 403]))

test('someone who is not a member may create a project and read, but write nothing in the project', async () => {
  const stranger = await app.login('stranger')
  assert.deepEqual(await tryEverything(stranger), {
    ...refused(ALLOWED),
    ...refused(EDITING),
    ...refused(ADMIN),
    createProject: 201,
  })
})

test('role use may create tickets, comment and change state, and nothing more', async () => {
  const user = await app.login('user')
  await app.member(owner, demo.slug, user, 'use')
  assert.deepEqual(await tryEverything(user), {
    ...ALLOWED,
    ...refused(EDITING),
    ...refused(ADMIN),
    createProject: 201,
  })
})

test('role edit may also assign, edit and relate tickets, but not run the project', async () => {
  const editor = await app.login('editor')
  await app.member(owner, demo.slug, editor, 'edit')
  assert.deepEqual(await tryEverything(editor), {
    ...ALLOWED,
    ...EDITING,
    ...refused(ADMIN),
    createProject: 201,
  })
})

test('role admin may do everything: update the project, set and remove members, invite', async () => {
  const admin = await app.login('admin')
  await app.member(owner, demo.slug, admin, 'admin')
  await app.member(owner, demo.slug, target, 'use')
  assert.deepEqual(await tryEverything(admin), {
    ...ALLOWED,
    ...EDITING,
    ...ADMIN,
    createProject: 201,
  })
})

test('a member removed from the project can no longer write to it', async () => {
  const leaver = await app.login('leaver')
  await app.member(owner, demo.slug, leaver, 'edit')
  await app.call('POST', `/api/projects/${demo.slug}/members/remove`, {
    token: owner.token,
    body: { user: leaver.id },
  })
  const got = await app.call('POST', `/api/projects/${demo.slug}/tickets`, {
    token: leaver.token,
    body: { subject: 'x' },
  })
  assert.equal(got.status, 403)
})
