/**
 * Every field of the store's `Ticket` is handled by every representation of a ticket: the JSON
 * answer, the webhooks' and live events' ticket, the Markdown answer, the ticket page and the
 * importer. {@link FIELDS} has one row per key of `Ticket` (its type is `Record<keyof Ticket,
 * ...>`, so a new key fails the type check until it has a row), and the tests fail when the JSON
 * answer carries a key the table does not know, or a representation does not show a field the
 * table says it shows. A field a representation leaves out says why. The checklist for a new
 * field is in docs/architecture.md ("A new field on tickets").
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Ticket } from '../../src/tickets/store/ticket-row.ts'
import type { TicketAnswer } from '../../src/tickets/representations/json.ts'
import { importTickets } from '../../src/tickets/importer/import.ts'
import { webhookMessageOf } from '../../src/tickets/rules/webhook-events.ts'
import { ticketsApp } from './support.ts'

/** A field's place in a representation: what its text holds, or why it is left out. */
type Shown = ((t: TicketAnswer) => string) | { omitted: string }

interface FieldRow {
  /** How the Markdown answer (`Accept: text/markdown`) shows it. */
  markdown: Shown
  /** How the ticket page shows it (the HTML, escaped as the page escapes). */
  page: Shown
  /** The importer's field that sets it, or why none does. */
  importer: string | { omitted: string }
}

const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC'

const FIELDS: Record<keyof Ticket, FieldRow> = {
  id: {
    markdown: { omitted: 'an internal key; the reference and the link name the ticket' },
    page: (t) => t.id,
    importer: { omitted: 'made here' },
  },
  ref: {
    markdown: (t) => `# ${t.ref}: `,
    page: (t) => `<span class="ref">${t.ref}</span>`,
    importer: { omitted: 'the project and the number given here' },
  },
  number: {
    markdown: (t) => `#${t.number}`,
    page: (t) => `/ #${t.number}`,
    importer: { omitted: 'numbered here, after the project’s tickets' },
  },
  oldNumber: {
    markdown: (t) => `- old number: ${t.oldNumber}`,
    page: {
      omitted: 'the old address redirects to the page; the page shows the number it has here',
    },
    importer: 'number',
  },
  project: {
    markdown: { omitted: 'the project’s id; the reference names its slug' },
    page: { omitted: 'the crumbs name the project by its title' },
    importer: { omitted: 'project.slug names it' },
  },
  slug: {
    markdown: (t) => `${t.slug}#`,
    page: (t) => `href="/${t.slug}"`,
    importer: 'project.slug',
  },
  subject: { markdown: (t) => t.subject, page: (t) => t.subject, importer: 'subject' },
  summary: { markdown: (t) => t.summary, page: (t) => t.summary, importer: 'summary' },
  source: {
    markdown: (t) => `- source: ${t.source}`,
    page: { omitted: 'for the tools that filed it; the API and Markdown give it' },
    importer: 'source',
  },
  state: { markdown: (t) => `- state: ${t.state}`, page: (t) => `>${t.state}<`, importer: 'state' },
  assignee: {
    markdown: (t) => `- assignee: ${t.assignee!.name}`,
    page: (t) => `assigned to <b>${t.assignee!.name}</b>`,
    importer: 'assignee',
  },
  author: {
    markdown: (t) => `- author: ${t.author!.name}`,
    page: (t) => `opened by ${t.author!.name}`,
    importer: 'author',
  },
  parent: {
    markdown: (t) => `- parent: ${t.parent!.ref}`,
    page: (t) => `parent ${t.parent!.ref}`,
    importer: 'parent',
  },
  blockedBy: {
    markdown: (t) => `- blocked by: ${t.blockedBy.map((b) => b.ref).join(', ')}`,
    page: (t) => `blocked by ${t.blockedBy[0]!.ref}`,
    importer: 'blockedBy',
  },
  labels: {
    markdown: (t) => `- labels: ${t.labels.join(', ')}`,
    page: (t) => `>${t.labels[0]}<`,
    importer: 'labels',
  },
  milestone: {
    markdown: (t) => `- milestone: ${t.milestone}`,
    page: (t) => `>${t.milestone}<`,
    importer: 'milestone',
  },
  due: {
    markdown: (t) => `- due: ${t.due}`,
    page: (t) => `datetime="${t.due}"`,
    importer: 'due',
  },
  created: {
    markdown: (t) => `- created: ${minute(t.created)}`,
    page: (t) => `datetime="${new Date(t.created).toISOString()}"`,
    importer: 'created',
  },
  updated: {
    markdown: (t) => `updated: ${minute(t.updated)}`,
    page: { omitted: 'the history shows the latest change' },
    importer: { omitted: 'the time of the import' },
  },
}

