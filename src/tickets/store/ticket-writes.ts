/**
 * The statements a write of the `tickets` table makes outside the importer: a new ticket with
 * its project's next number, the lock a change takes (with what the change decides by), and a
 * change with the history events it adds. An insert and a change answer the ticket as written,
 * read in the same statement ({@link viewOf}).
 */
import type { Query } from '../../db/client.ts'
import type { State } from '../rules/states.ts'
import { mayAct, rolesAtLeast, type Role } from '../rules/roles.ts'
import { lockedRole } from './projects.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import { eventOf, type EventAuthor } from './history.ts'
import type { User } from './users.ts'
import { ticketOf, viewOf, type Fragment, type Ticket, type TicketRow } from './ticket-row.ts'

export interface NewTicketRow {
  projectId: string
  subject: string
  summary: string
  source: string
  assigneeId: string | null
  authorId: string
  now: number
}

/** A write made only when a user's role in the project is at least `atLeast` ({@link rolesAtLeast}). */
export interface IfRole {
  userId: string
  atLeast: Role
}

/** The condition that `ifRole`'s user may write in the project `projectId` names; true without one. */
function roleCondition(tx: Query, projectId: Fragment | string, ifRole: IfRole | undefined) {
  if (ifRole === undefined) return tx`true`
  return tx`exists (select 1 from members m where m.project_id = ${projectId} and m.user_id = ${ifRole.userId} and m.role in ${tx(rolesAtLeast(ifRole.atLeast))})`
}

/**
 * Inserts a ticket with the project's next number and answers it, read in the same statement.
 * `update projects ... returning` takes the project row's lock, so parallel creates never share
 * a number. With `ifRole`, only when that user's role in the project is high enough: otherwise
 * nothing is written and the answer is null.
 */
export async function insertTicket(
  tx: Query,
  t: NewTicketRow,
  ifRole?: IfRole,
): Promise<Ticket | null> {
  const member = roleCondition(tx, t.projectId, ifRole)
  const view = viewOf(tx)
  const [row] = await tx<TicketRow[]>`
    with counter as (
      update projects set next_number = next_number + 1 where id = ${t.projectId} and ${member}
      returning next_number - 1 as number
    ), t as (
      insert into tickets (project_id, number, subject, summary, source, assignee_id, author_id, created, updated)
      select ${t.projectId}, counter.number, ${t.subject}, ${t.summary}, ${t.source}, ${t.assigneeId}, ${t.authorId}, ${t.now}, ${t.now}
      from counter
      returning *
    )
    select ${view.columns} from t ${view.joins}`
  return row ? ticketOf(row) : null
}

/** The row of a ticket being changed, locked until the transaction ends. */
export interface LockedTicket {
  id: string
  projectId: string
  state: State
  assigneeId: string | null
  authorId: string | null
  parentId: string | null
  subject: string
  summary: string
  /** The role in the ticket's project of the user the lock was taken for. */
  role: Role | null
  /** The assignee as a user; null for nobody. */
  assignee: User | null
  /** The author as a user; null for an imported author who never logged in here. */
  author: User | null
  /** The milestone's id and title; null for none. */
  milestone: { id: string; title: string } | null
  /** The due day, `YYYY-MM-DD`; null for none. */
  due: string | null
}

/**
 * Locks a ticket's row for a change and reads, in the same statement, what the change decides
 * by: its fields, `userId`'s role in its project, and its assignee's and author's names. The
 * lock is `for no key update`, the one an update takes: it keeps other changes of the ticket
 * waiting, not the foreign-key checks of rows that name it. Null when there is no such ticket.
 */
export async function lockTicket(
  tx: Query,
  id: string,
  userId: string,
): Promise<LockedTicket | null> {
  const [r] = await tx<
    {
      project_id: string
      state: State
      assignee_id: string | null
      author_id: string | null
      parent_id: string | null
      subject: string
      summary: string
      role: Role | null
      assignee_name: string | null
      author_user_name: string | null
      milestone_id: string | null
      milestone_title: string | null
      due: string | null
    }[]
  >`
    select t.project_id, t.state, t.assignee_id, t.author_id, t.parent_id, t.subject, t.summary,
      m.role, a.name as assignee_name, au.name as author_user_name,
      t.milestone_id::text as milestone_id, ms.title as milestone_title, to_char(t.due, 'YYYY-MM-DD') as due
    from tickets t
    left join milestones ms on ms.id = t.milestone_id
    left join members m on m.project_id = t.project_id and m.user_id = ${userId}
    left join users a on a.id = t.assignee_id
    left join users au on au.id = t.author_id
    where t.id = ${id}
    for no key update of t`
  if (!r) return null
  const user = (id: string | null, name: string | null): User | null =>
    id !== null && name !== null ? { id, name } : null
  return {
    id,
    projectId: r.project_id,
    state: r.state,
    assigneeId: r.assignee_id ?? null,
    authorId: r.author_id ?? null,
    parentId: r.parent_id ?? null,
    subject: r.subject,
    summary: r.summary,
    role: r.role ?? null,
    assignee: user(r.assignee_id ?? null, r.assignee_name ?? null),
    author: user(r.author_id ?? null, r.author_user_name ?? null),
    milestone: r.milestone_id != null ? { id: r.milestone_id, title: r.milestone_title! } : null,
    due: r.due ?? null,
  }
}

/** The parent of a ticket, read without a lock. */
export async function parentOf(tx: Query, id: string): Promise<string | null> {
  const [row] = await tx<
    { parent_id: string | null }[]
  >`select parent_id from tickets where id = ${id}`
  return row?.parent_id ?? null
}

