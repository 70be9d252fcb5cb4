/**
 * The hot queries of the measured routes, as the services send them (copied from src/tickets
 * and src/notes, with their parameters as `$n`), for `EXPLAIN (ANALYZE, BUFFERS)` at the
 * largest size. Writes are explained inside a transaction that is rolled back.
 */
import type { Sql } from '../../src/db/client.ts'
import { hashSecret } from '../../src/base/random.ts'
import { projectId, userId } from './fill.ts'

// src/tickets/store/ticket-row.ts viewOf: one shape for every ticket read, from `t` (the tickets
// table, or the rows a write returns).
const VIEW_COLUMNS = `t.id, t.number, t.old_number, t.project_id, p.slug, t.subject, t.summary, t.source, t.state,
  t.assignee_id, a.name as assignee_name, t.author_id, coalesce(u.name, t.author_name) as author_name,
  t.parent_id, pt.number as parent_number, pp.slug as parent_slug,
  (select coalesce(json_agg(json_build_object('id', b.id, 'slug', bp.slug, 'number', b.number) order by bp.slug, b.number), '[]')
    from blockers x join tickets b on b.id = x.blocker_id join projects bp on bp.id = b.project_id
    where x.ticket_id = t.id) as blocked_by,
  t.created, t.updated`
const VIEW_JOINS = `join projects p on p.id = t.project_id
left join users a on a.id = t.assignee_id
left join users u on u.id = t.author_id
left join tickets pt on pt.id = t.parent_id
left join projects pp on pp.id = pt.project_id`

// src/tickets/store/ticket-row.ts selectTickets.
const selectTickets = (where: string, order = 't.created desc, t.number desc') => `
select ${VIEW_COLUMNS}
from tickets t
${VIEW_JOINS}
where ${where}
order by ${order}`

interface Hot {
  name: string
  /** The routes that send it. */
  routes: string
  query: string
  params: unknown[]
  write?: boolean
}

export interface Explained {
  name: string
  routes: string
  query: string
  plan: string
}

