/**
 * Published notes (docs/notes-api.md, "Publishing"): a read-only page at /p/<128-bit id> that
 * renders the note's Markdown safely and follows later saves, carries no cookie, `noindex` and a
 * cache that revalidates; Unpublish answers 404 at once, also from a second process.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createHandler } from '../../src/http/handler.ts'
import { makeRequest } from '../../src/http/request.ts'
import { createNotesService } from '../../src/notes/service.ts'
import { testLogger } from '../support/service.ts'
import { assertAnswers, notesService } from './support.ts'

const app = await notesService()
const json = { 'content-type': 'application/json' }

function publications(cookie: string, body: unknown) {
  return app.call('POST', '/api/notes/publications', {
    cookie,
    headers: json,
    body: JSON.stringify(body),
  })
}

async function page(path: string, headers: Record<string, string> = {}) {
  return app.call('GET', path, { headers })
}

async function note(cookie: string, id: string, text: string, base = 0): Promise<number> {
  return (await app.post(cookie, { op: 'save', id, local: 'l', text, base, at: 1 })).json.edited
}

test('Publish gives a page at /p/<128 random bits> that renders the note safely, with no cookie, noindex and a revalidated cache', async () => {
  const cookie = await app.signIn('p-owner')
  await note(
    cookie,
    'trip',
    '# Trip\n\n- [x] tickets\n- [ ] bags\n\n<script>alert(1)</script> ![pixel](https://tracker.example/p.png)\n',
  )
  const made = await publications(cookie, { op: 'publish', id: 'trip' })
  assert.equal(made.status, 200)
  assert.match(made.json.id, /^[A-Za-z0-9_-]{22}$/)
  assert.equal(made.json.url, `${app.publicUrl}/p/${made.json.id}`)
  assert.equal(made.json.note, 'trip')
  const again = await publications(cookie, { op: 'publish', id: 'trip' })
  assert.equal(again.json.id, made.json.id, 'publishing a published note keeps its link')

  const res = await page(`/p/${made.json.id}`, { cookie })
  assert.equal(res.status, 200)
  assert.equal(res.headers['set-cookie'], undefined)
  assert.equal(res.headers['x-robots-tag'], 'noindex, nofollow')
  assert.equal(res.headers['cache-control'], 'public, no-cache')
  assert.match(res.headers['content-security-policy']!, /script-src 'self'/)
  assert.match(res.text, /<meta name="robots" content="noindex, nofollow">/)
  assert.match(res.text, /<title>Trip<\/title>/)
  assert.match(res.text, /<h1>Trip<\/h1>/)
  assert.match(
    res.text,
    /<input type="checkbox" class="task-box" data-line="2" aria-labelledby="task-2" checked disabled>/,
  )
  assert.match(res.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
  assert.doesNotMatch(res.text, /<img|<script>alert/)
  const revalidated = await page(`/p/${made.json.id}`, { 'if-none-match': res.headers.etag! })
  assert.equal(revalidated.status, 304)
})

test("the page follows the owner's later saves, and a deleted note's page answers 404", async () => {
  const cookie = await app.signIn('p-follow')
  const edited = await note(cookie, 'n', 'First words\n')
  const { json: made } = await publications(cookie, { op: 'publish', id: 'n' })
  const second = await note(cookie, 'n', 'Second words\n', edited)
  assert.match((await page(`/p/${made.id}`)).text, /Second words/)
  await app.post(cookie, { op: 'delete', id: 'n', base: second })
  assert.equal((await page(`/p/${made.id}`)).status, 404)
})

test('Unpublish ends the link at once, in this process and another; publishing again makes a new link', async () => {
  const cookie = await app.signIn('p-unpublish')
  await note(cookie, 'n', 'Secret soon\n')
  const { json: made } = await publications(cookie, { op: 'publish', id: 'n' })
  const other = createNotesService(app.deps)
  const otherProcess = createHandler(other.routes, { name: 'notes', logger: testLogger() })
  try {
    assert.equal((await otherProcess(makeRequest({ url: `/p/${made.id}` }))).status, 200)
    const gone = await publications(cookie, { op: 'unpublish', id: 'n' })
    assert.deepEqual(gone.json, { ok: true, was: true })
    const here = await page(`/p/${made.id}`)
    assert.equal(here.status, 404)
    assert.equal(here.headers['cache-control'], 'no-store')
    assert.match(here.text, /This note is not published, or no longer is/)
    assert.equal(
      (await otherProcess(makeRequest({ url: `/p/${made.id}` }))).status,
      404,
      'the other process answers 404 at once',
    )
  } finally {
    await other.close?.()
  }
  const { json: anew } = await publications(cookie, { op: 'publish', id: 'n' })
  assert.notEqual(anew.id, made.id)
  assert.equal((await page(`/p/${made.id}`)).status, 404)
  assert.equal((await page(`/p/${anew.id}`)).status, 200)
  assert.deepEqual((await app.call('GET', '/api/notes/publications', { cookie })).json, {
    publications: [{ note: 'n', id: anew.id, url: anew.url }],
  })
})

test('nobody publishes a note that is not theirs, and an address that was never published answers 404', async () => {
  const owner = await app.signIn('p-mine')
  const other = await app.signIn('p-theirs')
  await note(owner, 'private', 'mine\n')
  const refused = await publications(other, { op: 'publish', id: 'private' })
  assert.equal(refused.status, 404)
  assert.deepEqual(refused.json, { error: 'no such note' })
  assert.equal((await page('/p/AAAAAAAAAAAAAAAAAAAAAA')).status, 404)
  assert.equal((await page('/p/not-an-id')).status, 404)
})

test('the checks of /api/notes/publications come in the order of /api/notes', async () => {
  const cookie = await app.signIn('p-checks')
  await assertAnswers(app, '/api/notes/publications', [
    ['GET', {}, 401, { error: 'log in with idp first' }],
    ['DELETE', { cookie }, 405, { error: 'GET or POST only' }],
    ['POST', { cookie, headers: json }, 400, { error: 'a JSON body is needed' }],
    [
      'POST',
      { cookie, headers: json, body: '1' },
      400,
      { error: 'the body must be a JSON object' },
    ],
    [
      'POST',
      { cookie, headers: json, body: '{"op":"share","id":"x"}' },
      400,
      { error: "op must be 'publish' or 'unpublish'" },
    ],
    [
      'POST',
      { cookie, headers: json, body: '{"op":"publish"}' },
      400,
      { error: 'publish and unpublish need id (string)' },
    ],
    [
      'POST',
      { cookie, headers: json, body: '{"op":"publish","id":"x","at":1}' },
      400,
      { error: "unknown field 'at'" },
    ],
    [
      'POST',
      { cookie, headers: json, body: '{"op":"unpublish","id":"never"}' },
      200,
      { ok: true, was: false },
    ],
  ])
})
