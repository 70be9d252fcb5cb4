/**
 * Bulk data for the growth bench, written with `insert ... select generate_series` rather than
 * through the API, and consistent with the schema and the services' rules:
 *
 * - tickets: 20 projects (`p00000000001`... , slugs `project-1`...), 200 users who are members of
 *   every project, tickets spread evenly over the projects and numbered on from each project's
 *   `next_number` (which moves on), every tenth with a parent, every twentieth blocked by
 *   another, ten history events each (comments, state changes, assignments, edits), and one
 *   live event each in the outbox with its `seq`;
 * - notes: 1,000 users (`nuser-0001`...) with the notes spread evenly, each note's `edited`
 *   above its user's clock (which moves on), a revision for every note, one in fifty a tombstone.
 *
 * `fillTickets(sql, from, to)` adds tickets `from + 1` to `to`; the sizes grow by adding. With
 * `projects`, the tickets go to the first `projects` projects only (1: one project holds them all).
 */
import type { Sql } from '../../src/db/client.ts'

export const PROJECTS = 20
export const TICKET_USERS = 200
export const NOTE_USERS = 1_000
const T0 = 1_600_000_000_000

export const userId = (n: number) => `u${String(n).padStart(11, '0')}`
export const projectId = (n: number) => `p${String(n).padStart(11, '0')}`
export const noteUser = (n: number) => `nuser-${String(n).padStart(4, '0')}`

/** Users, projects, their names and members: once. */
export async function fillBase(sql: Sql): Promise<void> {
  await sql`
    insert into users (id, idp_id, name, email, created)
    select 'u' || lpad(n::text, 11, '0'), 'idp-' || n, 'User ' || n, 'user' || n || '@example.org', ${T0}
    from generate_series(1, ${TICKET_USERS}) n`
  await sql`
    insert into projects (id, slug, title, description, created)
    select 'p' || lpad(n::text, 11, '0'), 'project-' || n, 'Project ' || n, 'The project number ' || n, ${T0}
    from generate_series(1, ${PROJECTS}) n`
  await sql`
    insert into project_names (name, project_id)
    select id, id from projects union all select slug, id from projects`
  await sql`
    insert into members (project_id, user_id, role)
    select p.id, u.id, case when u.id = 'u00000000001' then 'admin' when u.idp_id < 'idp-5' then 'edit' else 'use' end
    from projects p, users u`
}

