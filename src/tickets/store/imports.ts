/**
 * The importer's statements (src/tickets/importer/import.ts), in its one transaction: tickets,
 * their comments and their relations by old number, a batch to a statement, so an import of N
 * tickets makes about N / batch statements and the rows kept per statement (sql/0024) are kept
 * once a batch. Imported tickets keep their old global number, their author's name when the
 * author never signed in here, and their times.
 *
 * Relations name old numbers that may come later in the file, so they wait in a temporary table
 * of the import's transaction until every ticket is in, and are then resolved in one statement
 * each.
 */
import type { Query } from '../../db/client.ts'
import type { State } from '../rules/states.ts'

export interface ImportedRow {
  /** The per-project number it gets. */
  number: number
  oldNumber: number
  subject: string
  summary: string
  source: string
  state: State
  assigneeId: string | null
  authorId: string | null
  /** The author's name when the author is not linked to a user. */
  authorName: string | null
  created: number
  comments: { userId: string | null; by: string; text: string; created: number }[]
  /** The ids of its labels ({@link ensureLabels}). */
  labelIds: string[]
  milestoneId: string | null
  /** `YYYY-MM-DD`, or null. */
  due: string | null
}

/** A relation named in the file: `at`'s parent or blocker is old number `target`. */
export interface ImportedLink {
  at: number
  target: number
  kind: 'parent' | 'blocker'
}

/** Inserts a batch of tickets of one project with their comments. */
async function insertImportedTickets(
  tx: Query,
  projectId: string,
  rows: ImportedRow[],
): Promise<void> {
  if (rows.length === 0) return
  const tickets = rows.map((t) => ({
    number: t.number,
    old_number: t.oldNumber,
    subject: t.subject,
    summary: t.summary,
    source: t.source,
    state: t.state,
    assignee_id: t.assigneeId,
    author_id: t.authorId,
    author_name: t.authorName,
    created: t.created,
    milestone_id: t.milestoneId,
    due: t.due,
  }))
  const labels = rows.flatMap((t) =>
    t.labelIds.map((id) => ({ old_number: t.oldNumber, label_id: id })),
  )
  const comments = rows
    .flatMap((t) =>
      t.comments.map((c) => ({
        old_number: t.oldNumber,
        user_id: c.userId,
        by: c.by,
        text: c.text,
        created: c.created,
      })),
    )
    .map((c, i) => ({ ...c, i }))
  await tx`
    insert into tickets (project_id, number, old_number, subject, summary, source, state, assignee_id, author_id, author_name, created, updated, milestone_id, due)
    select ${projectId}, r.number, r.old_number, r.subject, r.summary, r.source, r.state, r.assignee_id, r.author_id, r.author_name, r.created, r.created,
      r.milestone_id, r.due
    from json_to_recordset(${tx.json(tickets)}::json) as r(number integer, old_number integer, subject text, summary text, source text,
      state text, assignee_id text, author_id text, author_name text, created bigint, milestone_id bigint, due date)`
  if (labels.length > 0)
    await tx`
      insert into ticket_labels (ticket_id, label_id)
      select t.id, l.label_id
      from json_to_recordset(${tx.json(labels)}::json) as l(old_number integer, label_id bigint)
      join tickets t on t.old_number = l.old_number
      on conflict do nothing`
  if (comments.length === 0) return
  await tx`
    insert into ticket_events (ticket_id, kind, user_id, by, data, created)
    select t.id, 'comment', c.user_id, c.by, jsonb_build_object('text', c.text), c.created
    from json_to_recordset(${tx.json(comments)}::json) as c(old_number integer, user_id text, by text, text text, created bigint, i bigint)
    join tickets t on t.old_number = c.old_number
    order by c.i`
}

/** Which of `oldNumbers` are tickets already, and in which project. */
async function importedBefore(
  tx: Query,
  oldNumbers: number[],
): Promise<{ oldNumber: number; projectId: string }[]> {
  if (oldNumbers.length === 0) return []
  const rows = await tx<{ old_number: number; project_id: string }[]>`
    select old_number, project_id from tickets where old_number = any(${oldNumbers}::integer[]) order by old_number`
  return rows.map((r) => ({ oldNumber: r.old_number, projectId: r.project_id }))
}

/** Makes the table the import's relations wait in; it goes when the transaction ends. */
async function startImportLinks(tx: Query): Promise<void> {
  await tx`create temporary table import_links (seq bigint generated always as identity, at integer not null, target integer not null, parent boolean not null) on commit drop`
}

/** Keeps a batch of relations until {@link applyImportLinks}. */
async function keepImportLinks(tx: Query, links: ImportedLink[]): Promise<void> {
  if (links.length === 0) return
  const rows = links.map((l, i) => ({ at: l.at, target: l.target, parent: l.kind === 'parent', i }))
  await tx`
    insert into import_links (at, target, parent)
    select r.at, r.target, r.parent from json_to_recordset(${tx.json(rows)}::json) as r(at integer, target integer, parent boolean, i bigint)
    order by r.i`
}

/**
 * Sets the parents and adds the blockers the relations name. Answers the first relation, in the
 * file's order, whose old number is no ticket, and then writes nothing.
 */
