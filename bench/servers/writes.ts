/**
 * The write-route baseline: a bare node:http server that parses the body with JSON.parse and
 * runs the same SQL statements, in the same order and transactions (src/db/transaction.ts), as the ticket service does
 * for a ticket create, a comment and a state change (src/tickets/api/tickets.ts, api/changes.ts,
 * store/ticket-row.ts, store/ticket-writes.ts, credentials.ts, store/outbox.ts) and the notes service for a note save (src/notes/store.ts,
 * whose session the service holds in memory: here a map of the cookies the bench made), and
 * answers the same JSON. It checks nothing the statements do not: no router, no validator, no
 * log, no refusals beyond a 500 on a surprise.
 *
 * Environment: DATABASE_URL (with `?search_path=` when needed), BASELINE_COOKIES (a JSON object
 * of cookie header value to notes user). Prints `listening <url>`; stops on SIGTERM.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type postgres from 'postgres'
import { connect, type Sql, type TransactionSql } from '../../src/db/client.ts'
import { transaction, type TransactionQuery } from '../../src/db/transaction.ts'

type Q = Sql | TransactionSql | TransactionQuery
type LiveEvent = { project: string; name: string; args: unknown[]; created: number }

const sql = connect(process.env.DATABASE_URL!)
const cookies = new Map(
  Object.entries(JSON.parse(process.env.BASELINE_COOKIES ?? '{}') as Record<string, string>),
)
const PUBLIC_URL = process.env.TICKETS_URL ?? 'http://localhost:0'

/** The columns of a ticket's view read from `t` and their joins (src/tickets/store/ticket-row.ts, viewOf). */
function viewOf(q: Q) {
  return {
    columns: q`t.id, t.number, t.old_number, t.project_id, p.slug, t.subject, t.summary, t.source, t.state,
      t.assignee_id, a.name as assignee_name, t.author_id, coalesce(u.name, t.author_name) as author_name,
      t.parent_id, pt.number as parent_number, pp.slug as parent_slug,
      (select coalesce(json_agg(json_build_object('id', b.id, 'slug', bp.slug, 'number', b.number) order by bp.slug, b.number), '[]')
        from blockers x join tickets b on b.id = x.blocker_id join projects bp on bp.id = b.project_id
        where x.ticket_id = t.id) as blocked_by,
      t.created, t.updated`,
    joins: q`join projects p on p.id = t.project_id
    left join users a on a.id = t.assignee_id
    left join users u on u.id = t.author_id
    left join tickets pt on pt.id = t.parent_id
    left join projects pp on pp.id = pt.project_id`,
  }
}

function ticketView(r: postgres.Row) {
  const blockedBy = (
    typeof r.blocked_by === 'string' ? JSON.parse(r.blocked_by) : r.blocked_by
  ) as { id: string; slug: string; number: number }[]
  return {
    id: r.id,
    ref: `${r.slug}#${r.number}`,
    number: r.number,
    oldNumber: r.old_number ?? null,
    project: r.project_id,
    slug: r.slug,
    subject: r.subject,
    summary: r.summary,
    source: r.source,
    state: r.state,
    assignee: r.assignee_id ? { id: r.assignee_id, name: r.assignee_name } : null,
    author: r.author_name ? { id: r.author_id ?? null, name: r.author_name } : null,
    parent: r.parent_id ? { id: r.parent_id, ref: `${r.parent_slug}#${r.parent_number}` } : null,
    blockedBy: blockedBy.map((b) => ({ id: b.id, ref: `${b.slug}#${b.number}` })),
    created: r.created,
    updated: r.updated,
    url: `${PUBLIC_URL}/${r.slug}/${r.number}`,
  }
}

function eventView(r: postgres.Row) {
  const data = (
    typeof r.event_data === 'string' ? JSON.parse(r.event_data) : r.event_data
  ) as Record<string, unknown>
  return {
    id: r.event_id,
    kind: r.event_kind,
    by: r.event_by,
    user: r.event_user_id ?? null,
    app: r.event_app ?? null,
    created: r.event_created,
    ...data,
  }
}

