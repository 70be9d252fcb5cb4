/**
 * Every HTML page of both services and of the development identity provider carries the page
 * headers: a Content-Security-Policy that allows no inline script and no framing, `nosniff`
 * and a same-origin (or no) referrer policy; JSON, text and Markdown answers carry `nosniff`. Checked
 * on the whole application as `npm start` runs it, signed out and signed in.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createLogger } from '../src/base/log.ts'
import { withPageHeadersOf } from '../src/http/page-headers.ts'
import { makeRequest } from '../src/http/request.ts'
import { json } from '../src/http/response.ts'
import { testDatabase } from './support/db.ts'

const db = await testDatabase()
const config = loadConfig({
  HOST: '127.0.0.1',
  NOTES_PORT: '0',
  TICKETS_PORT: '0',
  DEV_IDP_PORT: '0',
  DEV_SIGNIN: '1',
})
const app = await startApp(config, {
  logger: createLogger(null),
  db: {
    sql: db.sql,
    kind: process.env.TEST_DATABASE_KIND === 'embedded' ? 'embedded' : 'postgres',
    close: async () => {},
  },
})
db.stopFirst(() => app.close())
const notes = app.servers.notes!.url
const tickets = app.servers.tickets!.url
const devIdp = app.servers.idp!.url

/** Signs `name` in to a service through the development provider; answers the cookie header. */
async function signIn(service: string, name: string): Promise<string> {
  const toIdp = await fetch(`${service}/login?next=/`, { redirect: 'manual' })
  const idp = new URL(toIdp.headers.get('location')!)
  idp.searchParams.set('name', name)
  const back = await fetch(idp, { redirect: 'manual' })
  const callback = await fetch(back.headers.get('location')!, { redirect: 'manual' })
  const cookie = callback.headers.get('set-cookie')
  assert.ok(cookie, `no session cookie from ${service}'s login return`)
  return cookie.split(';')[0]!
}

function assertPageHeaders(res: Response, what: string): void {
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/, `${what} is not HTML`)
  const policy = res.headers.get('content-security-policy') ?? ''
  assert.match(policy, /frame-ancestors 'none'/, `${what}: ${policy || 'no policy'}`)
  const script =
    /script-src ([^;]*)/.exec(policy)?.[1] ?? /default-src ([^;]*)/.exec(policy)?.[1] ?? ''
  assert.ok(
    script !== '' && !script.includes('unsafe-inline') && !script.includes('sha256-'),
    `${what} allows inline script: ${policy}`,
  )
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`)
  // The connect page sends no referrer at all (its address holds the nonce): stricter still.
  assert.match(
    res.headers.get('referrer-policy') ?? '',
    /^(same-origin|no-referrer)$/,
    `${what}: referrer policy`,
  )
}

test('every page of both services and the development provider carries the page headers', async () => {
  const aliceNotes = await signIn(notes, 'alice')
  const aliceTickets = await signIn(tickets, 'alice')
  const created = await fetch(`${tickets}/api/projects`, {
    method: 'POST',
    headers: {
      cookie: aliceTickets,
      'content-type': 'application/json',
      'x-tag': await tagOf(aliceTickets),
    },
    body: JSON.stringify({ title: 'Headers' }),
  })
  assert.equal(created.status, 201, await created.clone().text())
  const { slug } = (await created.json()) as { slug: string }
  const connect = await fetch(
    `${tickets}/connect?app=my-app&label=My%20app&return=${encodeURIComponent('https://app.example/back')}&state=s1`,
    { redirect: 'manual' },
  )
  const connectPage = `${tickets}${connect.headers.get('location')}`
  const pages: [string, string, string | null][] = [
    ['notes start page, signed out', `${notes}/`, null],
    ['notes app', `${notes}/`, aliceNotes],
    ['notes login failure page', `${notes}/login/failed`, null],
    ['tickets home, signed out', `${tickets}/`, null],
    ['tickets home', `${tickets}/`, aliceTickets],
    ['project page', `${tickets}/${slug}`, aliceTickets],
    ['inbox', `${tickets}/inbox`, aliceTickets],
    ['settings', `${tickets}/settings`, aliceTickets],
    ['unknown project page', `${tickets}/no-such-project`, aliceTickets],
    ['connect page, signed out', connectPage, null],
    ['connect page', connectPage, aliceTickets],
    [
      'development provider login page',
      `${devIdp}/login?key=${config.apiKey}&return=${encodeURIComponent(`${notes}/login/callback`)}`,
      null,
    ],
  ]
  for (const [what, url, cookie] of pages) {
    const res = await fetch(url, { headers: cookie ? { cookie } : {}, redirect: 'manual' })
    assert.ok(res.status < 500, `${what}: ${res.status}`)
    assertPageHeaders(res, `${what} (${res.status})`)
  }
})

test('JSON, text and Markdown answers carry nosniff', async () => {
  const answers: [string, string, Record<string, string>][] = [
    ['notes /api/me', `${notes}/api/me`, {}],
    ['notes 404', `${notes}/api/nothing`, {}],
    ['tickets /api/me', `${tickets}/api/me`, {}],
    [
      'tickets Markdown list (401 or answer)',
      `${tickets}/api/tickets`,
      { accept: 'text/markdown' },
    ],
    ['health', `${tickets}/healthz`, {}],
  ]
  for (const [what, url, headers] of answers) {
    const res = await fetch(url, { headers })
    assert.equal(
      res.headers.get('x-content-type-options'),
      'nosniff',
      `${what} (${res.status} ${res.headers.get('content-type')})`,
    )
  }
})

test("a handler's answer gets the page headers, and a header the handler set itself wins", async () => {
  const answer = await withPageHeadersOf(() =>
    json(200, { user: null }, { 'referrer-policy': 'no-referrer' }),
  )(makeRequest({ url: '/api/me' }))
  assert.equal(answer.headers?.['x-content-type-options'], 'nosniff')
  assert.match(String(answer.headers?.['content-security-policy']), /frame-ancestors 'none'/)
  assert.equal(answer.headers?.['referrer-policy'], 'no-referrer')
  assert.equal(answer.body, JSON.stringify({ user: null }))
})

/** The session's `x-tag`, as the page's own view of its session gives it. */
async function tagOf(cookie: string): Promise<string> {
  const me = await fetch(`${tickets}/api/me`, { headers: { cookie } })
  const body = (await me.json()) as { tag?: string }
  assert.ok(body.tag, `no tag in ${JSON.stringify(body)}`)
  return body.tag
}
