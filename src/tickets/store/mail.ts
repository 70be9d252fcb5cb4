/**
 * Notification mail (docs/notifications.md, "Mail"; sql/0030_mail.sql): the batches of pending
 * notifications ready to become a mail, the `mail_outbox` of composed mails, its lease, what an
 * attempt came to, the refused addresses, and the key of the unsubscribe links.
 *
 * A batch is taken by one UPDATE of its pending rows: when two processes take the same batch,
 * the second waits for the first's row locks, finds the rows no longer pending and takes none,
 * so each notification goes into one mail. A composed mail is sent under a lease taken by one
 * statement (`FOR UPDATE SKIP LOCKED`), so several processes send each mail once; a process that
 * dies while sending leaves it to be sent again once the lease ends (at least once).
 */
import { randomToken, recordId } from '../../base/random.ts'
import type { Query } from '../../db/client.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import { eventOf, type EventRow } from './history.ts'

/** A person and ticket whose first pending notification is `first` (ms). */
export interface DueBatch {
  userId: string
  ticketId: string
  first: number
}

/** A notification taken into a mail. */
export interface TakenNotification {
  id: string
  eventId: number | null
  kind: string
  reason: string
  actor: string
  at: number
}

/** What a mail is composed from: the ticket and the events its notifications name. */
export interface BatchContent {
  ticket: { id: string; slug: string; number: number; subject: string; summary: string }
  events: Map<number, TicketEvent>
}

/** A composed mail to store. */
export interface NewMail {
  userId: string
  ticketId: string
  reason: string
  messageId: string
  subject: string
  text: string
  html: string
  headers: Record<string, string>
  at: number
}

/** A mail held for sending, with the person's address as it is now. */
export interface HeldMail {
  id: string
  userId: string
  subject: string
  text: string
  html: string
  headers: Record<string, string>
  attempts: number
  created: number
  /** The person's confirmed address now; null when they have none or it was refused. */
  address: string | null
}

/** What an attempt came to. */
export type MailRecord =
  | { state: 'sent'; address: string; at: number }
  | { state: 'pending'; next: number; error: string; at: number }
  | { state: 'failed'; error: string; at: number }
  | { state: 'refused'; address: string; error: string; at: number }
  | { state: 'cancelled'; at: number }

/** Sent, failed, refused and cancelled mails are kept this long, then pruned. */
export const KEEP_DONE_MS = 7 * 24 * 60 * 60 * 1000

const KEY_SETTING = 'mail_unsubscribe_key'

/** The batches whose first pending notification is at or before `upTo`, oldest first. */
async function dueBatches(q: Query, upTo: number, limit: number): Promise<DueBatch[]> {
  const rows = await q<{ user_id: string; ticket_id: string; first: number }[]>`
    select user_id, ticket_id, min(at) as first from notifications
    where mail_state = 'pending'
    group by user_id, ticket_id having min(at) <= ${upTo}
    order by min(at) limit ${limit}`
  return rows.map((r) => ({ userId: r.user_id, ticketId: r.ticket_id, first: Number(r.first) }))
}

/**
 * Takes the batch's pending notifications made up to `through`: each becomes 'sent' (it goes
 * into the mail) or 'cancelled' (read in the app meanwhile, the person has no usable address, or
 * no longer wants this kind by mail). Answers those that go into the mail, oldest first.
 */
async function takeBatch(
  q: Query,
  userId: string,
  ticketId: string,
  through: number,
): Promise<TakenNotification[]> {
  const rows = await q<
    {
      id: string
      event_id: number | null
      kind: string
      reason: string
      actor: string
      at: number
      mail_state: string
    }[]
  >`
    update notifications n set mail_state = case
      when n.read_at is not null then 'cancelled'
      when u.email is null or u.email = u.mail_refused then 'cancelled'
      when not coalesce(
        (select p.mail from notification_prefs p where p.user_id = n.user_id and p.reason = n.reason),
        (select d.mail from notification_defaults d where d.reason = n.reason),
        true) then 'cancelled'
      else 'sent' end
    from users u
    where u.id = n.user_id and n.user_id = ${userId} and n.ticket_id = ${ticketId}
      and n.mail_state = 'pending' and n.at <= ${through}
    returning n.id::text as id, n.event_id, n.kind, n.reason, n.actor, n.at, n.mail_state`
  return rows
    .filter((r) => r.mail_state === 'sent')
    .map((r) => ({
      id: r.id,
      eventId: r.event_id === null ? null : Number(r.event_id),
      kind: r.kind,
      reason: r.reason,
      actor: r.actor,
      at: Number(r.at),
    }))
    .sort((a, b) => a.at - b.at || Number(a.id) - Number(b.id))
}

async function batchContent(
  q: Query,
  ticketId: string,
  eventIds: readonly number[],
): Promise<BatchContent | null> {
  const [ticket] = await q<
    { id: string; slug: string; number: number; subject: string; summary: string }[]
  >`
    select t.id, p.slug, t.number, t.subject, t.summary
    from tickets t join projects p on p.id = t.project_id where t.id = ${ticketId}`
  if (!ticket) return null
  const events = new Map<number, TicketEvent>()
  if (eventIds.length > 0) {
    const rows = await q<EventRow[]>`
      select id, kind, user_id, by, app, data, created from ticket_events
      where ticket_id = ${ticketId} and id in ${q(eventIds as number[])}`
    for (const r of rows) events.set(Number(r.id), eventOf(r))
  }
  return { ticket: { ...ticket, number: Number(ticket.number) }, events }
}

