/**
 * The write-route baseline: a bare node:http server that parses the body with JSON.parse and
 * runs the same SQL statements, in the same order and transactions, as the ticket service does
 * for a ticket create, a comment and a state change (src/tickets/api/tickets.ts, api/changes.ts,
 * store/tickets.ts, auth.ts, store/outbox.ts) and the notes service for a note save (src/notes/store.ts,
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
import { connect, type Sql, type TransactionSql } from '../../src/db.ts'

type Q = Sql | TransactionSql
type Fragment = postgres.PendingQuery<postgres.Row[]>

const sql = connect(process.env.DATABASE_URL!)
const cookies = new Map(Object.entries(JSON.parse(process.env.BASELINE_COOKIES ?? '{}') as Record<string, string>))
const PUBLIC_URL = process.env.TICKETS_URL ?? 'http://localhost:0'

async function selectTickets(q: Q, where: Fragment, order?: Fragment) {
  const rows = await q`
    select t.id, t.number, t.old_number, t.project_id, p.slug, t.subject, t.summary, t.source, t.state,
      t.assignee_id, a.name as assignee_name, t.author_id, coalesce(u.name, t.author_name) as author_name,
      t.parent_id, pt.number as parent_number, pp.slug as parent_slug,
      (select coalesce(json_agg(json_build_object('id', b.id, 'slug', bp.slug, 'number', b.number) order by bp.slug, b.number), '[]')
        from blockers x join tickets b on b.id = x.blocker_id join projects bp on bp.id = b.project_id
        where x.ticket_id = t.id) as blocked_by,
      t.created, t.updated
    from tickets t
    join projects p on p.id = t.project_id
    left join users a on a.id = t.assignee_id
    left join users u on u.id = t.author_id
    left join tickets pt on pt.id = t.parent_id
    left join projects pp on pp.id = pt.project_id
    where ${where}
    order by ${order ?? q`t.created desc, t.number desc`}`
  return rows.map((r) => {
    const blockedBy = (typeof r.blocked_by === 'string' ? JSON.parse(r.blocked_by) : r.blocked_by) as { id: string; slug: string; number: number }[]
    return {
      id: r.id, ref: `${r.slug}#${r.number}`, number: r.number, oldNumber: r.old_number ?? null, project: r.project_id, slug: r.slug,
      subject: r.subject, summary: r.summary, source: r.source, state: r.state,
      assignee: r.assignee_id ? { id: r.assignee_id, name: r.assignee_name } : null,
      author: r.author_name ? { id: r.author_id ?? null, name: r.author_name } : null,
      parent: r.parent_id ? { id: r.parent_id, ref: `${r.parent_slug}#${r.parent_number}` } : null,
      blockedBy: blockedBy.map((b) => ({ id: b.id, ref: `${b.slug}#${b.number}` })),
      created: r.created, updated: r.updated, url: `${PUBLIC_URL}/${r.slug}/${r.number}`,
    }
  })
}

function eventView(r: postgres.Row) {
  const data = (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Record<string, unknown>
  return { id: r.id, kind: r.kind, by: r.by, user: r.user_id ?? null, app: r.app ?? null, created: r.created, ...data }
}

async function addEvent(q: Q, ticketId: string, kind: string, user: { id: string; name: string }, data: Record<string, unknown>, now: number) {
  const [row] = await q`
    insert into ticket_events (ticket_id, kind, user_id, by, app, data, created)
    values (${ticketId}, ${kind}, ${user.id}, ${user.name}, ${null}, ${q.json(data as never)}, ${now})
    returning id, kind, user_id, by, app, data, created`
  return eventView(row!)
}

async function emit(tx: TransactionSql, projectId: string, name: string, args: unknown[], at: number) {
  await tx`
    insert into events (project_id, name, args, created)
    values (${projectId}, ${name}, ${tx.json(args as never)}, ${at})`
  await tx`select pg_notify(${'tickets_events'}, '')`
}

/** The token's user (src/tickets/auth.ts byToken; its once-a-minute `last_used` write is left out). */
async function caller(req: IncomingMessage) {
  const secret = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1] ?? ''
  const [row] = await sql`
    select t.id as token_id, t.last_used, u.id, u.name
    from tokens t join users u on u.id = t.user_id
    where t.hash = ${createHash('sha256').update(secret).digest('hex')}`
  return { id: row!.id as string, name: row!.name as string }
}

const ticketByNumber = async (slug: string, number: number) => (await selectTickets(sql, sql`
    t.number = ${number} and t.project_id = (select project_id from project_names where name = ${slug})`))[0]!
const ticketById = async (q: Q, id: string) => (await selectTickets(q, q`t.id = ${id}`))[0]!
const roleOf = (q: Q, projectId: string, userId: string) => q`select role from members where project_id = ${projectId} and user_id = ${userId}`
const lockTicket = async (tx: TransactionSql, id: string) =>
  (await tx`select project_id, state, assignee_id, author_id, subject, summary from tickets where id = ${id} for update`)[0]!
