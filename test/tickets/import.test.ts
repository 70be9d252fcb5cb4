import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after } from 'node:test'
import {
  importTickets,
  importTicketsFile,
  progressLine,
} from '../../src/tickets/importer/import.ts'
import { writeImportFile } from '../support/import-file.ts'
import { connect } from '../../src/db/client.ts'
import { expectJson, ticketsApp } from './support.ts'

const app = await ticketsApp()
const MB = 1024 * 1024
const alice = await app.login('alice')
const dir = await mkdtemp(join(tmpdir(), 'import-test-'))
after(() => rm(dir, { recursive: true, force: true }))

const FILE = {
  project: {
    slug: 'legacy',
    title: 'Legacy tracker',
    description: 'from the old tool',
    admin: 'alice',
  },
  tickets: [
    {
      number: 1041,
      subject: 'Second',
      state: 'done',
      author: 'alice',
      assignee: 'alice',
      created: '2020-01-02T03:04:05Z',
      parent: 1000,
      comments: [{ author: 'ghost', text: 'old comment', created: 1577934245000 }],
    },
    {
      number: 1000,
      subject: 'First',
      summary: 'the summary',
      source: 'old:1000',
      author: 'Old Person',
      blockedBy: [1041],
    },
  ],
}

test('an import creates the project, numbers tickets by old number and keeps the old numbers', async () => {
  const result = await importTickets(app.sql, FILE, app.clock.now())
  assert.deepEqual(result, {
    ok: true,
    report: {
      project: 'legacy',
      imported: 2,
      skipped: 0,
      warnings: [
        "'Old Person' has not logged in here: kept as a name",
        "'ghost' has not logged in here: kept as a name",
      ],
    },
  })
  const first = await app.call('GET', '/api/tickets/1000')
  expectJson(first, 200)
  assert.equal(first.body.ticket.ref, 'legacy#1')
  assert.equal(first.body.ticket.oldNumber, 1000)
  assert.deepEqual(first.body.ticket.author, { id: null, name: 'Old Person' })
  assert.equal(first.body.ticket.summary, 'the summary')
  const second = await app.call('GET', '/api/tickets/1041')
  assert.equal(second.body.ticket.ref, 'legacy#2')
  assert.equal(second.body.ticket.state, 'done')
  assert.equal(second.body.ticket.created, Date.parse('2020-01-02T03:04:05Z'))
  assert.deepEqual(second.body.ticket.assignee, { id: alice.id, name: 'alice' })
  assert.deepEqual(second.body.ticket.parent, { id: first.body.ticket.id, ref: 'legacy#1' })
  assert.deepEqual(first.body.ticket.blockedBy, [{ id: second.body.ticket.id, ref: 'legacy#2' }])
  assert.deepEqual(
    second.body.events.map((e: { by: string; text: string }) => [e.by, e.text]),
    [['ghost', 'old comment']],
  )
  const members = (await app.call('GET', '/api/projects/legacy')).body.members
  assert.deepEqual(members, [{ user: { id: alice.id, name: 'alice' }, role: 'admin' }])
})

test('after an import /tickets/<old number> redirects to the ticket page', async () => {
  const moved = await app.call('GET', '/tickets/1041')
  assert.equal(moved.status, 301)
  assert.equal(moved.headers.location, '/legacy/2')
})

test('new tickets in an imported project continue after the imported numbers', async () => {
  const t = await app.ticket(alice, 'legacy')
  assert.equal(t.number, 3)
})

test('importing the same file again skips what is there', async () => {
  const again = await importTickets(app.sql, FILE, app.clock.now())
  assert.ok(again.ok)
  assert.equal(again.report.imported, 0)
  assert.equal(again.report.skipped, 2)
  const [row] = await app.sql`select count(*)::int as n from tickets where old_number is not null`
  assert.equal(row!.n, 2)
})

