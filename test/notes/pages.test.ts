/**
 * Pages of the notes list (docs/notes-api.md, "Pages"): `limit` and the opaque `after` cursor,
 * the `next` field and the `Link` header, the 400s, and a walk that misses no note while notes
 * are saved during it.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { notesService, type Answer } from './support.ts'

const app = await notesService()

/** A user with `n` notes saved one after the other: note-1 … note-n, oldest edit first. */
async function userWith(name: string, n: number): Promise<string> {
  const cookie = await app.signIn(name)
  for (let i = 1; i <= n; i++)
    await app.post(cookie, {
      op: 'save',
      id: `note-${i}`,
      local: 'l',
      text: `${i}`,
      base: 0,
      at: i,
    })
  return cookie
}

/** The path and query of an absolute `next` address, for the handler called without a socket. */
function pathOf(url: string): string {
  const { pathname, search } = new URL(url)
  return pathname + search
}

/** Follows `next` from `first` to the last page; answers every page. */
async function walk(
  cookie: string,
  first: string,
  between?: (page: number) => Promise<void>,
): Promise<Answer[]> {
  const pages: Answer[] = []
  let url: string | null = first
  while (url !== null) {
    const page = await app.call('GET', url, { cookie })
    assert.equal(page.status, 200, `${url}: ${page.text}`)
    pages.push(page)
    url = page.json.next === null ? null : pathOf(page.json.next)
    await between?.(pages.length)
  }
  return pages
}

function assert400(res: Answer, error: string, field: string): void {
  assert.deepEqual({ status: res.status, body: res.json }, { status: 400, body: { error, field } })
  assert.equal(res.headers['cache-control'], 'private, no-store')
}

test('with limit the list comes in pages, oldest edit first, each giving the next page in next and Link', async () => {
  const cookie = await userWith('pages-walk', 5)
  const whole = (await app.call('GET', '/api/notes', { cookie })).json.notes
  const pages = await walk(cookie, '/api/notes?limit=2')
  assert.deepEqual(
    pages.map((p) => p.json.notes.length),
    [2, 2, 1],
  )
  assert.deepEqual(
    pages.flatMap((p) => p.json.notes),
    whole,
  )
  for (const page of pages.slice(0, -1)) {
    assert.match(
      page.json.next,
      /^http:\/\/localhost:3001\/api\/notes\?limit=2&after=[A-Za-z0-9_-]+$/,
    )
    assert.equal(page.headers.link, `<${page.json.next}>; rel="next"`)
  }
  assert.equal(pages.at(-1)!.json.next, null)
  assert.equal(pages.at(-1)!.headers.link, undefined)
})

test('a page as long as what is left says next: null; a limit past the rows gives them all', async () => {
  const cookie = await userWith('pages-exact', 2)
  const exact = await app.call('GET', '/api/notes?limit=2', { cookie })
  assert.deepEqual(
    exact.json.notes.map((n: { id: string }) => n.id),
    ['note-1', 'note-2'],
  )
  assert.equal(exact.json.next, null)
  assert.deepEqual(
    (await app.call('GET', '/api/notes?limit=1000', { cookie })).json.notes.length,
    2,
  )
  const empty = await app.call('GET', '/api/notes?limit=5', {
    cookie: await app.signIn('pages-none'),
  })
  assert.deepEqual(empty.json, { notes: [], next: null })
})

test('without limit the answer is the whole list as before, with no next field', async () => {
  const cookie = await userWith('pages-none-asked', 3)
  const res = await app.call('GET', '/api/notes', { cookie })
  assert.deepEqual(Object.keys(res.json), ['notes'])
  assert.equal(res.json.notes.length, 3)
  assert.equal(res.headers.link, undefined)
})

test('since and limit together: pages of what changed since, and next keeps since', async () => {
  const cookie = await userWith('pages-since', 5)
  const whole = (await app.call('GET', '/api/notes', { cookie })).json.notes
  const since = whole[1].edited
  const pages = await walk(cookie, `/api/notes?since=${since}&limit=2`)
  assert.deepEqual(
    pages.flatMap((p) => p.json.notes),
    whole.slice(2),
  )
  assert.match(pages[0]!.json.next, /\?since=\d+&limit=2&after=/)
})

