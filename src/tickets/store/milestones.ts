/**
 * The milestones aggregate: a project's `milestones` with their progress (how many of their
 * tickets are closed, done or dropped, of how many), the {@link Milestone} the API shows. A
 * title is unique in its project whatever its case (the index `milestones_title`); writes of one
 * project's milestones take {@link lockMilestones} first, as the labels' do.
 */
import type { Query } from '../../db/client.ts'
import type { Fragment } from './ticket-row.ts'

/** A milestone as the API shows it. */
export interface Milestone {
  title: string
  /** `YYYY-MM-DD`, or null. */
  due: string | null
  description: string
  state: 'open' | 'closed'
  /** Its tickets done or dropped, and all its tickets. */
  progress: { closed: number; total: number }
}

/** A milestone with the id the store knows it by. */
export interface StoredMilestone extends Milestone {
  id: string
}

/** A milestone as a picker offers it: no progress, so nothing is counted. */
export type MilestoneChoice = Pick<Milestone, 'title' | 'due' | 'state'>

/** What a write sets. */
export interface MilestoneFields {
  title: string
  due: string | null
  description: string
  closed: boolean
}

interface MilestoneRow {
  id: string
  title: string
  due: string | null
  description: string
  closed: boolean
  total: number
  done: number
}

const milestoneOf = (r: MilestoneRow): StoredMilestone => ({
  id: String(r.id),
  title: r.title,
  due: r.due ?? null,
  description: r.description,
  state: r.closed ? 'closed' : 'open',
  progress: { closed: r.done ?? 0, total: r.total ?? 0 },
})

/** The milestones of `where` (on `m`) with their progress: open first, the soonest due first, then by title. */
async function milestonesWhere(q: Query, where: Fragment): Promise<StoredMilestone[]> {
  // Summed from `milestone_counts` (sql/0038): a milestone's few rows of changes, kept by every
  // statement that writes tickets, whatever the number of its tickets.
  const rows = await q<MilestoneRow[]>`
    select m.id::text as id, m.title, to_char(m.due, 'YYYY-MM-DD') as due, m.description, m.closed,
      c.total, c.done
    from milestones m
    cross join lateral (
      select coalesce(sum(k.total), 0)::int as total, coalesce(sum(k.closed), 0)::int as done
      from milestone_counts k where k.milestone_id = m.id
    ) as c
    where ${where}
    order by m.closed, m.due nulls last, lower(m.title), m.title`
  return rows.map(milestoneOf)
}

/** Holds the project's milestone writes until the transaction ends. */
async function lockMilestones(q: Query, projectId: string): Promise<void> {
  await q`select pg_advisory_xact_lock(4711046, hashtext(${projectId}))`
}

async function insertMilestone(
  q: Query,
  projectId: string,
  m: MilestoneFields,
  now: number,
): Promise<string> {
  const [row] = await q<{ id: string }[]>`
    insert into milestones (project_id, title, due, description, closed, created)
    values (${projectId}, ${m.title}, ${m.due}, ${m.description}, ${m.closed}, ${now})
    returning id::text as id`
  return row!.id
}

async function updateMilestone(q: Query, id: string, m: MilestoneFields): Promise<void> {
  await q`
    update milestones set title = ${m.title}, due = ${m.due}, description = ${m.description}, closed = ${m.closed}
    where id = ${id}`
}

/** Deletes a milestone, leaving its tickets without one; answers the ids of those tickets. */
async function deleteMilestone(q: Query, id: string): Promise<string[]> {
  const rows = await q<{ id: string }[]>`select id from tickets where milestone_id = ${id}`
  await q`delete from milestones where id = ${id}`
  return rows.map((r) => r.id)
}

/** The project's milestones as the pickers offer them, in the list's order. */
async function choicesOf(q: Query, projectId: string): Promise<MilestoneChoice[]> {
  const rows = await q<{ title: string; due: string | null; closed: boolean }[]>`
    select m.title, to_char(m.due, 'YYYY-MM-DD') as due, m.closed from milestones m
    where m.project_id = ${projectId}
    order by m.closed, m.due nulls last, lower(m.title), m.title`
  return rows.map((r) => ({
    title: r.title,
    due: r.due ?? null,
    state: r.closed ? 'closed' : 'open',
  }))
}

/** The milestones table on `q`. */
export function milestoneTable(q: Query) {
  return {
    /** The project's milestones with their progress. */
    of: (projectId: string) => milestonesWhere(q, q`m.project_id = ${projectId}`),
    /** The project's milestones without their progress, for the pickers. */
    choices: (projectId: string) => choicesOf(q, projectId),
    /** The project's milestone of `title`, any case; null when it has none. */
    byTitle: async (projectId: string, title: string) =>
      (
        await milestonesWhere(
          q,
          q`m.project_id = ${projectId} and lower(m.title) = lower(${title})`,
        )
      )[0] ?? null,
    byId: async (id: string) => (await milestonesWhere(q, q`m.id = ${id}`))[0] ?? null,
    lock: (projectId: string) => lockMilestones(q, projectId),
    insert: (projectId: string, m: MilestoneFields, now: number) =>
      insertMilestone(q, projectId, m, now),
    update: (id: string, m: MilestoneFields) => updateMilestone(q, id, m),
    remove: (id: string) => deleteMilestone(q, id),
  }
}