/** A ticket's change and its history events in one statement, the ticket read back (store/ticket-writes.ts, changeTicket). */
async function change(
  q: Q,
  id: string,
  set: Record<string, unknown>,
  events: { kind: string; data: unknown }[],
  user: { id: string; name: string },
  now: number,
  ifMember?: string,
) {
  const member =
    ifMember === undefined
      ? q`true`
      : q`exists (select 1 from members m where m.project_id = tickets.project_id and m.user_id = ${ifMember})`
  const view = viewOf(q)
  const rows = await q`
    with t as (
      update tickets set ${q(set as never)} where id = ${id} and ${member}
      returning *
    ), e as (
      insert into ticket_events (ticket_id, kind, user_id, by, app, data, created)
      select t.id, n.e->>'kind', ${user.id}, ${user.name}, ${null}, n.e->'data', ${now}
      from t, jsonb_array_elements(${q.json(events as never)}::jsonb) with ordinality as n(e, i)
      order by n.i
      returning id, kind, user_id, by, app, data, created
    )
    select ${view.columns}, e.id as event_id, e.kind as event_kind, e.user_id as event_user_id, e.by as event_by,
      e.app as event_app, e.data as event_data, e.created as event_created
    from t ${view.joins} cross join e
    order by e.id`
  return { ticket: ticketView(rows[0]!), events: rows.map(eventView) }
}

/** Live events and their NOTIFY in one statement, unsent (store/outbox.ts, emitAll). */
function emitAll(tx: Q, events: LiveEvent[]) {
  return tx`
    with stored as (
      insert into events (project_id, name, args, created)
      select e->>'project', e->>'name', e->'args', (e->>'created')::bigint
      from jsonb_array_elements(${tx.json(events as never)}::jsonb) with ordinality as n(e, i)
      order by n.i)
    select pg_notify(${'tickets_events'}, '')`
}

/** The token's user (src/tickets/credentials.ts byToken; its once-a-minute `last_used` write is left out). */
async function caller(req: IncomingMessage) {
  const secret = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1] ?? ''
  const [row] = await sql`
    select t.id as token_id, t.last_used, u.id, u.name
    from tokens t join users u on u.id = t.user_id
    where t.hash = ${createHash('sha256').update(secret).digest('hex')}`
  return { id: row!.id as string, name: row!.name as string }
}

/** The id and project of a ticket by project and number (store/tickets.ts, locateTicket). */
const locate = async (slug: string, number: number) =>
  (
    await sql`select id, project_id from tickets where number = ${number} and project_id = (select project_id from project_names where name = ${slug})`
  )[0]!

async function create(
  req: IncomingMessage,
  slug: string,
  body: { subject: string; summary?: string },
) {
  const user = await caller(req)
  const [p] = await sql`
    select p.id, p.slug, p.title, p.description, p.created
    from project_names n join projects p on p.id = n.project_id
    where n.name = ${slug}`
  const projectId = p!.id as string
  const now = Date.now()
  const { ticket } = await transaction(
    sql,
    async (tx) => {
      const member = tx`exists (select 1 from members m where m.project_id = ${projectId} and m.user_id = ${user.id})`
      const view = viewOf(tx)
      const [row] = await tx`
    with counter as (
      update projects set next_number = next_number + 1 where id = ${projectId} and ${member}
      returning next_number - 1 as number
    ), t as (
      insert into tickets (project_id, number, subject, summary, source, assignee_id, author_id, created, updated)
      select ${projectId}, counter.number, ${body.subject}, ${body.summary ?? ''}, ${''}, ${null}, ${user.id}, ${now}, ${now}
      from counter
      returning *
    )
    select ${view.columns} from t ${view.joins}`
      const made = ticketView(row!)
      return {
        ticket: made,
        events: [{ project: projectId, name: 'ticketCreated', args: [made], created: Date.now() }],
      }
    },
    (tx, done) => emitAll(tx, done.events),
  )
  return [201, { ticket, existed: false }] as const
}

async function comment(req: IncomingMessage, slug: string, number: number, body: { text: string }) {
  const user = await caller(req)
  const found = await locate(slug, number)
  const now = Date.now()
  const { answer } = await transaction(
    sql,
    async (tx) => {
      const {
        ticket,
        events: [event],
      } = await change(
        tx,
        found.id as string,
        { updated: now },
        [{ kind: 'comment', data: { text: body.text } }],
        user,
        now,
        user.id,
      )
      const events: LiveEvent[] = [
        {
          project: found.project_id as string,
          name: 'ticketEvent',
          args: [found.id, event, ticket],
          created: Date.now(),
        },
      ]
      return { answer: { ticket, event }, events }
    },
    (tx, done) => emitAll(tx, done.events),
  )
  return [201, answer] as const
}