test('after without limit answers every row after the cursor', async () => {
  const cookie = await userWith('pages-after', 4)
  const first = await app.call('GET', '/api/notes?limit=1', { cookie })
  const after = new URL(first.json.next).searchParams.get('after')
  const rest = await app.call('GET', `/api/notes?after=${after}`, { cookie })
  assert.deepEqual(
    rest.json.notes.map((n: { id: string }) => n.id),
    ['note-2', 'note-3', 'note-4'],
  )
  assert.deepEqual(Object.keys(rest.json), ['notes'])
})

test('a walk misses no note saved while it goes, and shows a note edited behind it again', async () => {
  const cookie = await userWith('pages-moving', 6)
  const pages = await walk(cookie, '/api/notes?limit=2', async (page) => {
    if (page === 1) {
      await app.post(cookie, { op: 'save', id: 'note-7', local: 'l', text: 'new', base: 0, at: 9 })
      const edited = (await app.call('GET', '/api/notes?id=note-1', { cookie })).json.edited
      await app.post(cookie, {
        op: 'save',
        id: 'note-1',
        local: 'l',
        text: 'changed',
        base: edited,
        at: 9,
      })
    }
  })
  const seen = pages.flatMap((p) => p.json.notes.map((n: { id: string }) => n.id))
  const now = (await app.call('GET', '/api/notes', { cookie })).json.notes.map(
    (n: { id: string }) => n.id,
  )
  for (const id of now) assert.ok(seen.includes(id), `${id} was missed: ${seen.join(' ')}`)
  assert.deepEqual(seen.slice(-2), ['note-7', 'note-1'], 'the newest edits come last')
})

test('a limit that is not a whole number from 1 to 1000 answers 400', async () => {
  const cookie = await app.signIn('pages-bad-limit')
  for (const limit of ['0', '1001', '-1', '1.5', '', 'ten', '1e3', '10000', ' 5']) {
    assert400(
      await app.call('GET', `/api/notes?limit=${encodeURIComponent(limit)}`, { cookie }),
      "'limit' must be a whole number from 1 to 1000",
      'limit',
    )
  }
})

test('an after that no next address gave answers 400', async () => {
  const cookie = await userWith('pages-bad-after', 2)
  const good = new URL(
    (await app.call('GET', '/api/notes?limit=1', { cookie })).json.next,
  ).searchParams.get('after')!
  const forged = [
    '',
    '5',
    'zzz',
    Buffer.from('x12').toString('base64url'),
    Buffer.from('e-1').toString('base64url'),
    Buffer.from('e99999999999999999').toString('base64url'),
    `${good}=`,
    `${good}.`,
    `${good}A`,
  ]
  for (const after of forged) {
    assert400(
      await app.call('GET', `/api/notes?limit=1&after=${encodeURIComponent(after)}`, { cookie }),
      "'after' must be a cursor from a 'next' address of this list",
      'after',
    )
  }
})

test('since is checked before limit, and limit before after', async () => {
  const cookie = await app.signIn('pages-order')
  assert400(
    await app.call('GET', '/api/notes?since=x&limit=0&after=x', { cookie }),
    "'since' must be a whole number from 0",
    'since',
  )
  assert400(
    await app.call('GET', '/api/notes?limit=0&after=x', { cookie }),
    "'limit' must be a whole number from 1 to 1000",
    'limit',
  )
  const signedOut = await app.call('GET', '/api/notes?limit=0')
  assert.equal(signedOut.status, 401, 'the sign-in check comes first')
})

test('a page has an ETag and is answered 304 while the list is unchanged', async () => {
  const cookie = await userWith('pages-etag', 3)
  const page = await app.call('GET', '/api/notes?limit=2', { cookie })
  const again = await app.call('GET', '/api/notes?limit=2', {
    cookie,
    headers: { 'if-none-match': page.headers.etag! },
  })
  assert.equal(again.status, 304)
  await app.post(cookie, { op: 'save', id: 'late', local: 'l', text: 'x', base: 0, at: 1 })
  assert.equal(
    (
      await app.call('GET', '/api/notes?limit=2', {
        cookie,
        headers: { 'if-none-match': page.headers.etag! },
      })
    ).status,
    200,
  )
})