async function userRef(tx: TransactionSql, id: string | null) {
  if (id === null) return null
  const [row] = await tx`select id, name from users where id = ${id}`
  return row ? { id: row.id as string, name: row.name as string } : null
}
async function touch(tx: TransactionSql, id: string, now: number) {
  await tx`update tickets set updated = ${now} where id = ${id}`
  return ticketById(tx, id)
}

async function create(req: IncomingMessage, slug: string, body: { subject: string; summary?: string }) {
  const user = await caller(req)
  const [p] = await sql`
    select p.id, p.slug, p.title, p.description, p.created
    from project_names n join projects p on p.id = n.project_id
    where n.name = ${slug}`
  const projectId = p!.id as string
  const now = Date.now()
  const ticket = await sql.begin(async (tx) => {
    await tx`select id from projects where id = ${projectId} for update`
    await roleOf(tx, projectId, user.id)
    const [counter] = await tx`update projects set next_number = next_number + 1 where id = ${projectId} returning next_number - 1 as number`
    const [row] = await tx`
      insert into tickets (project_id, number, subject, summary, source, assignee_id, author_id, created, updated)
      values (${projectId}, ${counter!.number as number}, ${body.subject}, ${body.summary ?? ''}, ${''},
        ${null}, ${user.id}, ${now}, ${now})
      returning id`
    const made = await ticketById(tx, row!.id as string)
    await emit(tx, projectId, 'ticketCreated', [made], Date.now())
    return made
  })
  return [201, { ticket, existed: false }] as const
}

async function comment(req: IncomingMessage, slug: string, number: number, body: { text: string }) {
  const user = await caller(req)
  const found = await ticketByNumber(slug, number)
  const now = Date.now()
  const answer = await sql.begin(async (tx) => {
    const t = await lockTicket(tx, found.id)
    await roleOf(tx, t.project_id as string, user.id)
    const event = await addEvent(tx, found.id, 'comment', user, { text: body.text }, now)
    const ticket = await touch(tx, found.id, now)
    await emit(tx, t.project_id as string, 'ticketEvent', [found.id, event, ticket], Date.now())
    return { ticket, event }
  })
  return [201, answer] as const
}

async function changeState(req: IncomingMessage, slug: string, number: number, body: { state: string; text?: string }) {
  const user = await caller(req)
  const found = await ticketByNumber(slug, number)
  const now = Date.now()
  const answer = await sql.begin(async (tx) => {
    const t = await lockTicket(tx, found.id)
    const projectId = t.project_id as string
    await roleOf(tx, projectId, user.id)
    let assignTo: string | null | undefined
    if (body.state === 'doing' && t.assignee_id === null) assignTo = user.id
    if (body.state === 'review' && t.assignee_id !== null && t.author_id !== null && t.assignee_id !== t.author_id) assignTo = t.author_id as string
    const data: Record<string, unknown> = { from: t.state, to: body.state }
    if (body.text) data.text = body.text
    await tx`update tickets set state = ${body.state} where id = ${found.id}`
    const event = await addEvent(tx, found.id, 'state', user, data, now)
    let assignEvent
    if (assignTo !== undefined) {
      const from = await userRef(tx, t.assignee_id as string | null)
      await tx`update tickets set assignee_id = ${assignTo} where id = ${found.id}`
      assignEvent = await addEvent(tx, found.id, 'assign', user, { from, to: await userRef(tx, assignTo) }, now)
    }
    const ticket = await touch(tx, found.id, now)
    await emit(tx, projectId, 'ticketEvent', [found.id, event, ticket], Date.now())
    if (assignEvent) await emit(tx, projectId, 'ticketEvent', [found.id, assignEvent, ticket], Date.now())
    const seeds = tx([found.id])
    const related = await selectTickets(tx, tx`
      t.id in ${seeds}
      or t.id in (select parent_id from tickets where id in ${seeds})
      or t.parent_id in ${seeds}
      or t.id in (select blocker_id from blockers where ticket_id in ${seeds})
      or t.id in (select ticket_id from blockers where blocker_id in ${seeds})`, tx`t.project_id, t.number`)
    await emit(tx, projectId, 'ticketsRelated', [related], Date.now())
    return assignEvent ? { ticket, event, assignEvent } : { ticket, event }
  })
  return [201, answer] as const
}

async function saveNote(req: IncomingMessage, input: { id: string; local: string; text: string; base: number; at: number }) {
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
  return m[3] === 'comments' ? comment(req, m[1]!, Number(m[2]), body as never) : changeState(req, m[1]!, Number(m[2]), body as never)
}

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    route(req, JSON.parse(Buffer.concat(chunks).toString('utf8'))).then(
      ([status, value]) => {
        const text = JSON.stringify(value)
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
        res.end(text)
      },
      (err: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(err.message)
      },
    )
  })
})
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`))
process.on('SIGTERM', () => void sql.end({ timeout: 2 }).then(() => process.exit(0)))