test('a bad file is refused whole, naming the place, and imports nothing', async () => {
  const cases: [unknown, string][] = [
    [[], 'the file must hold a JSON object with project and tickets'],
    [{ project: {}, tickets: [] }, 'project.slug is required'],
    [
      { project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 0, subject: 's' }] },
      'tickets[0].number must be a whole number from 1',
    ],
    [
      { project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 5 }] },
      'tickets[0].subject is required',
    ],
    [
      {
        project: { slug: 'x', admin: 'alice' },
        tickets: [{ number: 5, subject: 's', state: 'closed' }],
      },
      'tickets[0].state must be one of open, doing, review, done, dropped',
    ],
    [
      {
        project: { slug: 'x', admin: 'alice' },
        tickets: [
          { number: 5, subject: 's' },
          { number: 5, subject: 't' },
        ],
      },
      'tickets[1].number 5 appears twice',
    ],
    [
      { project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 5, subject: 's', parent: 6 }] },
      'ticket 5 names old number 6, which is neither in the file nor imported',
    ],
    [
      {
        project: { slug: 'x', admin: 'alice' },
        tickets: [
          { number: 5, subject: 's', parent: 6 },
          { number: 6, subject: 't', parent: 5 },
        ],
      },
      'the parents in the file make a cycle',
    ],
    [
      { project: { slug: 'x' }, tickets: [] },
      "project 'x' does not exist: give project.admin, a person who has logged in, to create it",
    ],
    [
      { project: { slug: 'x', admin: 'alice' }, tickets: [{ number: 1000, subject: 's' }] },
      'old number 1000 already belongs to a ticket of another project',
    ],
    [{ project: { slug: 'api', admin: 'alice' }, tickets: [] }, "project.slug: 'api' is reserved"],
  ]
  for (const [file, error] of cases) {
    const got = await importTickets(app.sql, file, app.clock.now())
    assert.ok(!got.ok, error)
    assert.deepEqual(
      { status: got.status, code: got.code, error: got.message },
      { status: 400, code: 'bad_import', error },
    )
  }
  const [row] = await app.sql`select count(*)::int as n from projects where slug = 'x'`
  assert.equal(row!.n, 0)
})

test('the progress line says how many tickets of how many, and how many a second', () => {
  assert.equal(progressLine(12_000, 80_000, 5), '12,000 of 80,000 tickets, 2,400 a second')
  assert.equal(progressLine(0, 80_000, 0), '0 of 80,000 tickets, 0 a second')
})

// 5,000 tickets of 2 KB in batches of 100: a file half as large as 50,000 short ones in as many
// batches, with a tenth of the rows to write (bench/scale/bulk.ts imports 50,000 and more).
test('a 10 MB file is imported as a stream, a batch at a time with progress, in a memory far below its size', async (t) => {
  const path = join(dir, 'big.json')
  const bytes = await writeImportFile(path, {
    slug: 'big-import',
    admin: 'alice',
    tickets: 5_000,
    firstNumber: 100_000,
    summary: 2_000,
  })
  assert.ok(bytes > 10_000_000, `${bytes} bytes`)
  const gc = globalThis.gc!
  gc()
  const before = process.memoryUsage()
  let heapPeak = 0
  let rssPeak = 0
  const progress: [number, number][] = []
  // As the import script connects: no deadline for an answer (a busy machine makes the last
  // statements, over all the tickets, slow).
  const sql = connect(app.db.url, { max: 2, schema: app.db.schema, answerTimeout: null })
  const result = await importTicketsFile(sql, path, {
    now: app.clock.now(),
    batch: 100,
    onProgress: (done, total) => {
      progress.push([done, total])
      // The heap's live data, without the garbage a collection would free.
      gc()
      const m = process.memoryUsage()
      heapPeak = Math.max(heapPeak, m.heapUsed - before.heapUsed)
      rssPeak = Math.max(rssPeak, m.rss - before.rss)
    },
  }).finally(() => sql.end({ timeout: 5 }))
  assert.ok(result.ok, JSON.stringify(result))
  assert.equal(result.report.imported, 5_000)
  assert.equal(result.report.warnings.length, 50)
  // A batch at a time, in the file's order, to the end.
  assert.ok(progress.length >= 50, `${progress.length} calls`)
  assert.deepEqual(progress.at(-1), [5_000, 5_000])
  assert.ok(
    progress.every(
      ([done, total], i) => total === 5_000 && (i === 0 || done >= progress[i - 1]![0]),
    ),
  )
  // Far below the file's size: the file was never held whole.
  t.diagnostic(
    `${bytes} bytes of file; the live heap grew by at most ${heapPeak} bytes, the resident memory by ${rssPeak}`,
  )
  assert.ok(heapPeak < bytes / 4, `the live heap grew by ${heapPeak} bytes for a file of ${bytes}`)
  assert.ok(rssPeak < 300_000_000, `the resident memory grew by ${rssPeak} bytes`)

  // Numbered by old number though the file runs downwards, with its comments and relations.
  const lowest = await app.call('GET', '/api/tickets/100000')
  assert.equal(lowest.body.ticket.ref, 'big-import#1')
  const ninth = await app.call('GET', '/api/tickets/100009')
  assert.equal(ninth.body.ticket.ref, 'big-import#10')
  assert.deepEqual(ninth.body.ticket.parent, {
    id: (await app.call('GET', '/api/tickets/100008')).body.ticket.id,
    ref: 'big-import#9',
  })
  assert.deepEqual(
    ninth.body.events.map((e: { text: string }) => e.text),
    ['Comment 0 on ticket 100009'],
  )
  const [rows] = await app.sql`
    select count(*)::int as tickets, count(parent_id)::int as parents, (select count(*)::int from blockers x join tickets t on t.id = x.ticket_id where t.project_id = p.id) as blockers,
      (select sum(count)::int from ticket_counts c where c.project_id = p.id) as counted
    from tickets t join projects p on p.id = t.project_id where p.slug = 'big-import' group by p.id`
  assert.deepEqual(rows, { tickets: 5_000, parents: 500, blockers: 250, counted: 5_000 })
})

