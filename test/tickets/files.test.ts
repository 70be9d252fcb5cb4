import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request as rawRequest } from 'node:http'
import { createHandler } from '../../src/http/handler.ts'
import { makeRequest } from '../../src/http/request.ts'
import { bodyBytes } from '../../src/http/response.ts'
import { serve } from '../../src/http/server.ts'
import { ticketsApp, type Person } from './support.ts'
import { testLogger } from '../support/service.ts'
import { until } from '../support/wait.ts'

// Files attached to tickets (docs/tickets-api.md, "Files"): upload, download, dedup, limits,
// safe serving, the sweep. The limits are set small here (1 MB a file, 3 MB a project).
const app = await ticketsApp({ env: { UPLOAD_MAX_MB: '1', PROJECT_FILES_MAX_MB: '3' } })
const handler = createHandler(app.service.routes, { name: 'tickets', logger: testLogger() })
const alice = await app.login('alice')
const bob = await app.login('bob')
const { slug } = await app.project(alice, 'Files Project')

const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  Buffer.alloc(200, 7),
])
const MB = 1024 * 1024

interface Sent {
  status: number
  headers: Record<string, string | string[]>
  bytes: Uint8Array
  body: any
}

async function send(
  method: string,
  url: string,
  options: { body?: Uint8Array | string; token?: string; headers?: Record<string, string> } = {},
): Promise<Sent> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  const response = await handler(
    makeRequest({
      method,
      url,
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
    }),
  )
  const bytes = await bodyBytes(response.body)
  const type = String(response.headers?.['content-type'] ?? '')
  return {
    status: response.status,
    headers: response.headers ?? {},
    bytes,
    body: type.startsWith('application/json')
      ? JSON.parse(Buffer.from(bytes).toString())
      : undefined,
  }
}

function upload(
  person: Person | null,
  name: string,
  body: Uint8Array | string,
  type = 'application/octet-stream',
  extra: Record<string, string> = {},
  to = slug,
) {
  return send('POST', `/api/projects/${to}/files?name=${encodeURIComponent(name)}`, {
    body,
    ...(person ? { token: person.token } : {}),
    headers: { 'content-type': type, ...extra },
  })
}

/** The path part of a file's URL. */
const pathOf = (url: string) => new URL(url).pathname

async function contents(): Promise<number> {
  const [row] = await app.sql`select count(*)::int as n from file_contents`
  return row!.n
}

test('an upload answers 201 with the file, and its address serves the same bytes inline as PNG', async () => {
  const made = await upload(alice, 'screen shot.png', PNG, 'image/png')
  assert.equal(made.status, 201, Buffer.from(made.bytes).toString())
  const file = made.body.file
  assert.deepEqual(Object.keys(file).sort(), ['id', 'markdown', 'name', 'size', 'type', 'url'])
  assert.match(file.id, /^[A-Za-z0-9_-]{22}$/)
  assert.equal(file.name, 'screen shot.png')
  assert.equal(file.type, 'image/png')
  assert.equal(file.size, PNG.length)
  assert.equal(file.url, `http://localhost:3002/files/${file.id}/screen%20shot.png`)
  assert.equal(file.markdown, `![screen shot.png](/files/${file.id}/screen%20shot.png)`)

  const got = await send('GET', pathOf(file.url))
  assert.equal(got.status, 200)
  assert.deepEqual(Buffer.from(got.bytes), PNG)
  assert.equal(got.headers['content-type'], 'image/png')
  assert.equal(got.headers['content-length'], String(PNG.length))
  assert.match(String(got.headers['content-disposition']), /^inline; /)
  assert.equal(got.headers['x-content-type-options'], 'nosniff')
  assert.equal(got.headers['content-security-policy'], "sandbox; default-src 'none'")
  const etag = String(got.headers.etag)
  assert.match(etag, /^"[A-Za-z0-9_-]{43}"$/)
  const again = await send('GET', pathOf(file.url), { headers: { 'if-none-match': etag } })
  assert.equal(again.status, 304)
  assert.equal(again.bytes.length, 0)
  assert.equal(again.headers.etag, etag)
})