async function changeState(
  req: IncomingMessage,
  slug: string,
  number: number,
  body: { state: string; text?: string },
) {
  const user = await caller(req)
  const found = await locate(slug, number)
  const now = Date.now()
  const { answer } = await transaction(
    sql,
    async (tx) => {
      const [t] = await tx`
    select t.project_id, t.state, t.assignee_id, t.author_id, t.parent_id, t.subject, t.summary,
      m.role, a.name as assignee_name, au.name as author_user_name
    from tickets t
    left join members m on m.project_id = t.project_id and m.user_id = ${user.id}
    left join users a on a.id = t.assignee_id
    left join users au on au.id = t.author_id
    where t.id = ${found.id as string}
    for no key update of t`
      const projectId = t!.project_id as string
      let assignTo: { id: string; name: string } | undefined
      if (body.state === 'doing' && t!.assignee_id === null) assignTo = user
      if (
        body.state === 'review' &&
        t!.assignee_id !== null &&
        t!.author_id !== null &&
        t!.assignee_id !== t!.author_id
      )
        assignTo = { id: t!.author_id as string, name: t!.author_user_name as string }
      const data: Record<string, unknown> = { from: t!.state, to: body.state }
      if (body.text) data.text = body.text
      const set: Record<string, unknown> = {
        state: body.state,
        updated: now,
        ...(assignTo ? { assignee_id: assignTo.id } : {}),
      }
      const from = t!.assignee_id
        ? { id: t!.assignee_id as string, name: t!.assignee_name as string }
        : null
      const events = [
        { kind: 'state', data },
        ...(assignTo ? [{ kind: 'assign', data: { from, to: assignTo } }] : []),
      ]
      const {
        ticket,
        events: [event, assignEvent],
      } = await change(tx, found.id as string, set, events, user, now)
      const seeds = tx([found.id as string])
      const view = viewOf(tx)
      const related = (
        await tx`
    select ${view.columns}
    from tickets t ${view.joins}
    where t.id in (
      select id from tickets where id in ${seeds}
      union select parent_id from tickets where id in ${seeds}
      union select id from tickets where parent_id in ${seeds}
      union select blocker_id from blockers where ticket_id in ${seeds}
      union select ticket_id from blockers where blocker_id in ${seeds})
    order by t.project_id, t.number`
      ).map(ticketView)
      const at = Date.now()
      const live: LiveEvent[] = [
        { project: projectId, name: 'ticketEvent', args: [found.id, event, ticket], created: at },
        ...(assignEvent
          ? [
              {
                project: projectId,
                name: 'ticketEvent',
                args: [found.id, assignEvent, ticket],
                created: at,
              },
            ]
          : []),
        { project: projectId, name: 'ticketsRelated', args: [related], created: at },
      ]
      return {
        answer: assignEvent ? { ticket, event, assignEvent } : { ticket, event },
        events: live,
      }
    },
    (tx, done) => emitAll(tx, done.events),
  )
  return [201, answer] as const
}

async function saveNote(
  req: IncomingMessage,
  input: { id: string; local: string; text: string; base: number; at: number },
) {
  const user = cookies.get(req.headers.cookie ?? '')!
  const [row] = await sql<{ edited: number }[]>`
    with clock as (
      insert into note_clocks (user_id, last_edited) values (${user}, ${Date.now()})
      on conflict (user_id) do update set last_edited = greatest(excluded.last_edited, note_clocks.last_edited + 1)
      returning last_edited
    ), saved as (
      insert into notes (user_id, id, text, created, edited, gone)
      select ${user}, ${input.id}, ${input.text}, last_edited, last_edited, false from clock
      on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited, gone = false
      where notes.gone or (notes.edited = ${input.base} and notes.text <> excluded.text)
      returning edited
    ), revision as (
      insert into note_revisions (user_id, note_id, edited, text, at, local)
      select ${user}, ${input.id}, edited, ${input.text}, ${input.at}, ${input.local} from saved
    )
    select edited from saved`
  return [200, { id: input.id, edited: row!.edited, text: input.text }] as const
}

async function route(req: IncomingMessage, body: unknown): Promise<readonly [number, unknown]> {
  const path = req.url ?? ''
  if (path === '/api/notes') return saveNote(req, body as never)
  const m = /^\/api\/projects\/([^/]+)\/tickets(?:\/(\d+)\/(comments|state))?$/.exec(path)
  if (!m) return [404, { error: 'not found' }]
  if (!m[2]) return create(req, m[1]!, body as never)
  return m[3] === 'comments'
    ? comment(req, m[1]!, Number(m[2]), body as never)
    : changeState(req, m[1]!, Number(m[2]), body as never)
}

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    route(req, JSON.parse(Buffer.concat(chunks).toString('utf8'))).then(
      ([status, value]) => {
        const text = JSON.stringify(value)
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        })
        res.end(text)
      },
      (err: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(err.message)
      },
    )
  })
})
server.listen(0, '127.0.0.1', () =>
  console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`),
)
process.on('SIGTERM', () => void sql.end({ timeout: 2 }).then(() => process.exit(0)))
