/**
 * The ticket service on a real socket: served on port 0 by the http core and used with fetch,
 * as curl scripts and the scheduler use it.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { createLogger } from '../../src/base/log.ts'
import { serve } from '../../src/http/server.ts'
import { ticketsApp } from './support.ts'

const app = await ticketsApp()
const server = await serve({
  name: 'tickets',
  routes: app.service.routes,
  host: '127.0.0.1',
  port: 0,
  graceMs: 0, // no request is on its way when the tests close it
  logger: createLogger(null),
})
after(() => server.close())
const alice = await app.login('alice')
const auth = { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' }

test('over HTTP: create a project and a ticket, read it as JSON and as Markdown', async () => {
  const project = await fetch(`${server.url}/api/projects`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ title: 'Over HTTP' }),
  })
  assert.equal(project.status, 201)
  const made = await fetch(`${server.url}/api/projects/over-http/tickets`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ subject: 'Wire test' }),
  })
  assert.equal(made.status, 201)
  const { ticket } = (await made.json()) as { ticket: { id: string } }
  const json = await fetch(`${server.url}/api/tickets/${ticket.id}`)
  assert.equal(json.headers.get('content-type'), 'application/json; charset=utf-8')
  assert.equal(json.headers.get('vary'), 'Accept')
  const md = await fetch(`${server.url}/api/projects/over-http/tickets`, {
    headers: { accept: 'text/markdown' },
  })
  assert.equal(md.headers.get('content-type'), 'text/markdown; charset=utf-8')
  assert.match(await md.text(), /^# over-http \(Over HTTP\): 1 ticket/)
})

test('over HTTP: a body over 2 MiB answers 413 and a wrong method 405 with Allow', async () => {
  const big = await fetch(`${server.url}/api/projects/over-http/tickets`, {
    method: 'POST',
    headers: auth,
    body: 'x'.repeat(2 * 1024 * 1024 + 1),
  })
  assert.equal(big.status, 413)
  assert.deepEqual(await big.json(), { error: 'body too large' })
  const put = await fetch(`${server.url}/api/tickets`, { method: 'PUT' })
  assert.equal(put.status, 405)
  assert.equal(put.headers.get('allow'), 'GET, HEAD, POST')
  assert.deepEqual(await put.json(), { error: 'GET or POST' })
})

test('over HTTP: the login return sets the cookie and redirects; old addresses redirect', async () => {
  const back = await fetch(
    `${server.url}/login/callback?idp_code=${app.idp.code({ id: 'w', name: 'Wire' })}&next=/over-http`,
    { redirect: 'manual' },
  )
  assert.equal(back.status, 302)
  assert.equal(back.headers.get('location'), '/over-http')
  assert.match(back.headers.get('set-cookie') ?? '', /^tickets_session=/)
  const old = await fetch(`${server.url}/projects/over-http/1`, { redirect: 'manual' })
  assert.equal(old.status, 301)
  assert.equal(old.headers.get('location'), '/over-http/1')
  const page = await fetch(`${server.url}/over-http/1`)
  assert.equal(page.status, 200)
  assert.match(
    await page.text(),
    /<h1 class="ticket-title"><span>Wire test<\/span> <span class="ref">over-http#1<\/span><\/h1>/,
  )
})