test('a file of several chunks comes back byte for byte', async () => {
  const bytes = Buffer.alloc(MB - 5)
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251
  const made = await upload(alice, 'data.bin', bytes)
  assert.equal(made.status, 201)
  const got = await send('GET', pathOf(made.body.file.url))
  assert.equal(got.status, 200)
  assert.equal(Buffer.compare(Buffer.from(got.bytes), bytes), 0)
  assert.equal(
    made.body.file.markdown,
    `[data.bin (1024 kB)](/files/${made.body.file.id}/data.bin)`,
  )
})

test('an SVG with a script and an HTML file are served as attachments of no type, and a PNG named .html as a PNG', async () => {
  const svg = await upload(
    alice,
    'x.svg',
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    'image/svg+xml',
  )
  assert.equal(svg.body.file.type, 'image/svg+xml')
  assert.match(svg.body.file.markdown, /^\[x\.svg \(\d+ B\)\]/)
  const html = await upload(
    alice,
    'page.html',
    '<html><script>alert(1)</script></html>',
    'text/html',
  )
  for (const made of [svg, html]) {
    const got = await send('GET', pathOf(made.body.file.url))
    assert.equal(got.headers['content-type'], 'application/octet-stream')
    assert.match(String(got.headers['content-disposition']), /^attachment; filename="/)
    assert.equal(got.headers['x-content-type-options'], 'nosniff')
    assert.equal(got.headers['content-security-policy'], "sandbox; default-src 'none'")
  }
  const renamed = await upload(alice, 'innocent.html', PNG, 'text/html')
  assert.equal(renamed.body.file.type, 'image/png')
  const got = await send('GET', pathOf(renamed.body.file.url))
  assert.equal(got.headers['content-type'], 'image/png')
  assert.match(String(got.headers['content-disposition']), /^inline; /)
})

test('the same content uploaded twice in a project is stored once, and each upload has its own file', async () => {
  const before = await contents()
  const one = await upload(alice, 'log-a.txt', 'the same log\n', 'text/plain')
  const two = await upload(alice, 'log-b.txt', 'the same log\n', 'text/plain')
  assert.equal(one.status, 201)
  assert.equal(two.status, 201)
  assert.notEqual(one.body.file.id, two.body.file.id)
  assert.equal(await contents(), before + 1)
  assert.equal(
    Buffer.from((await send('GET', pathOf(two.body.file.url))).bytes).toString(),
    'the same log\n',
  )
})

test('names are cleaned to a safe file name', async () => {
  const cases: [string, string][] = [
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\report.pdf', 'report.pdf'],
    ['bad\u0000na\u0007me\u202e.txt', 'badname.txt'],
    ['  ..hidden. ', 'hidden'],
    ['a:b*c?.log', 'a_b_c_.log'],
    [`${'x'.repeat(300)}.png`, `${'x'.repeat(196)}.png`],
    ['/', 'file'],
  ]
  for (const [raw, clean] of cases) {
    const made = await upload(alice, raw, `content of ${raw}`)
    assert.equal(made.status, 201, raw)
    assert.equal(made.body.file.name, clean, raw)
  }
  const missing = await send('POST', `/api/projects/${slug}/files`, {
    token: alice.token,
    body: 'x',
  })
  assert.equal(missing.status, 400)
  assert.deepEqual(missing.body, { error: "'name' is required", field: 'name' })
})

test('a Content-Length over UPLOAD_MAX_MB is refused with 413 naming the limit, before the body is read', async () => {
  const before = await contents()
  const refused = await upload(alice, 'big.bin', 'small', 'application/octet-stream', {
    'content-length': String(MB + 1),
  })
  assert.equal(refused.status, 413)
  assert.deepEqual(refused.body, {
    error: 'a file may be at most 1 MB (UPLOAD_MAX_MB)',
    field: 'body',
  })
  assert.equal(refused.headers['x-error-code'], 'file_too_large')
  assert.equal(await contents(), before)
})

test('a body longer than its Content-Length said is cut off at the limit with 413, and nothing is kept', async () => {
  const before = await contents()
  const refused = await upload(
    alice,
    'liar.bin',
    Buffer.alloc(MB + 10, 1),
    'application/octet-stream',
    { 'content-length': '100' },
  )
  assert.equal(refused.status, 413)
  assert.equal(refused.body.error, 'a file may be at most 1 MB (UPLOAD_MAX_MB)')
  assert.equal(refused.headers['x-error-code'], 'file_too_large')
  assert.equal(await contents(), before)
  const [chunks] =
    await app.sql`select count(*)::int as n from file_chunks c left join file_contents f on f.id = c.content_id where f.sha256 is null`
  assert.equal(chunks!.n, 0)
})

test('a chunked body past the limit on a real socket is answered 413, and nothing is kept', async (t) => {
  const served = await serve({
    name: 'tickets',
    routes: app.service.routes,
    host: '127.0.0.1',
    port: 0,
    graceMs: 0, // no request is on its way when the tests close it
    logger: testLogger(),
  })
  t.after(() => served.close())
  const before = await contents()
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = rawRequest(`${served.url}/api/projects/${slug}/files?name=stream.bin`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice.token}`,
        'content-type': 'application/octet-stream',
        'transfer-encoding': 'chunked',
      },
    })
    req.on('response', (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, text }))
    })
    req.on('error', reject)
    const piece = Buffer.alloc(64 * 1024, 3)
    let sent = 0
    const write = () => {
      while (sent < 3 * MB) {
        sent += piece.length
        if (!req.write(piece)) return void req.once('drain', write)
      }
      req.end()
    }
    write()
  })
  assert.equal(answer.status, 413)
  assert.equal(JSON.parse(answer.text).error, 'a file may be at most 1 MB (UPLOAD_MAX_MB)')
  assert.equal(await contents(), before)
})

test("PROJECT_FILES_MAX_MB refuses with 413 and the project's use, and dedup does not count twice", async () => {
  const { slug: full } = await app.project(alice, 'Full Project')
  const piece = (n: number) => Buffer.alloc(MB - 100, n)
  for (const n of [1, 2, 3])
    assert.equal(
      (await upload(alice, `p${n}.bin`, piece(n), 'application/octet-stream', {}, full)).status,
      201,
    )
  // The same content again takes no room.
  assert.equal(
    (await upload(alice, 'p1-again.bin', piece(1), 'application/octet-stream', {}, full)).status,
    201,
  )
  const refused = await upload(
    alice,
    'p4.bin',
    Buffer.alloc(1000, 9),
    'application/octet-stream',
    {},
    full,
  )
  assert.equal(refused.status, 413)
  assert.equal(
    refused.body.error,
    "this project's files use 3.0 MB of its 3 MB (PROJECT_FILES_MAX_MB): remove unused files or ask for a higher limit",
  )
  assert.equal(refused.headers['x-error-code'], 'project_files_full')
  const declared = await upload(
    alice,
    'p5.bin',
    'x',
    'application/octet-stream',
    { 'content-length': String(1000) },
    full,
  )
  assert.equal(declared.status, 413)
  assert.match(declared.body.error, /^this project's files use 3\.0 MB/)
})

test("uploads take a user token, a project key or the session with its x-tag, in the interface's order of checks", async () => {
  assert.equal((await upload(null, 'a.txt', 'x')).status, 401)
  const badToken = await send('POST', `/api/projects/${slug}/files?name=a.txt`, {
    token: 'tt_nothing',
    body: 'x',
  })
  assert.deepEqual([badToken.status, badToken.body], [401, { error: 'bad or revoked token' }])
  const noTag = await send('POST', `/api/projects/${slug}/files?name=a.txt`, {
    body: 'x',
    headers: { cookie: alice.cookie },
  })
  assert.deepEqual([noTag.status, noTag.body], [403, { error: 'x-tag header missing or wrong' }])
  const bySession = await send('POST', `/api/projects/${slug}/files?name=a.txt`, {
    body: 'by session',
    headers: { cookie: alice.cookie, 'x-tag': alice.tag, 'content-type': 'text/plain' },
  })
  assert.equal(bySession.status, 201)
  assert.equal(
    (
      await send('POST', '/api/projects/nothing-here/files?name=a.txt', {
        token: alice.token,
        body: 'x',
      })
    ).status,
    404,
  )
  const outsider = await upload(bob, 'a.txt', 'x')
  assert.deepEqual(
    [outsider.status, outsider.body],
    [403, { error: 'you are not a member of this project', field: 'project' }],
  )
  const empty = await upload(alice, 'a.txt', '')
  assert.deepEqual([empty.status, empty.body], [400, { error: 'the file is empty', field: 'body' }])

  const connection = await connectApp(alice, slug)
  const byKey = await upload(
    { ...alice, token: connection },
    'crash.log',
    'stack trace\n',
    'text/plain',
  )
  assert.equal(byKey.status, 201)
  const listed = await send('GET', `/api/projects/${slug}/files`)
  const row = listed.body.files.find((f: { id: string }) => f.id === byKey.body.file.id)
  assert.equal(row.by, 'alice')
  assert.equal(row.app, 'Crash reporter')
})

test("GET /api/projects/<slug>/files lists the project's files newest first with who uploaded them", async () => {
  const { slug: other } = await app.project(alice, 'Listed')
  await upload(alice, 'first.txt', 'one', 'text/plain', {}, other)
  app.clock.advance(1000)
  await upload(alice, 'second.txt', 'two', 'text/plain', {}, other)
  const listed = await send('GET', `/api/projects/${other}/files`)
  assert.equal(listed.status, 200)
  assert.deepEqual(
    listed.body.files.map((f: { name: string }) => f.name),
    ['second.txt', 'first.txt'],
  )
  assert.equal(listed.body.files[0].by, 'alice')
  assert.equal(listed.body.files[0].user, alice.id)
  assert.equal(typeof listed.body.files[0].created, 'number')
  assert.equal((await send('GET', '/api/projects/nothing-here/files')).status, 404)
})

test('an unknown or malformed file id answers 404 with the sandbox headers', async () => {
  for (const path of ['/files/AAAAAAAAAAAAAAAAAAAAAA/x.png', '/files/short/x.png']) {
    const got = await send('GET', path)
    assert.equal(got.status, 404)
    assert.equal(got.headers['content-security-policy'], "sandbox; default-src 'none'")
  }
})

test('the sweep removes a file no ticket names a day after its upload, and keeps one a ticket named, even after an edit removed it', async () => {
  const { slug: swept, id } = await app.project(alice, 'Swept')
  const named = await upload(
    alice,
    'named.png',
    Buffer.concat([PNG, Buffer.from('named')]),
    'image/png',
    {},
    swept,
  )
  const edited = await upload(alice, 'edited.txt', 'edited away', 'text/plain', {}, swept)
  const forgotten = await upload(alice, 'forgotten.txt', 'never linked', 'text/plain', {}, swept)
  const ticket = await app.ticket(alice, swept, { summary: `see ${edited.body.file.markdown}` })
  const comment = await app.call('POST', `/api/tickets/${ticket.id}/comments`, {
    token: alice.token,
    body: { text: `look: ${named.body.file.markdown}` },
  })
  assert.equal(comment.status, 201)
  const edit = await app.call('POST', `/api/tickets/${ticket.id}/edit`, {
    token: alice.token,
    body: { summary: 'no link any more' },
  })
  assert.equal(edit.status, 201, edit.text)

  // Before a day has passed, nothing goes.
  app.clock.advance(23 * 60 * 60 * 1000)
  await app.service.fileSweep.run()
  assert.equal((await send('GET', pathOf(forgotten.body.file.url))).status, 200)

  app.clock.advance(60 * 60 * 1000 + 1)
  const gone = await app.service.fileSweep.run()
  assert.ok(gone.files >= 1)
  assert.equal((await send('GET', pathOf(forgotten.body.file.url))).status, 404)
  assert.equal((await send('GET', pathOf(named.body.file.url))).status, 200)
  assert.equal((await send('GET', pathOf(edited.body.file.url))).status, 200)
  const [left] =
    await app.sql`select count(*)::int as n from file_contents where project_id = ${id}`
  assert.equal(left!.n, 2)
  // Kept for good: a later sweep leaves them.
  app.clock.advance(48 * 60 * 60 * 1000)
  await app.service.fileSweep.run()
  assert.equal((await send('GET', pathOf(named.body.file.url))).status, 200)
})

test('two service instances on one database serve one upload', async () => {
  const other = await app.another({ UPLOAD_MAX_MB: '1' })
  const made = await upload(
    alice,
    'shared.png',
    Buffer.concat([PNG, Buffer.from('shared')]),
    'image/png',
  )
  const got = await other('GET', pathOf(made.body.file.url))
  assert.equal(got.status, 200)
  assert.equal(got.headers['content-type'], 'image/png')
})

/** Connects an app to the project as `person` through the connect flow; answers its key. */
async function connectApp(person: Person, project: string): Promise<string> {
  const start = await app.call(
    'GET',
    `/connect?app=crash&label=${encodeURIComponent('Crash reporter')}&return=${encodeURIComponent('http://localhost:9/back')}&state=s`,
  )
  assert.equal(start.status, 302, start.text)
  const nonce = String(start.headers.location).split('/').pop()!
  const confirmed = await app.call('POST', `/api/connect/${nonce}/confirm`, {
    body: { project },
    headers: { cookie: person.cookie, 'x-tag': person.tag, origin: 'http://localhost:3002' },
  })
  assert.equal(confirmed.status, 200, confirmed.text)
  const code = new URL(confirmed.body.location).searchParams.get('code')!
  const exchanged = await app.call('POST', '/api/connect/exchange', { body: { code } })
  assert.equal(exchanged.status, 200, exchanged.text)
  return exchanged.body.key
}

test("the ticket's Markdown answer lists the files its text links, with their whole addresses", async () => {
  const log = await upload(alice, 'trace.log', 'a trace\n', 'text/plain')
  const ticket = await app.ticket(alice, slug, {
    subject: 'With a log',
    summary: `The log: ${log.body.file.markdown}`,
  })
  const md = await app.call('GET', `/api/tickets/${ticket.id}`, {
    headers: { accept: 'text/markdown' },
  })
  assert.equal(md.status, 200)
  assert.ok(md.text.includes(`- files: trace.log (8 B) <${log.body.file.url}>\n`), md.text)
})

test('an upload whose client goes away mid-body leaves nothing behind', async (t) => {
  // The server logs a request once its handler has ended (and discarded what had arrived).
  const lines: string[] = []
  const served = await serve({
    name: 'tickets',
    routes: app.service.routes,
    host: '127.0.0.1',
    port: 0,
    graceMs: 0, // no request is on its way when the tests close it
    logger: { line: (text) => void lines.push(text), flush() {} },
  })
  t.after(() => served.close())
  const before = await contents()
  await new Promise<void>((resolve) => {
    const req = rawRequest(`${served.url}/api/projects/${slug}/files?name=half.bin`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice.token}`,
        'content-type': 'application/octet-stream',
        'content-length': String(900 * 1024),
      },
    })
    req.on('error', () => resolve())
    req.write(Buffer.alloc(300 * 1024, 5), () => setTimeout(() => req.destroy(), 200))
  })
  await until(() => lines.some((line) => line.includes(`POST /api/projects/${slug}/files`)))
  assert.equal(await contents(), before)
  const [arriving] =
    await app.sql`select count(*)::int as n from file_contents where sha256 is null`
  assert.equal(arriving!.n, 0)
})