/** Adds tickets `from + 1` to `to` with their relations, history and live events, spread over the first `projects` projects. */
export async function fillTickets(
  sql: Sql,
  from: number,
  to: number,
  projects = PROJECTS,
): Promise<void> {
  const lo = T0 + (from + 1) * 60_000
  const hi = T0 + to * 60_000
  // The search index takes each new ticket straight into its tree (sql/0012), the fill's costliest
  // part at a million tickets; for the fill it gathers them in its pending list and takes them in
  // sorted, at once, as the index did before 0012.
  await sql`alter index tickets_search set (fastupdate = on)`
  await sql`
    insert into tickets (project_id, number, subject, summary, state, assignee_id, author_id, created, updated)
    select p.id, p.next_number + (s.i - 1 - ${from}) / ${projects},
      'Ticket ' || s.i || ' about something that needs doing',
      'A summary of ticket ' || s.i || ', long enough to look like one: steps, expected, seen.',
      (array['open', 'doing', 'review', 'done', 'dropped'])[1 + (s.i / 7) % 5],
      case when s.i % 3 <> 0 then 'u' || lpad(((s.i * 7) % ${TICKET_USERS} + 1)::text, 11, '0') end,
      'u' || lpad((s.i % ${TICKET_USERS} + 1)::text, 11, '0'),
      ${T0}::bigint + s.i::bigint * 60000, ${T0}::bigint + s.i::bigint * 60000 + (s.i % 7) * 1000
    from generate_series(${from + 1}::int, ${to}::int) s(i)
    join projects p on p.id = 'p' || lpad(((s.i - 1) % ${projects} + 1)::text, 11, '0')`
  await sql`select gin_clean_pending_list('tickets_search'::regclass)`
  await sql`alter index tickets_search set (fastupdate = off)`
  await sql`update projects set next_number = next_number + ${(to - from) / projects} where id <= ${projectId(projects)}`
  await sql`
    update tickets c set parent_id = p.id
    from tickets p
    where c.created between ${lo} and ${hi} and c.number % 10 = 0
      and p.project_id = c.project_id and p.number = c.number - 1`
  await sql`
    insert into blockers (ticket_id, blocker_id)
    select c.id, b.id from tickets c
    join tickets b on b.project_id = c.project_id and b.number = c.number - 2
    where c.created between ${lo} and ${hi} and c.number % 20 = 5`
  // Ten rows a ticket, each joined from a ticket and a user that exist: the foreign keys' checks,
  // two lookups a row, would only find them again. As a replica applies rows, without them (and
  // without the lists' version trigger, which the statements around this one move anyway).
  await sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`
    await tx`
    insert into ticket_events (ticket_id, kind, user_id, by, data, created)
    select t.id, k.kind, u.id, u.name,
      case k.kind
        when 'comment' then jsonb_build_object('text', 'Comment ' || j || ' on this ticket: it still happens on the second try.')
        when 'state' then jsonb_build_object('from', 'open', 'to', 'doing')
        when 'assign' then jsonb_build_object('from', null, 'to', jsonb_build_object('id', u.id, 'name', u.name))
        else jsonb_build_object('subject', jsonb_build_object('from', 'An older subject', 'to', t.subject))
      end,
      t.created + j * 1000
    from tickets t
    join users u on u.id = t.author_id
    cross join generate_series(1, 10) j
    cross join lateral (select (array['comment', 'state', 'assign', 'comment', 'edit'])[1 + j % 5] as kind) k
    where t.created between ${lo} and ${hi}`
  })
  // The outbox's `seq` is normally drawn by a trigger at commit, one row at a time; drawn here
  // in the insert, in id order, with the trigger off for the bulk insert.
  await sql`alter table events disable trigger events_sequence`
  try {
    await sql`
      insert into events (project_id, name, args, created, seq)
      select t.project_id, 'ticketCreated', jsonb_build_array(jsonb_build_object('id', t.id, 'subject', t.subject)),
        ${Date.now()}, nextval('events_seq')
      from tickets t where t.created between ${lo} and ${hi} order by t.created`
  } finally {
    await sql`alter table events enable trigger events_sequence`
  }
  // A server that had written this history would have fanned its notifications out long ago:
  // left to the notify worker, they would be made while the benches time the pages (a million
  // rows at a million tickets).
  await sql`update notify_state set fanned_through = (select coalesce(max(seq), 0) from events)`
  await sql`analyze`
}

/** Adds notes `from + 1` to `to` (spread over the users) with their revisions, and moves the clocks on. */
export async function fillNotes(sql: Sql, from: number, to: number): Promise<void> {
  await sql`
    with s as (
      select n, 'nuser-' || lpad(((n - 1) % ${NOTE_USERS} + 1)::text, 4, '0') as user_id,
        (n - 1 - ${from}) / ${NOTE_USERS} + 1 as k
      from generate_series(${from + 1}::int, ${to}::int) n
    ), made as (
      insert into notes (user_id, id, text, created, edited, gone)
      select s.user_id, 'note-' || s.n,
        'Note ' || s.n || E'\nShopping list\n- milk\n- bread\n- eggs\nCall the plumber about the kitchen tap.\n',
        coalesce(c.last_edited, ${T0}) + s.k, coalesce(c.last_edited, ${T0}) + s.k, s.n % 50 = 0
      from s left join note_clocks c on c.user_id = s.user_id
      returning user_id, id, text, edited
    )
    insert into note_revisions (user_id, note_id, edited, text, at, local)
    select user_id, id, edited, text, edited, 'fill' from made`
  await sql`
    insert into note_clocks (user_id, last_edited)
    select user_id, max(edited) from notes where user_id like 'nuser-%' group by user_id
    on conflict (user_id) do update set last_edited = greatest(note_clocks.last_edited, excluded.last_edited)`
  await sql`analyze`
}

/** Labels a project gets from {@link fillOrganise}: `bug` and then `label-2` to `label-50`. */
export const FILL_LABELS = 50
/** Milestones a project gets: `v1.0` and then `v1.1` to `v1.19`. */
export const FILL_MILESTONES = 20

/**
 * Labels, milestones and due days for a project's tickets (issue 38): {@link FILL_LABELS} labels
 * (`bug`, `label-2`...), each ticket with one to three of them (`bug` on one in fifty, like any
 * other); {@link FILL_MILESTONES} milestones, three tickets in ten in one; a due day on one
 * ticket in four, spread over the sixty days before and after today, so some are overdue.
 */
export async function fillOrganise(sql: Sql, project: string): Promise<void> {
  await sql`
    insert into labels (project_id, name, color, description, created)
    select ${project}, case when n = 1 then 'bug' else 'label-' || n end,
      '#' || lpad(to_hex((n * 2654435) % 16777216), 6, '0'), '', ${T0}
    from generate_series(1, ${FILL_LABELS}) n`
  await sql`
    insert into milestones (project_id, title, due, description, closed, created)
    select ${project}, case when n = 1 then 'v1.0' else 'v1.' || (n - 1) end,
      current_date + n * 7, '', false, ${T0}
    from generate_series(1, ${FILL_MILESTONES}) n`
  await sql`
    insert into ticket_labels (ticket_id, label_id)
    select distinct t.id, l.id
    from tickets t
    cross join generate_series(0, 2) k
    cross join lateral (select (t.number + k * 17) % ${FILL_LABELS} + 1 as n) x
    join labels l on l.project_id = ${project}
      and l.name = case when x.n = 1 then 'bug' else 'label-' || x.n end
    where t.project_id = ${project} and (k = 0 or t.number % (k + 2) = 0)`
  await sql`
    update tickets t set milestone_id = m.id
    from milestones m
    where t.project_id = ${project} and t.number % 10 < 3 and m.project_id = ${project}
      and m.title = case when t.number % 20 = 0 then 'v1.0' else 'v1.' || (t.number % 20) end`
  await sql`
    update tickets set due = current_date + ((number * 37) % 121 - 60)
    where project_id = ${project} and number % 4 = 0`
  await sql`analyze`
}