test('a file that is not JSON to its end is refused and imports nothing', async () => {
  const path = join(dir, 'cut.json')
  await writeFile(
    path,
    '{"project": {"slug": "cut-short", "admin": "alice"}, "tickets": [{"number": 77001, "subject": "one"}, {"number": 77002, "subj',
  )
  const result = await importTicketsFile(app.sql, path, { now: app.clock.now() })
  assert.equal(result.ok, false)
  assert.ok(
    !result.ok &&
      result.status === 400 &&
      result.code === 'bad_import' &&
      result.message.startsWith('the file is not valid JSON: '),
    JSON.stringify(result),
  )
  const [row] = await app.sql`select count(*)::int as n from projects where slug = 'cut-short'`
  assert.equal(row!.n, 0)
})

test('a file whose tickets come before its project, with other keys, is imported as a whole one is', async () => {
  const path = join(dir, 'order.json')
  // Written with a byte-order mark first, as some exporters do.
  await writeFile(
    path,
    '\uFEFF' +
      JSON.stringify({
        version: { of: ['the', 'export'] },
        tickets: [
          { number: 88002, subject: 'two', blockedBy: [88001] },
          { number: 88001, subject: 'one' },
        ],
        project: { slug: 'late-project', admin: 'alice' },
      }),
  )
  const result = await importTicketsFile(app.sql, path, { now: app.clock.now() })
  assert.deepEqual(result, {
    ok: true,
    report: { project: 'late-project', imported: 2, skipped: 0, warnings: [] },
  })
  const two = await app.call('GET', '/api/tickets/88002')
  assert.equal(two.body.ticket.ref, 'late-project#2')
  assert.deepEqual(
    two.body.ticket.blockedBy.map((b: { ref: string }) => b.ref),
    ['late-project#1'],
  )
})

const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  Buffer.alloc(64, 1),
])

test("an export's files are stored as uploads are, their old addresses in the texts replaced, the others linked from the summary", async () => {
  const folder = join(dir, 'with-files')
  await mkdir(join(folder, 'attachments'), { recursive: true })
  await writeFile(join(folder, 'attachments', 'crash.log'), 'panic: nil map\n')
  // A PNG named .html is a PNG; an SVG stays an attachment whatever its type says.
  await writeFile(join(folder, 'attachments', 'shot.html'), PNG)
  const path = join(folder, 'export.json')
  await writeFile(
    path,
    JSON.stringify({
      project: { slug: 'with-files', admin: 'alice' },
      tickets: [
        {
          number: 91001,
          subject: 'Crash on start',
          summary: 'See https://old.example/a/1 for the log.',
          author: 'alice',
          comments: [{ author: 'alice', text: 'and ![it](https://old.example/a/2)' }],
          files: [
            {
              name: 'crash.log',
              type: 'text/plain',
              path: 'attachments/crash.log',
              url: 'https://old.example/a/1',
            },
            {
              name: 'shot.html',
              type: 'text/html',
              path: 'attachments/shot.html',
              url: 'https://old.example/a/2',
            },
            {
              name: '../../evil.svg',
              type: 'image/svg+xml',
              content: Buffer.from('<svg><script>alert(1)</script></svg>').toString('base64'),
            },
          ],
        },
        { number: 91002, subject: 'No files' },
      ],
    }),
  )
  const result = await importTicketsFile(app.sql, path, { now: app.clock.now() })
  assert.ok(result.ok, JSON.stringify(result))
  const listed = await app.call('GET', '/api/projects/with-files/files')
  const files = Object.fromEntries(
    (
      listed.body.files as { name: string; url: string; type: string; by: string; size: number }[]
    ).map((f) => [f.name, f]),
  )
  assert.deepEqual(Object.keys(files).sort(), ['crash.log', 'evil.svg', 'shot.html'])
  assert.equal(files['crash.log']!.by, 'alice')
  assert.equal(files['shot.html']!.type, 'image/png')
  const ticket = (await app.call('GET', '/api/tickets/91001')).body.ticket
  const pathOf = (url: string) => new URL(url).pathname
  assert.equal(ticket.summary.split('\n')[0], `See ${pathOf(files['crash.log']!.url)} for the log.`)
  assert.match(ticket.summary, /\[evil\.svg \(36 B\)\]\(\/files\/[A-Za-z0-9_-]{22}\/evil\.svg\)$/)
  const history = (await app.call('GET', '/api/tickets/91001')).body.events as {
    kind: string
    text?: string
  }[]
  assert.equal(
    history.find((e) => e.kind === 'comment')!.text,
    `and ![it](${pathOf(files['shot.html']!.url)})`,
  )
  // Served as uploads are: the log byte for byte as an attachment, the PNG inline as a PNG, the SVG as an attachment.
  const log = await app.call('GET', pathOf(files['crash.log']!.url))
  assert.equal(log.text, 'panic: nil map\n')
  assert.match(String(log.headers['content-disposition']), /^attachment/)
  assert.equal(
    (await app.call('GET', pathOf(files['shot.html']!.url))).headers['content-type'],
    'image/png',
  )
  assert.equal(
    (await app.call('GET', pathOf(files['evil.svg']!.url))).headers['content-type'],
    'application/octet-stream',
  )
  const found = await app.call('GET', '/api/projects/with-files/tickets?q=has:file state:all', {
    token: alice.token,
  })
  assert.deepEqual(
    found.body.tickets.map((t: { subject: string }) => t.subject),
    ['Crash on start'],
  )
})

