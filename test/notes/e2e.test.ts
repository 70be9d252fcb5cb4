import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { createDevIdentityProvider } from '../../src/accounts/dev-idp.ts'
import { serve } from '../../src/http/server.ts'
import { createIdentityProvider } from '../../src/auth/idp.ts'
import { createLogger } from '../../src/base/log.ts'
import { createNotesService } from '../../src/notes/service.ts'
import { testDatabase } from '../support/db.ts'
import { serviceDeps } from '../support/service.ts'
import { holdPort } from '../../src/start/ports.ts'

// The whole service on a socket, signed in through the development identity provider, spoken
// to with fetch and a real cookie.
const db = await testDatabase()
const logger = createLogger(null)
const devIdp = await serve({
  name: 'dev-idp',
  routes: createDevIdentityProvider({ apiKey: 'dev-key', apiSecret: 'dev-secret' }).routes,
  host: '127.0.0.1',
  port: 0,
  graceMs: 0, // no request is on its way when the tests close it
  logger,
})
// Held from now until the server listens on it (src/start/ports.ts): the address is needed first.
const held = await holdPort('127.0.0.1')
const publicUrl = `http://127.0.0.1:${held.port}`
const { deps } = await serviceDeps(db.sql, 'notes')
const idp = createIdentityProvider({
  authUrl: devIdp.url,
  apiKey: 'dev-key',
  apiSecret: 'dev-secret',
})
const service = createNotesService({ ...deps, idp, publicUrl })
const notes = await serve({
  name: 'notes',
  routes: service.routes,
  host: '127.0.0.1',
  port: held.port,
  held: held.take(),
  graceMs: 0, // no request is on its way when the tests close it
  logger,
})
after(async () => {
  await notes.close()
  await devIdp.close()
})

/** Follows the login button through the provider and back; returns the session cookie. */
async function signIn(name: string): Promise<{ cookie: string; landed: string }> {
  const start = await fetch(`${notes.url}/login?next=/welcome`, { redirect: 'manual' })
  assert.equal(start.status, 302)
  const atIdp = new URL(start.headers.get('location')!)
  atIdp.searchParams.set('name', name)
  const idpAnswer = await fetch(atIdp, { redirect: 'manual' })
  assert.equal(idpAnswer.status, 302)
  const callback = await fetch(idpAnswer.headers.get('location')!, { redirect: 'manual' })
  assert.equal(callback.status, 302)
  assert.equal(await callback.text(), 'logged in')
  return {
    cookie: callback.headers.get('set-cookie')!.split(';')[0]!,
    landed: callback.headers.get('location')!,
  }
}

function post(cookie: string, value: unknown, headers: Record<string, string> = {}) {
  return fetch(`${notes.url}/api/notes`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', origin: publicUrl, ...headers },
    body: JSON.stringify(value),
  })
}

test('a browser signs in through the provider, saves, meets a conflict, and deletes over HTTP', async () => {
  const { cookie, landed } = await signIn('Erin')
  assert.equal(landed, '/welcome')
  const me = await (await fetch(`${notes.url}/api/me`, { headers: { cookie } })).json()
  assert.equal(typeof me.user, 'string')

  const created = await (
    await post(cookie, {
      op: 'save',
      id: 'n1',
      local: 'phone',
      text: 'groceries\n',
      base: 0,
      at: 1,
    })
  ).json()
  const phone = await (
    await post(cookie, {
      op: 'save',
      id: 'n1',
      local: 'phone',
      text: 'groceries: milk\n',
      base: created.edited,
      at: 2,
    })
  ).json()
  const laptop = await (
    await post(cookie, {
      op: 'save',
      id: 'n1',
      local: 'laptop',
      text: 'groceries: bread\n',
      base: created.edited,
      at: 3,
    })
  ).json()
  assert.deepEqual(
    { id: laptop.id, text: laptop.text, edited: laptop.edited },
    { id: 'n1', text: 'groceries: milk\n', edited: phone.edited },
  )
  assert.equal(laptop.copy.text, 'groceries: bread\n')

  const deleted = await post(cookie, { op: 'delete', id: 'n1', base: phone.edited })
  assert.equal(deleted.status, 200)
  assert.deepEqual(await deleted.json(), { ok: true })
  const list = await fetch(`${notes.url}/api/notes`, { headers: { cookie } })
  assert.equal(list.headers.get('content-type'), 'application/json; charset=utf-8')
  const rows = (await list.json()).notes as { id: string; gone: boolean }[]
  assert.deepEqual(
    rows.map((r) => [r.id, r.gone]),
    [
      [laptop.copy.id, false],
      ['n1', true],
    ],
  )
})

test('over HTTP a cross-site POST with the cookie is refused with 403', async () => {
  const { cookie } = await signIn('Frank')
  const res = await post(cookie, { op: 'save' }, { origin: 'https://evil.example' })
  assert.equal(res.status, 403)
  assert.deepEqual(await res.json(), { error: 'cross-site request refused' })
})

test('over HTTP a body over 2 MiB answers 413 body too large', async () => {
  const { cookie } = await signIn('Gina')
  const res = await post(cookie, 'x'.repeat(2 * 1024 * 1024 + 10))
  assert.equal(res.status, 413)
  assert.deepEqual(await res.json(), { error: 'body too large' })
})