test('the sweep drops contents that stopped arriving an hour ago', async () => {
  const files = app.service
  const [{ id }] = (await app.sql`select id from projects limit 1`) as unknown as [{ id: string }]
  const [row] =
    await app.sql`insert into file_contents (project_id, created) values (${id}, ${app.clock.now()}) returning id`
  await app.sql`insert into file_chunks (content_id, seq, data) values (${row!.id}, 0, ${Buffer.from('abandoned')})`
  await files.fileSweep.run()
  assert.equal((await app.sql`select 1 from file_contents where id = ${row!.id}`).length, 1)
  app.clock.advance(60 * 60 * 1000 + 1)
  await files.fileSweep.run()
  assert.equal((await app.sql`select 1 from file_contents where id = ${row!.id}`).length, 0)
  assert.equal((await app.sql`select 1 from file_chunks where content_id = ${row!.id}`).length, 0)
})

test('has:file finds the tickets whose text or comments link a file of their project, has:image those linking an image', async () => {
  const { slug: searched } = await app.project(alice, 'Searched')
  const image = await upload(alice, 'shot.png', PNG, 'image/png', {}, searched)
  const log = await upload(alice, 'crash.log', 'a log', 'text/plain', {}, searched)
  // A file of another project: its address in a text attaches nothing here.
  const foreign = await upload(alice, 'foreign.log', 'elsewhere', 'text/plain')
  await app.ticket(alice, searched, {
    subject: 'Crash on start',
    summary: `the log: ${log.body.file.markdown}`,
  })
  const inComment = await app.ticket(alice, searched, { subject: 'Button misplaced' })
  await app.call('POST', `/api/tickets/${inComment.id}/comments`, {
    token: alice.token,
    body: { text: `like this ${image.body.file.markdown}` },
  })
  const editedAway = await app.ticket(alice, searched, {
    subject: 'Edited away',
    summary: `was ${log.body.file.url}`,
  })
  await app.call('POST', `/api/tickets/${editedAway.id}/edit`, {
    token: alice.token,
    body: { summary: 'no log any more' },
  })
  await app.ticket(alice, searched, {
    subject: 'Links elsewhere',
    summary: `see ${foreign.body.file.markdown} and /files/not-a-file`,
  })
  await app.ticket(alice, searched, { subject: 'Nothing attached' })
  const subjects = async (q: string) => {
    const got = await app.call(
      'GET',
      `/api/projects/${searched}/tickets?q=${encodeURIComponent(q)}`,
      { token: alice.token },
    )
    assert.equal(got.status, 200, got.text)
    return (got.body.tickets as { subject: string }[]).map((t) => t.subject).sort()
  }
  assert.deepEqual(await subjects('has:file'), [
    'Button misplaced',
    'Crash on start',
    'Edited away',
  ])
  assert.deepEqual(await subjects('has:image'), ['Button misplaced'])
  assert.deepEqual(await subjects('-has:file'), ['Links elsewhere', 'Nothing attached'])
  assert.deepEqual(await subjects('has:file -has:image crash'), ['Crash on start'])
  const refused = await app.call('GET', `/api/projects/${searched}/tickets?q=has:pdf`, {
    token: alice.token,
  })
  assert.equal(refused.status, 400)
  assert.deepEqual(refused.body, {
    error: "unknown 'has:pdf' (use has:file, has:image)",
    field: 'q',
  })
})
