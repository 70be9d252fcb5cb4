/**
 * The importer's statements (src/tickets/importer/import.ts): a whole project's tickets, their
 * comments and relations written in the importer's one transaction. Imported tickets keep their
 * old global number, their author's name when the author never signed in here, and their times.
 */
import type { Query } from '../../db/client.ts'
import type { State } from '../rules/states.ts'

/** An imported ticket as it is written. */
export interface ImportedRow {
  projectId: string
  oldNumber: number
  subject: string
  summary: string
  source: string
  state: State
  assigneeId: string | null
  /** The author's user, or null with `authorName` for someone who never signed in here. */
  authorId: string | null
  authorName: string | null
  created: number
}

/** The project a name (slug, old slug or id) names, by the names table alone; null when none. */
async function projectIdByName(q: Query, name: string): Promise<string | null> {
  const [row] = await q<{ project_id: string }[]>`select project_id from project_names where name = ${name}`
  return row?.project_id ?? null
}

/** Locks the project's row until the transaction ends: its numbers are the importer's. */
async function lockProject(q: Query, projectId: string): Promise<void> {
  await q`select id from projects where id = ${projectId} for update`
}

/** The ticket that has an old number, and its project; null when none has. */
async function byOldNumber(q: Query, oldNumber: number): Promise<{ id: string; projectId: string } | null> {
  const [row] = await q<{ id: string; project_id: string }[]>`select id, project_id from tickets where old_number = ${oldNumber}`
  return row ? { id: row.id, projectId: row.project_id } : null
}

/** Inserts an imported ticket with the project's next number; answers its id. */
async function insertImported(q: Query, t: ImportedRow): Promise<string> {
  const [row] = await q<{ id: string }[]>`
    with counter as (
      update projects set next_number = next_number + 1 where id = ${t.projectId}
      returning next_number - 1 as number
    )
    insert into tickets (project_id, number, old_number, subject, summary, source, state, assignee_id, author_id, author_name, created, updated)
    select ${t.projectId}, counter.number, ${t.oldNumber}, ${t.subject}, ${t.summary}, ${t.source}, ${t.state},
      ${t.assigneeId}, ${t.authorId}, ${t.authorName}, ${t.created}, ${t.created}
    from counter
    returning id`
  return row!.id
}

/** Adds an imported comment to a ticket's history. */
async function insertComment(q: Query, ticketId: string, by: { id: string | null; name: string }, text: string, created: number): Promise<void> {
  await q`
    insert into ticket_events (ticket_id, kind, user_id, by, data, created)
    values (${ticketId}, 'comment', ${by.id}, ${by.name}, ${q.json({ text })}, ${created})`
}

async function setParent(q: Query, ticketId: string, parentId: string): Promise<void> {
  await q`update tickets set parent_id = ${parentId} where id = ${ticketId}`
}

/** Records a blocker; one already recorded stays (a file imported again). */
async function addBlocker(q: Query, ticketId: string, blockerId: string): Promise<void> {
  await q`insert into blockers (ticket_id, blocker_id) values (${ticketId}, ${blockerId}) on conflict do nothing`
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

/** The importer's statements on `q` (its transaction). */
export function importTable(q: Query) {
  return {
    projectIdByName: (name: string) => projectIdByName(q, name),
    lockProject: (projectId: string) => lockProject(q, projectId),
    byOldNumber: (oldNumber: number) => byOldNumber(q, oldNumber),
    insert: (t: ImportedRow) => insertImported(q, t),
    insertComment: (ticketId: string, by: { id: string | null; name: string }, text: string, created: number) => insertComment(q, ticketId, by, text, created),
    setParent: (ticketId: string, parentId: string) => setParent(q, ticketId, parentId),
    addBlocker: (ticketId: string, blockerId: string) => addBlocker(q, ticketId, blockerId),
    hasParentCycle: (projectId: string) => hasParentCycle(q, projectId),
  }
}
