import assert from 'node:assert/strict'
import { test } from 'node:test'
import { makeRequest } from '../../src/http/request.ts'
import { wantsMarkdown } from '../../src/tickets/representations/markdown.ts'
import { expectJson, ticketsApp } from './support.ts'

// Set up before the first test is declared (test/test-files.test.ts says why).
const app = await ticketsApp()
const alice = await app.login('alice')
const bob = await app.login('bob')
const demo = await app.project(alice, 'Demo Board')
await app.member(alice, demo.slug, bob, 'edit')
const md = { accept: 'text/markdown' }

test('wantsMarkdown follows the Accept header’s preference', () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['text/markdown', true],
    ['text/markdown; charset=utf-8', true],
    ['application/json', false],
    ['*/*', false],
    ['text/markdown, application/json', true],
    ['application/json, text/markdown', false],
    ['application/json;q=0.5, text/markdown', true],
    ['text/markdown;q=0, */*', false],
    ['text/markdown;q=0.9, */*;q=0.1', true],
    ['text/html', false],
  ]
  for (const [accept, want] of cases) {
    assert.equal(
      wantsMarkdown(makeRequest({ headers: accept === undefined ? {} : { accept } })),
      want,
      String(accept),
    )
  }
})

test('the project list answers one line per ticket: reference, state, subject, assignee, link', async () => {
  const a = await app.ticket(alice, demo.slug, { subject: 'Fix\nthe   login', assignee: 'bob' })
  app.clock.advance(1000)
  const b = await app.ticket(alice, demo.slug, { subject: 'Write docs' })
  const got = await app.call('GET', `/api/projects/${demo.slug}/tickets`, { headers: md })
  assert.equal(got.status, 200)
  assert.equal(got.headers['content-type'], 'text/markdown; charset=utf-8')
  assert.equal(got.headers.vary, 'Accept')
  assert.equal(
    got.text,
    [
      '# demo-board (Demo Board): 2 tickets (open, doing, review)',
      '',
      `- demo-board#${b.number} [open] Write docs (unassigned) <http://localhost:3002/demo-board/${b.number}>`,
      `- demo-board#${a.number} [open] Fix the login (@bob) <http://localhost:3002/demo-board/${a.number}>`,
      '',
    ].join('\n'),
  )
})

test('the global list answers Markdown too, and says when nothing matches', async () => {
  const got = await app.call('GET', '/api/tickets?state=dropped', { headers: md })
  assert.equal(got.status, 200)
  assert.equal(got.text, '# All projects: 0 tickets (dropped)\n\nNo tickets.\n')
  assert.equal(got.headers.vary, 'Accept')
})

test('a ticket answers a heading, its fields, the summary and its history', async () => {
  const up = await app.ticket(alice, demo.slug, { subject: 'Parent' })
  const t = await app.ticket(alice, demo.slug, {
    subject: 'Markdown me',
    summary: 'Line one.\nLine two.',
  })
  await app.call('POST', `/api/tickets/${t.id}/state`, {
    token: bob.token,
    body: { state: 'doing' },
  })
  await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: alice.token,
    body: { text: 'Nice\nwork' },
  })
  await app.call('POST', `/api/tickets/${t.id}/parent`, {
    token: alice.token,
    body: { parent: up.ref },
  })
  await app.call('POST', `/api/tickets/${t.id}/edit`, {
    token: alice.token,
    body: { subject: 'Markdown me well' },
  })
  const got = await app.call('GET', `/api/projects/${demo.slug}/tickets/${t.number}`, {
    headers: md,
  })
  assert.equal(got.status, 200)
  assert.equal(got.headers.vary, 'Accept')
  const when = '2023-11-14 22:13 UTC'
  assert.equal(
    got.text,
    [
      `# demo-board#${t.number}: Markdown me well`,
      '',
      '- state: doing',
      '- assignee: bob',
      '- author: alice',
      `- parent: ${up.ref}`,
      `- created: ${when}, updated: 2023-11-14 22:13 UTC`,
      `- link: <http://localhost:3002/demo-board/${t.number}>`,
      '',
      'Line one.',
      'Line two.',
      '',
      '## History',
      '',
      `- ${when} bob changed the state from open to doing`,
      `- ${when} bob assigned bob`,
      `- ${when} alice commented:`,
      '  > Nice',
      '  > work',
      `- ${when} alice set the parent to ${up.ref}`,
      `- ${when} alice edited subject`,
      '',
    ].join('\n'),
  )
})

test('every negotiating route sends Vary: Accept on JSON answers and errors too', async () => {
  const t = await app.ticket(alice, demo.slug)
  for (const path of [
    '/api/tickets',
    `/api/projects/${demo.slug}/tickets`,
    `/api/tickets/${t.id}`,
    `/api/projects/${demo.slug}/tickets/${t.number}`,
    '/api/tickets/nope',
    '/api/projects/nope/tickets',
    '/api/tickets?state=bad',
  ]) {
    const got = await app.call('GET', path)
    assert.equal(got.headers.vary, 'Accept', path)
  }
  expectJson(await app.call('GET', '/api/tickets/nope', { headers: md }), 404, {
    error: 'no such ticket',
  })
})