async function enqueue(q: Query, mail: NewMail): Promise<string> {
  const id = recordId()
  await q`
    insert into mail_outbox (id, user_id, ticket_id, reason, message_id, subject, body_text, body_html, headers, created, next_at)
    values (${id}, ${mail.userId}, ${mail.ticketId}, ${mail.reason}, ${mail.messageId}, ${mail.subject},
      ${mail.text}, ${mail.html}, ${q.json(mail.headers)}, ${mail.at}, ${mail.at})`
  return id
}

interface HeldRow {
  id: string
  user_id: string
  subject: string
  body_text: string
  body_html: string
  headers: string | Record<string, string>
  attempts: number
  created: number
  email: string | null
  mail_refused: string | null
}

/** Takes up to `limit` mails due and held by nobody, and holds them until `now + leaseMs`. */
async function claim(q: Query, now: number, leaseMs: number, limit: number): Promise<HeldMail[]> {
  const rows = await q<HeldRow[]>`
    update mail_outbox m set leased_until = ${now + leaseMs}
    from users u
    where u.id = m.user_id and m.id in (
      select id from mail_outbox
      where state = 'pending' and next_at <= ${now} and leased_until <= ${now}
      order by next_at limit ${limit}
      for update skip locked)
    returning m.id, m.user_id, m.subject, m.body_text, m.body_html, m.headers, m.attempts, m.created,
      u.email, u.mail_refused`
  return rows.map((r) => ({
    id: r.id,
    userId: r.user_id,
    subject: r.subject,
    text: r.body_text,
    html: r.body_html,
    headers: typeof r.headers === 'string' ? JSON.parse(r.headers) : r.headers,
    attempts: r.attempts,
    created: Number(r.created),
    address: r.email === null || r.email === r.mail_refused ? null : r.email,
  }))
}

/** Records an attempt (or that none was made); a refused address stops the person's mail. */
async function record(q: Query, mail: HeldMail, outcome: MailRecord): Promise<void> {
  const done = outcome.state === 'pending' ? null : outcome.at
  const next = outcome.state === 'pending' ? outcome.next : outcome.at
  const error = 'error' in outcome ? outcome.error : null
  const address = 'address' in outcome ? outcome.address : null
  const tried = outcome.state === 'cancelled' ? 0 : 1
  await q`
    update mail_outbox set state = ${outcome.state}, attempts = attempts + ${tried}, next_at = ${next},
      done_at = ${done}, leased_until = 0, last_error = ${error}, address = coalesce(${address}, address)
    where id = ${mail.id}`
  if (outcome.state === 'refused')
    await q`update users set mail_refused = ${outcome.address} where id = ${mail.userId} and email = ${outcome.address}`
}

/**
 * Cancels what waits to be mailed of one kind for a person (the one-click unsubscribe, with
 * `notifications.setMail` turning their choice off in the same transaction).
 */
async function cancelKind(q: Query, userId: string, kind: string, now: number): Promise<boolean> {
  const [user] = await q`select 1 from users where id = ${userId}`
  if (!user) return false
  await q`
    update notifications set mail_state = 'cancelled'
    where user_id = ${userId} and reason = ${kind} and mail_state = 'pending'`
  await q`
    update mail_outbox set state = 'cancelled', done_at = ${now}
    where user_id = ${userId} and reason = ${kind} and state = 'pending'`
  return true
}

/** The key of the unsubscribe links, made once and kept in `settings`. */
async function unsubscribeKey(q: Query): Promise<string> {
  await q`insert into settings (key, value) values (${KEY_SETTING}, ${randomToken(32)}) on conflict (key) do nothing`
  const [row] = await q<{ value: string }[]>`select value from settings where key = ${KEY_SETTING}`
  return row!.value
}

/** Deletes mails done before `before`. */
async function prune(q: Query, before: number): Promise<void> {
  await q`delete from mail_outbox where state <> 'pending' and done_at < ${before}`
}

/** The mail tables on `q`. */
export function mailTable(q: Query) {
  return {
    dueBatches: (upTo: number, limit: number) => dueBatches(q, upTo, limit),
    takeBatch: (userId: string, ticketId: string, through: number) =>
      takeBatch(q, userId, ticketId, through),
    batchContent: (ticketId: string, eventIds: readonly number[]) =>
      batchContent(q, ticketId, eventIds),
    enqueue: (mail: NewMail) => enqueue(q, mail),
    claim: (now: number, leaseMs: number, limit: number) => claim(q, now, leaseMs, limit),
    record: (mail: HeldMail, outcome: MailRecord) => record(q, mail, outcome),
    cancelKind: (userId: string, kind: string, now: number) => cancelKind(q, userId, kind, now),
    unsubscribeKey: () => unsubscribeKey(q),
    prune: (before: number) => prune(q, before),
  }
}