async function applyImportLinks(tx: Query): Promise<{ at: number; target: number } | null> {
  // The statements below join the relations to every ticket the import wrote. The planner knows
  // the tickets by their last analysis, which may be of a table still empty (a fresh install, a
  // project just deleted): it then took the tickets for none, and joined each relation to a whole
  // scan of them (80,000 tickets: stopped after 8 minutes, against 5 s). Analysed now, the
  // import's own rows count; the relations' table is analysed by nobody else.
  await tx`analyze import_links`
  await tx`analyze tickets`
  const [unknown] = await tx<{ at: number; target: number }[]>`
    select l.at, l.target from import_links l
    where not exists (select from tickets t where t.old_number = l.target)
    order by l.seq limit 1`
  if (unknown) return { at: unknown.at, target: unknown.target }
  await tx`
    update tickets c set parent_id = p.id
    from import_links l join tickets p on p.old_number = l.target
    where l.parent and c.old_number = l.at`
  await tx`
    insert into blockers (ticket_id, blocker_id)
    select t.id, b.id from import_links l
    join tickets t on t.old_number = l.at
    join tickets b on b.old_number = l.target
    where not l.parent
    on conflict do nothing`
  return null
}

/** The project a name (slug, old slug or id) names, by the names table alone; null when none. */
async function projectIdByName(q: Query, name: string): Promise<string | null> {
  const [row] = await q<
    { project_id: string }[]
  >`select project_id from project_names where name = ${name}`
  return row?.project_id ?? null
}

/** Locks the project's row until the transaction ends: its numbers are the importer's. */
async function lockProject(q: Query, projectId: string): Promise<void> {
  await q`select id from projects where id = ${projectId} for update`
}

/** Moves the project's next number on by `n`; answers the first of the `n` numbers. */
async function takeNumbers(q: Query, projectId: string, n: number): Promise<number> {
  const [row] = await q<{ first: number }[]>`
    update projects set next_number = next_number + ${n} where id = ${projectId}
    returning next_number - ${n} as first`
  return row!.first
}

/** True when a ticket of the project is its own ancestor. */
async function hasParentCycle(q: Query, projectId: string): Promise<boolean> {
  const [cycle] = await q`
    with recursive up(id, start) as (
      select parent_id, id from tickets where project_id = ${projectId} and parent_id is not null
      union
      select t.parent_id, up.start from tickets t join up on t.id = up.id where t.parent_id is not null
    )
    select 1 from up where id = start limit 1`
  return cycle !== undefined
}

/** A label the file names: its name, and its colour and description when the file gives them. */
export interface ImportedLabel {
  name: string
  color: string
  description: string
}

/**
 * The project's labels of `labels` (by name, any case), made when the project lacks them; a
 * label it has keeps its colour and description. Answers each name, lower case, with its id.
 */
async function ensureLabels(
  q: Query,
  projectId: string,
  labels: ImportedLabel[],
  now: number,
): Promise<Map<string, string>> {
  if (labels.length > 0)
    await q`
      insert into labels (project_id, name, color, description, created)
      select ${projectId}, l.name, l.color, l.description, ${now}
      from json_to_recordset(${q.json(labels as never)}::json) as l(name text, color text, description text)
      on conflict (project_id, lower(name)) do nothing`
  const rows = await q<{ id: string; name: string }[]>`
    select id::text as id, lower(name) as name from labels where project_id = ${projectId}`
  return new Map(rows.map((r) => [r.name, r.id]))
}

/** A milestone the file names. */
export interface ImportedMilestone {
  title: string
  due: string | null
  description: string
  closed: boolean
}

/** As {@link ensureLabels}, for milestones by title. */
async function ensureMilestones(
  q: Query,
  projectId: string,
  milestones: ImportedMilestone[],
  now: number,
): Promise<Map<string, string>> {
  if (milestones.length > 0)
    await q`
      insert into milestones (project_id, title, due, description, closed, created)
      select ${projectId}, m.title, m.due, m.description, m.closed, ${now}
      from json_to_recordset(${q.json(milestones as never)}::json) as m(title text, due date, description text, closed boolean)
      on conflict (project_id, lower(title)) do nothing`
  const rows = await q<{ id: string; title: string }[]>`
    select id::text as id, lower(title) as title from milestones where project_id = ${projectId}`
  return new Map(rows.map((r) => [r.title, r.id]))
}

/** The importer's statements on `q` (its transaction). */
export function importTable(q: Query) {
  return {
    projectIdByName: (name: string) => projectIdByName(q, name),
    lockProject: (projectId: string) => lockProject(q, projectId),
    importedBefore: (oldNumbers: number[]) => importedBefore(q, oldNumbers),
    takeNumbers: (projectId: string, n: number) => takeNumbers(q, projectId, n),
    insertBatch: (projectId: string, rows: ImportedRow[]) =>
      insertImportedTickets(q, projectId, rows),
    startLinks: () => startImportLinks(q),
    keepLinks: (links: ImportedLink[]) => keepImportLinks(q, links),
    applyLinks: () => applyImportLinks(q),
    hasParentCycle: (projectId: string) => hasParentCycle(q, projectId),
    ensureLabels: (projectId: string, labels: ImportedLabel[], now: number) =>
      ensureLabels(q, projectId, labels, now),
    ensureMilestones: (projectId: string, milestones: ImportedMilestone[], now: number) =>
      ensureMilestones(q, projectId, milestones, now),
  }
}