test("an export's files are refused, naming the place, when outside its folder, missing, not base64, empty or over UPLOAD_MAX_MB", async () => {
  const folder = join(dir, 'bad-files')
  await mkdir(folder, { recursive: true })
  await writeFile(join(folder, 'empty.txt'), '')
  await writeFile(join(folder, 'big.bin'), Buffer.alloc(MB + 1))
  await writeFile(join(dir, 'secret.txt'), 'outside the export')
  await symlink(join(dir, 'secret.txt'), join(folder, 'link.txt'))
  const refusal = async (file: Record<string, unknown>) => {
    const path = join(folder, 'export.json')
    await writeFile(
      path,
      JSON.stringify({
        project: { slug: 'bad-files', admin: 'alice' },
        tickets: [{ number: 92001, subject: 'one', files: [file] }],
      }),
    )
    const result = await importTicketsFile(app.sql, path, { now: app.clock.now(), uploadMaxMb: 1 })
    assert.equal(result.ok, false)
    return result.ok ? '' : `${result.code}: ${result.message}`
  }
  const at = 'bad_import: tickets[0].files[0]'
  assert.equal(
    await refusal({ name: 'x', path: '../secret.txt' }),
    `${at}.path must name a file inside the export file's folder`,
  )
  assert.equal(
    await refusal({ name: 'x', path: join(dir, 'secret.txt') }),
    `${at}.path must name a file inside the export file's folder`,
  )
  assert.equal(
    await refusal({ name: 'x', path: 'link.txt' }),
    `${at}.path must name a file inside the export file's folder`,
  )
  assert.equal(
    await refusal({ name: 'x', path: 'gone.txt' }),
    `${at}.path: there is no file 'gone.txt' beside the export`,
  )
  assert.equal(
    await refusal({ name: 'x', content: 'not base64!' }),
    `${at}.content must be the file's bytes in base64`,
  )
  assert.equal(
    await refusal({ name: 'x' }),
    `${at} needs either path (a file beside the export) or content (base64)`,
  )
  assert.equal(await refusal({ name: 'x', path: 'empty.txt' }), `${at} is empty`)
  assert.equal(
    await refusal({ name: 'x', path: 'big.bin' }),
    `${at} is larger than the limit of 1 MB a file (UPLOAD_MAX_MB)`,
  )
  assert.equal(
    await refusal({ name: 'x', content: Buffer.alloc(MB + 1).toString('base64') }),
    `${at} is larger than the limit of 1 MB a file (UPLOAD_MAX_MB)`,
  )
  assert.equal(await refusal({ path: 'empty.txt' }), `${at}.name is required`)
  const [row] = await app.sql`select count(*)::int as n from projects where slug = 'bad-files'`
  assert.equal(row!.n, 0)
})

test("an export whose files would pass the project's PROJECT_FILES_MAX_MB is refused whole", async () => {
  const content = (fill: number) => Buffer.alloc(700 * 1024, fill).toString('base64')
  const result = await importTickets(
    app.sql,
    {
      project: { slug: 'full-files', admin: 'alice' },
      tickets: [
        { number: 93001, subject: 'one', files: [{ name: 'a.bin', content: content(1) }] },
        { number: 93002, subject: 'two', files: [{ name: 'b.bin', content: content(2) }] },
      ],
    },
    app.clock.now(),
    { projectFilesMaxMb: 1 },
  )
  assert.equal(result.ok, false)
  assert.match(
    result.ok ? '' : result.message,
    /^tickets\[1\]\.files\[0\]: this project's files use 0\.7 MB of its 1 MB/,
  )
  const [project] = await app.sql`select count(*)::int as n from projects where slug = 'full-files'`
  assert.equal(project!.n, 0)
})
