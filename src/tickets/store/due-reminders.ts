/**
 * Due-date reminders (sql/0039_due_reminders.sql, docs/notifications.md, "Due dates"): the
 * claim of the reminders a sweep sends, one `due_reminders` row per ticket, due day and kind.
 *
 * A reminder is claimed by inserting its row; the key (ticket, day, kind) makes a second insert
 * of the same reminder wait for the first transaction and then insert nothing, so when several
 * processes sweep at once each reminder is claimed, and its notifications written, once.
 */
import type { Query } from '../../db/client.ts'

/** The day before the due day, or the due day itself. */
export type ReminderKind = 'tomorrow' | 'today'

/** A reminder claimed in this transaction: the ticket, its due day and whom it is assigned to. */
export interface ClaimedReminder {
  ticketId: string
  projectId: string
  /** `YYYY-MM-DD` */
  day: string
  kind: ReminderKind
  assigneeId: string
}

/**
 * Claims the reminders due on `today` (UTC, `YYYY-MM-DD`) and not yet sent: for every ticket
 * that is open, doing or in review, has an assignee and is due `today` (kind `today`) or the
 * day after (kind `tomorrow`). A ticket without an assignee is left for a later sweep, so a
 * person it is assigned to later that day is still told.
 */
async function claim(q: Query, today: string, now: number): Promise<ClaimedReminder[]> {
  const rows = await q<
    {
      ticket_id: string
      project_id: string
      day: string
      kind: ReminderKind
      assignee_id: string
    }[]
  >`
    with due as (
      select t.id, t.project_id, t.due, t.assignee_id,
             case when t.due = ${today}::date then 'today' else 'tomorrow' end as kind
      from tickets t
      where t.due in (${today}::date, ${today}::date + 1) and t.assignee_id is not null
        and t.state in ('open', 'doing', 'review')
      order by t.id),
    claimed as (
      insert into due_reminders (ticket_id, day, kind, at)
      select id, due, kind, ${now} from due
      on conflict do nothing
      returning ticket_id, day, kind)
    select c.ticket_id, d.project_id, to_char(c.day, 'YYYY-MM-DD') as day, c.kind, d.assignee_id
    from claimed c join due d on d.id = c.ticket_id
    order by c.day, c.ticket_id`
  return rows.map((r) => ({
    ticketId: r.ticket_id,
    projectId: r.project_id,
    day: r.day,
    kind: r.kind,
    assigneeId: r.assignee_id,
  }))
}

/** Deletes the rows of days before `today`: no sweep looks at them again. */
async function prune(q: Query, today: string): Promise<number> {
  const rows = await q`delete from due_reminders where day < ${today}::date returning 1`
  return rows.length
}

/** The reminders' claims on `q`. */
export function dueReminderTable(q: Query) {
  return {
    /** Inside a transaction: see {@link claim}. */
    claim: (today: string, now: number) => claim(q, today, now),
    prune: (today: string) => prune(q, today),
  }
}