/** Explains every hot query with values from the filled data. */
export async function explainAll(
  sql: Sql,
  v: { token: string; inboxUser: string; listerUser: string; since: number },
): Promise<Explained[]> {
  const p3 = projectId(3)
  const [t] = await sql`select id from tickets where project_id = ${p3} and number = 40`
  const ticket = t!.id as string
  const [s] =
    await sql`select id from sessions where service = 'notes' and user_id = ${v.listerUser}`
  const [top] = await sql`select max(seq) as seq from events`
  const now = Date.now()
  const hot: Hot[] = [
    {
      name: 'token lookup',
      routes: 'every request with a user token',
      query:
        'select t.id as token_id, t.last_used, u.id, u.name from tokens t join users u on u.id = t.user_id where t.hash = $1',
      params: [hashSecret(v.token)],
    },
    {
      name: 'project by name',
      routes: 'create, lists',
      query:
        'select p.id, p.slug, p.title, p.description, p.created from project_names n join projects p on p.id = n.project_id where n.name = $1',
      params: ['project-3'],
    },
    {
      name: 'ticket by project and number',
      routes: 'single ticket',
      query: selectTickets(
        't.number = $1 and t.project_id = (select project_id from project_names where name = $2)',
      ),
      params: [40, 'project-3'],
    },
    {
      name: 'ticket history',
      routes: 'single ticket',
      query:
        'select id, kind, user_id, by, app, data, created from ticket_events where ticket_id = $1 order by id',
      params: [ticket],
    },
    {
      name: 'locate the ticket',
      routes: 'comment, state change (the 404 before the transaction)',
      query:
        'select id, project_id from tickets where number = $1 and project_id = (select project_id from project_names where name = $2)',
      params: [40, 'project-3'],
    },
    {
      name: 'insert the ticket (one statement)',
      routes: 'create',
      query: `with counter as (
  update projects set next_number = next_number + 1 where id = $1 and exists (select 1 from members m where m.project_id = $1 and m.user_id = $2)
  returning next_number - 1 as number
), t as (
  insert into tickets (project_id, number, subject, summary, source, assignee_id, author_id, created, updated)
  select $1, counter.number, $3, $4, $5, $6, $2, $7, $7
  from counter
  returning *
)
select ${VIEW_COLUMNS} from t ${VIEW_JOINS}`,
      params: [p3, userId(1), 'A subject', 'A summary', '', null, now],
      write: true,
    },
    {
      name: 'lock the project with the role',
      routes: 'create with a source or an assignee, member changes',
      query:
        'select m.role from projects p left join members m on m.project_id = p.id and m.user_id = $2 where p.id = $1 for no key update of p',
      params: [p3, userId(1)],
      write: true,
    },
    {
      name: 'ticket by id',
      routes: 'single ticket by id, relations',
      query: selectTickets('t.id = $1'),
      params: [ticket],
    },
    {
      name: 'lock the ticket with the role',
      routes: 'state change, assign, edit',
      query: `select t.project_id, t.state, t.assignee_id, t.author_id, t.parent_id, t.subject, t.summary,
  m.role, a.name as assignee_name, au.name as author_user_name
from tickets t
left join members m on m.project_id = t.project_id and m.user_id = $2
left join users a on a.id = t.assignee_id
left join users au on au.id = t.author_id
where t.id = $1
for no key update of t`,
      params: [ticket, userId(1)],
      write: true,
    },
    {
      name: 'change the ticket (one statement)',
      routes: 'comment (as here, only for a member), state change',
      query: `with t as (
  update tickets set updated = $1 where id = $2 and exists (select 1 from members m where m.project_id = tickets.project_id and m.user_id = $3)
  returning *
), e as (
  insert into ticket_events (ticket_id, kind, user_id, by, app, data, created)
  select t.id, n.e->>'kind', $3, $4, $5, n.e->'data', $1
  from t, jsonb_array_elements($6::jsonb) with ordinality as n(e, i)
  order by n.i
  returning id, kind, user_id, by, app, data, created
)
select ${VIEW_COLUMNS}, e.id as event_id, e.kind as event_kind, e.user_id as event_user_id, e.by as event_by,
  e.app as event_app, e.data as event_data, e.created as event_created
from t ${VIEW_JOINS} cross join e
order by e.id`,
      params: [
        now,
        ticket,
        userId(1),
        'User 1',
        null,
        [{ kind: 'comment', data: { text: 'hello' } }],
      ],
      write: true,
    },
    {
      name: 'related views',
      routes: 'state change',
      query: selectTickets(
        `t.id in (
  select id from tickets where id in ($1)
  union select parent_id from tickets where id in ($1)
  union select id from tickets where parent_id in ($1)
  union select blocker_id from blockers where ticket_id in ($1)
  union select ticket_id from blockers where blocker_id in ($1))`,
        't.project_id, t.number',
      ),
      params: [ticket],
    },
    {
      name: 'emit the live events',
      routes: "create, comment, state change (all of a write's events)",
      query: `with stored as (
  insert into events (project_id, name, args, created)
  select e->>'project', e->>'name', e->'args', (e->>'created')::bigint
  from jsonb_array_elements($1::jsonb) with ordinality as n(e, i)
  order by n.i)
select pg_notify('tickets_events', '')`,
      params: [
        [{ project: p3, name: 'ticketEvent', args: [ticket, { kind: 'comment' }], created: now }],
      ],
      write: true,
    },
    {
      name: 'project first page',
      routes: "the project's first page (?limit=25)",
      query: selectTickets(
        "t.project_id = $1 and t.state in ('open', 'doing', 'review')",
        't.created desc, t.number desc, t.id desc limit 26',
      ),
      params: [projectId(2)],
    },
    {
      name: 'search',
      routes: 'search ?q=needs state:review (its first page of 10)',
      query: selectTickets(
        "t.project_id = $1 and t.state = 'review' and t.search @@ to_tsquery('simple', $2)",
        't.created desc, t.number desc, t.id desc limit 11',
      ),
      params: [projectId(2), "('needs' | 'needs':*)"],
    },
    {
      name: 'project list',
      routes: "the project's list (whole)",
      query: selectTickets("t.project_id = $1 and t.state in ('open', 'doing', 'review')"),
      params: [projectId(2)],
    },
    {
      name: 'inbox pending',
      routes: 'inbox (whole)',
      query: selectTickets(
        "t.assignee_id = $1 and t.state in ('open', 'doing')",
        't.updated desc, t.created desc',
      ),
      params: [v.inboxUser],
    },
    {
      name: 'inbox review',
      routes: 'inbox (whole)',
      query: selectTickets(
        "t.assignee_id = $1 and t.state = 'review'",
        't.updated desc, t.created desc',
      ),
      params: [v.inboxUser],
    },
    {
      name: 'live read',
      routes: '/api/live',
      query: `select s.pruned_through as pruned,
       greatest(s.pruned_through, (select max(seq) from events)) as top,
       e.seq, e.id, e.name, e.args, e.project_id
from live_state s
left join lateral (
  select seq, id, name, args, project_id from events
  where seq > $1 order by seq limit 500
) e on true
order by e.seq`,
      params: [(top!.seq as number) - 3],
    },
    {
      name: 'live cursor',
      routes: '/api/live without a cursor',
      query:
        'select greatest(pruned_through, (select max(seq) from events)) as top from live_state',
      params: [],
    },
    {
      name: 'session load',
      routes: 'every request with a session cookie',
      query: 'select user_id, data from sessions where id = $1 and service = $2 and expires > $3',
      params: [s?.id ?? 'none', 'notes', now],
    },
    {
      name: 'note save (one statement)',
      routes: 'note save',
      query: `with clock as (
  insert into note_clocks (user_id, last_edited) values ($1, $2)
  on conflict (user_id) do update set last_edited = greatest(excluded.last_edited, note_clocks.last_edited + 1)
  returning last_edited
), saved as (
  insert into notes (user_id, id, text, created, edited, gone)
  select $1, $3, $4, last_edited, last_edited, false from clock
  on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited, gone = false
  where notes.gone or (notes.edited = $5 and notes.text <> excluded.text)
  returning edited
), revision as (
  insert into note_revisions (user_id, note_id, edited, text, at, local)
  select $1, $3, edited, $4, $6, $7 from saved
)
select edited from saved`,
      params: [v.listerUser, now, 'note-explained', 'A new note.', 0, now, 'bench'],
      write: true,
    },
    {
      name: 'note list since',
      routes: 'note list ?since=',
      query:
        'select id, edited, gone from notes where user_id = $1 and edited > $2 order by edited',
      params: [v.listerUser, v.since],
    },
  ]
  const out: Explained[] = []
  for (const h of hot) {
    const explain = `explain (analyze, buffers) ${h.query}`
    let rows: { 'QUERY PLAN': string }[] = []
    if (h.write) {
      await sql
        .begin(async (tx) => {
          rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(explain, h.params as never[])
          throw new RolledBack()
        })
        .catch((err) => {
          if (!(err instanceof RolledBack)) throw err
        })
    } else rows = await sql.unsafe<{ 'QUERY PLAN': string }[]>(explain, h.params as never[])
    out.push({
      name: `${h.name} (${h.routes})`,
      routes: h.routes,
      query: h.query.trim(),
      plan: rows.map((r) => r['QUERY PLAN']).join('\n'),
    })
  }
  return out
}

class RolledBack extends Error {}