const app = await ticketsApp()
const alice = await app.login('Alice')
const bob = await app.login('Bob')
const CREATED = Date.UTC(2020, 0, 2, 3, 4)
const imported = await importTickets(
  app.sql,
  {
    project: { slug: 'legacy', title: 'Legacy tracker', description: '', admin: 'Alice' },
    tickets: [
      { number: 1000, subject: 'The parent', author: 'Alice' },
      { number: 1002, subject: 'The blocker', author: 'Alice' },
      {
        number: 1041,
        subject: 'Export fails on large files',
        summary: 'Steps: export a large file.',
        state: 'review',
        source: 'oldtracker:1041',
        author: 'Alice',
        assignee: 'Bob',
        created: CREATED,
        parent: 1000,
        blockedBy: [1002],
        labels: ['needs review', 'bug'],
        milestone: 'v1.0',
        due: '2020-02-01',
      },
    ],
  },
  app.clock.now(),
)
assert.ok('ok' in imported && imported.ok, 'the import is accepted')
await app.member(alice, 'legacy', bob, 'edit')

/** The imported ticket as the JSON API answers it. */
async function answered(): Promise<TicketAnswer> {
  const answer = await app.call('GET', '/api/tickets/1041', { token: alice.token })
  assert.equal(answer.status, 200, answer.text)
  return answer.body.ticket as TicketAnswer
}

const expectedKeys = [...Object.keys(FIELDS), 'url'].sort()

test('the JSON answer carries exactly the fields of the table, and the page address', async () => {
  const t = await answered()
  assert.deepEqual(
    Object.keys(t).sort(),
    expectedKeys,
    'a key of the ticket that the table of fields does not list',
  )
  for (const key of Object.keys(FIELDS) as (keyof Ticket)[])
    assert.notEqual(t[key], null, `${key} is set on the test's ticket`)
})

test('a webhook’s and a live event’s ticket carry the same fields as the JSON answer', async () => {
  const t = await answered()
  const commented = await app.call('POST', `/api/tickets/${t.id}/comments`, {
    token: alice.token,
    body: { text: 'Still happens.' },
  })
  assert.equal(commented.status, 201, commented.text)
  const event = (await app.events()).filter((e) => e.name === 'ticketEvent').at(-1)!
  const message = webhookMessageOf(event as never, { id: t.project, slug: t.slug })
  assert.equal(message?.type, 'ticket.commented')
  const sent = message.data.ticket as Record<string, unknown>
  assert.deepEqual(Object.keys(sent).sort(), expectedKeys)
  assert.deepEqual(
    { ...sent, updated: t.updated },
    { ...t },
    'the same values, but the time of the change',
  )
})

test('the Markdown answer shows every field the table says it shows', async () => {
  const t = await answered()
  const answer = await app.call('GET', '/api/tickets/1041', {
    token: alice.token,
    headers: { accept: 'text/markdown' },
  })
  assert.equal(answer.status, 200)
  for (const [key, row] of Object.entries(FIELDS)) {
    if (typeof row.markdown === 'function')
      assert.ok(
        answer.text.includes(row.markdown(t)),
        `Markdown shows ${key} as ${JSON.stringify(row.markdown(t))}:\n${answer.text}`,
      )
  }
})

test('the ticket page shows every field the table says it shows', async () => {
  const t = await answered()
  const page = await app.call('GET', `/${t.slug}/${t.number}`, {
    headers: { cookie: alice.cookie },
  })
  assert.equal(page.status, 200)
  for (const [key, row] of Object.entries(FIELDS)) {
    if (typeof row.page === 'function')
      assert.ok(
        page.text.includes(row.page(t)),
        `the page shows ${key} as ${JSON.stringify(row.page(t))}`,
      )
  }
})

test('the importer sets every field the table says it sets', async () => {
  const t = await answered()
  const set: Record<string, unknown> = {
    number: t.oldNumber,
    'project.slug': t.slug,
    subject: t.subject,
    summary: t.summary,
    source: t.source,
    state: t.state,
    assignee: t.assignee?.name,
    author: t.author?.name,
    parent: t.parent?.ref,
    blockedBy: t.blockedBy.map((b) => b.ref),
    created: t.created,
    labels: t.labels,
    milestone: t.milestone,
    due: t.due,
  }
  const expected: Record<string, unknown> = {
    number: 1041,
    'project.slug': 'legacy',
    subject: 'Export fails on large files',
    summary: 'Steps: export a large file.',
    source: 'oldtracker:1041',
    state: 'review',
    assignee: 'Bob',
    author: 'Alice',
    parent: 'legacy#1',
    blockedBy: ['legacy#2'],
    created: CREATED,
    labels: ['bug', 'needs review'],
    milestone: 'v1.0',
    due: '2020-02-01',
  }
  for (const [key, row] of Object.entries(FIELDS)) {
    if (typeof row.importer !== 'string') continue
    assert.ok(
      row.importer in expected,
      `the test knows what the importer's ${row.importer} (${key}) sets`,
    )
    assert.deepEqual(
      set[row.importer],
      expected[row.importer],
      `the importer's ${row.importer} sets ${key}`,
    )
  }
})