/** The fields a change sets; the others stay. */
export interface TicketChange {
  state?: State
  assigneeId?: string | null
  parentId?: string | null
  subject?: string
  summary?: string
  /** The milestone's id; null for none. */
  milestoneId?: string | null
  /** The due day, `YYYY-MM-DD`; null for none. */
  due?: string | null
  /** Marks the ticket changed at this time. */
  updated?: number
}

/** The columns a change sets. */
function columnsOf(change: TicketChange): Record<string, unknown> {
  const set: Record<string, unknown> = {}
  if (change.state !== undefined) set.state = change.state
  if (change.assigneeId !== undefined) set.assignee_id = change.assigneeId
  if (change.parentId !== undefined) set.parent_id = change.parentId
  if (change.subject !== undefined) set.subject = change.subject
  if (change.summary !== undefined) set.summary = change.summary
  if (change.milestoneId !== undefined) set.milestone_id = change.milestoneId
  if (change.due !== undefined) set.due = change.due
  if (change.updated !== undefined) set.updated = change.updated
  return set
}

/** Sets the given fields of a ticket. */
export async function updateTicket(tx: Query, id: string, change: TicketChange): Promise<void> {
  await tx`update tickets set ${tx(columnsOf(change) as never)} where id = ${id}`
}

/** A history event a change adds: its kind and its fields. */
export interface NewHistoryEvent {
  kind: TicketEvent['kind']
  data: Record<string, unknown>
}

/**
 * Sets `change` on a ticket and adds `events` (made by `author` at `now`, in their order) to its
 * history, and answers the ticket as changed and the events, in one statement. With `ifRole`,
 * only when that user's role in the ticket's project is high enough: otherwise nothing is written
 * and the answer is null (as it is when there is no such ticket).
 */
export async function changeTicket(
  tx: Query,
  id: string,
  change: TicketChange,
  events: readonly NewHistoryEvent[],
  author: EventAuthor,
  now: number,
  ifRole?: IfRole,
): Promise<{ ticket: Ticket; events: TicketEvent[] } | null> {
  const member = roleCondition(tx, tx`tickets.project_id`, ifRole)
  const view = viewOf(tx)
  const rows = await tx<
    (TicketRow & {
      event_id: number
      event_kind: TicketEvent['kind']
      event_user_id: string | null
      event_by: string
      event_app: string | null
      event_data: string | Record<string, unknown>
      event_created: number
    })[]
  >`
    with t as (
      update tickets set ${tx(columnsOf(change) as never)} where id = ${id} and ${member}
      returning *
    ), e as (
      insert into ticket_events (ticket_id, kind, user_id, by, app, data, created)
      select t.id, n.e->>'kind', ${author.id}, ${author.name}, ${author.app ?? null}, n.e->'data', ${now}
      from t, jsonb_array_elements(${tx.json(events as never)}::jsonb) with ordinality as n(e, i)
      order by n.i
      returning id, kind, user_id, by, app, data, created
    )
    select ${view.columns}, e.id as event_id, e.kind as event_kind, e.user_id as event_user_id, e.by as event_by,
      e.app as event_app, e.data as event_data, e.created as event_created
    from t ${view.joins} cross join e
    order by e.id`
  if (rows.length === 0) return null
  return {
    ticket: ticketOf(rows[0]!),
    events: rows.map((r) =>
      eventOf({
        id: r.event_id,
        kind: r.event_kind,
        user_id: r.event_user_id,
        by: r.event_by,
        app: r.event_app,
        data: r.event_data,
        created: r.event_created,
      }),
    ),
  }
}

/** A write made because the user's role allowed it, or the role that did not (null: not a member). */
export type AsMember<T> = ({ ok: true } & T) | { ok: false; role: Role | null }

/**
 * Inserts a ticket when `ifRole`'s user may (their role in the project at least `atLeast`): in
 * one statement when they may; when that wrote nothing, their role is read with the project row
 * locked, and the ticket inserted after all if it was granted meanwhile.
 */
export async function insertAsMember(
  tx: Query,
  t: NewTicketRow,
  ifRole: IfRole,
): Promise<AsMember<{ ticket: Ticket }>> {
  const ticket = await insertTicket(tx, t, ifRole)
  if (ticket) return { ok: true, ticket }
  const role = await lockedRole(tx, t.projectId, ifRole.userId)
  if (!mayAct(role, ifRole.atLeast)) return { ok: false, role }
  return { ok: true, ticket: (await insertTicket(tx, t))! }
}

/**
 * Sets `change` and adds `events` when `ifRole`'s user may (as {@link insertAsMember} decides):
 * in one statement when they may; otherwise their role, read with the ticket locked.
 */
export async function changeAsMember(
  tx: Query,
  id: string,
  change: TicketChange,
  events: readonly NewHistoryEvent[],
  author: EventAuthor,
  now: number,
  ifRole: IfRole,
): Promise<AsMember<{ ticket: Ticket; events: TicketEvent[] }>> {
  const done = await changeTicket(tx, id, change, events, author, now, ifRole)
  if (done) return { ok: true, ...done }
  const locked = await lockTicket(tx, id, ifRole.userId)
  if (locked === null || !mayAct(locked.role, ifRole.atLeast))
    return { ok: false, role: locked?.role ?? null }
  return { ok: true, ...(await changeTicket(tx, id, change, events, author, now))! }
}
