/**
 * Notifications (sql/0032_notifications.sql, docs/notifications.md): the `notifications` rows,
 * what each person wants (`notification_prefs`, the install's `notification_defaults`), who
 * watches which ticket (`watches`, `project_watches`) and how far the events outbox has been
 * fanned out (`notify_state`).
 *
 * The fan-out is claimed like the webhooks' ({@link claimEvents}): one transaction takes the
 * state row `FOR UPDATE SKIP LOCKED`, so when several processes run, one fans out and the others
 * skip; the rows and the new `fanned_through` commit together, so each event is fanned out once.
 * Who is told of what is decided in src/tickets/domain/notifications.ts.
 */
import type postgres from 'postgres'
import type { Query } from '../../db/client.ts'
import type { EventName } from '../live/events.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import { eventOf, type EventRow } from './history.ts'

type Fragment = postgres.PendingQuery<postgres.Row[]>

import { KINDS, type Cause, type Kind, type Reason } from '../rules/notification-reasons.ts'

export { KINDS, isKind, type Cause, type Kind, type Reason } from '../rules/notification-reasons.ts'

/** The mail's part: none wanted, waiting for the sender, sent, or cancelled (read first, or no address). */
export type MailState = 'none' | 'pending' | 'sent' | 'cancelled'

/** What a person wants for one kind. */
export interface Pref {
  app: boolean
  mail: boolean
}
export type Prefs = Record<Kind, Pref>

/** A notification to insert. */
export interface NewNotification {
  userId: string
  ticketId: string
  eventId: number | null
  kind: Cause
  reason: Reason
  actorId: string | null
  actor: string
  at: number
  inApp: boolean
  mailState: MailState
}

/** A notification as the API and the pages show it. */
export interface Notification {
  id: string
  ticket: { id: string; project: string; slug: string; number: number; subject: string }
  reason: Reason
  kind: Cause
  /** The history event as the ticket's answer shows it; null for the ticket's creation. */
  event: TicketEvent | null
  actor: { id: string | null; name: string }
  at: number
  read: boolean
}

/** A ticket's notifications on the person's page: what is unread, and the newest. */
export interface NotificationGroup {
  ticket: Notification['ticket']
  /** The id of the ticket's newest notification (the groups' order and pages). */
  newest: number
  /** Unread notifications of the ticket. */
  unreadCount: number
  /** The unread ones by what caused them, in the order of their first. */
  unreadKinds: { kind: Cause; n: number }[]
  /** Why the unread ones were sent, each once. */
  reasons: Reason[]
  /** Who made the unread ones, in order, each once, at most 3. */
  actors: string[]
  /** The history event of the first unread one, where its link lands; null when none or the creation. */
  firstUnreadEvent: number | null
  /** The newest notification. */
  last: { kind: Cause; reason: Reason; actor: string; at: number }
}

/** An event of the outbox as the fan-out reads it. */
export interface FanOutEvent {
  seq: number
  projectId: string
  name: EventName
  args: unknown[]
  created: number
}

/** Read notifications older than this are deleted by the sweep. */
export const KEEP_READ_MS = 90 * 24 * 60 * 60 * 1000

/** A notification id in a request: decimal digits. */
const NOTIFICATION_ID = /^[1-9][0-9]{0,15}$/

export function isNotificationId(text: string): boolean {
  return NOTIFICATION_ID.test(text)
}

/**
 * Takes the events after `notify_state.fanned_through`, up to `limit` of them, in transaction
 * `tx`, and moves `fanned_through` past them (the rows they cause commit with it); null when
 * another process holds the state row now. One statement: on the embedded database each of the
 * worker's statements waits its turn with the writes. `read` is how many events were read;
 * `events` are those that may tell someone (a ticket's, not one person's); the others'
 * arguments are not read. `fanned_through` is compared as a value (a subquery), so the outbox is
 * read from there by its `seq` index; joined with the state row, the plan walked the outbox from
 * its first event on every claim.
 */
async function claimEvents(
  tx: Query,
  limit: number,
): Promise<{ read: number; events: FanOutEvent[] } | null> {
  const rows = await tx<
    {
      read: number
      seq: number | null
      project_id: string | null
      name: EventName | null
      args: unknown[] | null
      created: number | null
    }[]
  >`
    with state as (select fanned_through from notify_state for update skip locked),
    batch as (
      select e.seq, e.project_id, e.user_id, e.name from events e
      where e.seq > (select fanned_through from state) order by e.seq limit ${limit}),
    moved as (
      update notify_state set fanned_through = (select max(seq) from batch)
      where exists (select 1 from batch) returning 1)
    select (select count(*)::int from batch) as read, e.seq, e.project_id, e.name, e.args, e.created
    from state
    left join batch b on b.user_id is null and b.project_id is not null
      and b.name in ('ticketCreated', 'ticketEvent')
    left join events e on e.seq = b.seq
    order by e.seq`
  const first = rows[0]
  if (!first) return null
  const events: FanOutEvent[] = []
  for (const r of rows) {
    if (r.seq === null) continue
    events.push({
      seq: r.seq,
      projectId: r.project_id!,
      name: r.name!,
      args: r.args!,
      created: r.created!,
    })
  }
  return { read: first.read, events }
}

/** The members of each project, for resolving mentions. */
async function membersOf(
  q: Query,
  projectIds: readonly string[],
): Promise<Map<string, { id: string; name: string }[]>> {
  const out = new Map<string, { id: string; name: string }[]>()
  if (projectIds.length === 0) return out
  const rows = await q<{ project_id: string; id: string; name: string }[]>`
    select m.project_id, u.id, u.name from members m join users u on u.id = m.user_id
    where m.project_id in ${q(projectIds)}`
  for (const r of rows) {
    const list = out.get(r.project_id)
    const member = { id: r.id, name: r.name }
    if (list) list.push(member)
    else out.set(r.project_id, [member])
  }
  return out
}

interface PrefRow {
  user_id: string
  reason: Kind
  app: boolean
  mail: boolean
}

/** What each of `userIds` wants, their own choices over the install's defaults. */
async function prefsOf(q: Query, userIds: readonly string[]): Promise<Map<string, Prefs>> {
  const out = new Map<string, Prefs>()
  if (userIds.length === 0) return out
  const rows = await q<PrefRow[]>`
    select u.id as user_id, d.reason, coalesce(p.app, d.app) as app, coalesce(p.mail, d.mail) as mail
    from users u cross join notification_defaults d
    left join notification_prefs p on p.user_id = u.id and p.reason = d.reason
    where u.id in ${q(userIds)}`
  for (const r of rows) {
    let prefs = out.get(r.user_id)
    if (!prefs) out.set(r.user_id, (prefs = {} as Prefs))
    prefs[r.reason] = { app: r.app, mail: r.mail }
  }
  return out
}

/** One person's choices (the defaults where they made none); null for an unknown user. */
async function prefsOfUser(q: Query, userId: string): Promise<Prefs | null> {
  return (await prefsOf(q, [userId])).get(userId) ?? null
}

async function defaults(q: Query): Promise<Prefs> {
  const rows = await q<
    { reason: Kind; app: boolean; mail: boolean }[]
  >`select reason, app, mail from notification_defaults`
  const out = {} as Prefs
  for (const r of rows) out[r.reason] = { app: r.app, mail: r.mail }
  return out
}

async function setPrefs(q: Query, userId: string, prefs: Prefs): Promise<void> {
  const rows = KINDS.map((k) => ({ reason: k, app: prefs[k].app, mail: prefs[k].mail }))
  await q`
    insert into notification_prefs (user_id, reason, app, mail)
    select ${userId}, r->>'reason', (r->>'app')::boolean, (r->>'mail')::boolean
    from jsonb_array_elements(${q.json(rows)}::jsonb) r
    on conflict (user_id, reason) do update set app = excluded.app, mail = excluded.mail`
}

/**
 * Turns one kind's mail on or off for a person, keeping their choice for the app (the
 * one-click unsubscribe turns it off).
 */
async function setMail(q: Query, userId: string, kind: Kind, mail: boolean): Promise<void> {
  await q`
    insert into notification_prefs (user_id, reason, app, mail)
    select ${userId}, d.reason, d.app, ${mail} from notification_defaults d where d.reason = ${kind}
    on conflict (user_id, reason) do update set mail = excluded.mail`
}

async function setDefaults(q: Query, prefs: Prefs): Promise<void> {
  for (const k of KINDS)
    await q`update notification_defaults set app = ${prefs[k].app}, mail = ${prefs[k].mail} where reason = ${k}`
}

/** One event to fan out, as the domain decided it (src/tickets/domain/notifications.ts). */
export interface FanOutItem {
  ticketId: string
  /** The history event; null for the ticket's creation. */
  eventId: number | null
  kind: Cause
  actorId: string | null
  actor: string
  at: number
  /** The people told for a reason of their own (assigned, mentioned), each once, never the actor. */
  named: { userId: string; reason: Kind }[]
  /** People who watch the ticket from an earlier event of the same batch on (mentioned there). */
  alsoWatching: string[]
}

/**
 * Inserts the notifications of `items`, in their order, in one statement: each person `named`
 * with their reason, and everyone else who watches the ticket (a watch row that says so, the
 * project's Watch all without an Unwatch of the ticket, or `alsoWatching`) as `watching`,
 * never the actor; each row in the app and by mail as the person chose (their choice, else the
 * install's default; mail only when `mail`), none when neither. The watchers are joined here, in
 * the database, so a ticket 100 people watch costs no more round trips nor bytes than one
 * nobody watches. Answers the people who got a new row in the app, and how many.
 */
async function fanOutRows(
  q: Query,
  items: readonly FanOutItem[],
  mail: boolean,
): Promise<{ userId: string; added: number }[]> {
  if (items.length === 0) return []
  const json = items.map((h) => ({
    t: h.ticketId,
    e: h.eventId,
    k: h.kind,
    ai: h.actorId,
    a: h.actor,
    at: h.at,
    n: h.named.map((r) => ({ u: r.userId, r: r.reason })),
    w: h.alsoWatching,
  }))
  const added = await q<{ user_id: string; added: number }[]>`
    with h as (
      select n.i, (x->>'t')::uuid as ticket_id, (x->>'e')::bigint as event_id, x->>'k' as kind,
             x->>'ai' as actor_id, x->>'a' as actor, (x->>'at')::bigint as at,
             x->'n' as named, x->'w' as also
      from jsonb_array_elements(${q.json(json)}::jsonb) with ordinality as n(x, i)),
    watching as (
      select h.i, w.user_id from h join watches w on w.ticket_id = h.ticket_id and w.watching
      union
      select h.i, pw.user_id from h join tickets t on t.id = h.ticket_id
        join project_watches pw on pw.project_id = t.project_id
      where not exists (select 1 from watches x
                        where x.ticket_id = h.ticket_id and x.user_id = pw.user_id and not x.watching)
      union
      select h.i, a.user_id from h, jsonb_array_elements_text(h.also) as a(user_id)),
    told as (
      select h.i, r.k as ord, r.n->>'u' as user_id, r.n->>'r' as reason
      from h, jsonb_array_elements(h.named) with ordinality as r(n, k)
      union all
      select w.i, null, w.user_id, 'watching' from watching w join h on h.i = w.i
      where w.user_id is distinct from h.actor_id
        and not exists (select 1 from jsonb_array_elements(h.named) r where r->>'u' = w.user_id)),
    made as (
      insert into notifications (user_id, ticket_id, event_id, kind, reason, actor_id, actor, at, in_app, mail_state)
      select t.user_id, h.ticket_id, h.event_id, h.kind, t.reason, h.actor_id, h.actor, h.at,
             coalesce(p.app, d.app),
             case when coalesce(p.mail, d.mail) and ${mail}::boolean then 'pending' else 'none' end
      from told t
      join h on h.i = t.i
      join users u on u.id = t.user_id
      join notification_defaults d on d.reason = t.reason
      left join notification_prefs p on p.user_id = t.user_id and p.reason = t.reason
      where coalesce(p.app, d.app) or (coalesce(p.mail, d.mail) and ${mail}::boolean)
      order by t.i, t.ord nulls last, t.user_id
      on conflict do nothing
      returning user_id, in_app)
    select user_id, count(*)::int as added from made where in_app group by user_id`
  return added.map((r) => ({ userId: r.user_id, added: r.added }))
}

/** Inserts notifications (each person once per event); answers the people who got a new row in the app. */
async function insertNotifications(
  q: Query,
  rows: readonly NewNotification[],
): Promise<{ userId: string; added: number }[]> {
  if (rows.length === 0) return []
  const json = rows.map((r) => ({
    u: r.userId,
    t: r.ticketId,
    e: r.eventId,
    k: r.kind,
    r: r.reason,
    ai: r.actorId,
    a: r.actor,
    at: r.at,
    i: r.inApp,
    m: r.mailState,
  }))
  const added = await q<{ user_id: string; added: number }[]>`
    with made as (
      insert into notifications (user_id, ticket_id, event_id, kind, reason, actor_id, actor, at, in_app, mail_state)
      select n->>'u', (n->>'t')::uuid, (n->>'e')::bigint, n->>'k', n->>'r', n->>'ai', n->>'a',
             (n->>'at')::bigint, (n->>'i')::boolean, n->>'m'
      from jsonb_array_elements(${q.json(json)}::jsonb) n
      on conflict do nothing
      returning user_id, in_app)
    select user_id, count(*)::int as added from made where in_app group by user_id`
  return added.map((r) => ({ userId: r.user_id, added: r.added }))
}

/**
 * Watches `ticketId` for each of `userIds` as an automatic watch decided at `at`: it does not
 * undo an Unwatch made later than `at`.
 */
async function autoWatch(
  q: Query,
  ticketId: string,
  userIds: readonly string[],
  at: number,
): Promise<void> {
  if (userIds.length === 0) return
  await q`
    insert into watches (ticket_id, user_id, watching, at)
    select ${ticketId}, u, true, ${at} from unnest(${q.array(userIds as string[])}::text[]) u
    on conflict (ticket_id, user_id) do update set watching = true, at = excluded.at
      where not watches.watching and watches.at < excluded.at`
}

/** The person's explicit Watch or Unwatch of a ticket. */
async function setWatch(
  q: Query,
  ticketId: string,
  userId: string,
  watching: boolean,
  at: number,
): Promise<void> {
  await q`
    insert into watches (ticket_id, user_id, watching, at) values (${ticketId}, ${userId}, ${watching}, ${at})
    on conflict (ticket_id, user_id) do update set watching = excluded.watching, at = excluded.at`
}

/** Whether the person watches the ticket (a watch row, or Watch all without an Unwatch). */
async function isWatching(q: Query, ticketId: string, userId: string): Promise<boolean> {
  const [row] = await q<{ watching: boolean }[]>`
    select coalesce(
      (select watching from watches where ticket_id = ${ticketId} and user_id = ${userId}),
      exists (select 1 from tickets t join project_watches pw on pw.project_id = t.project_id
              where t.id = ${ticketId} and pw.user_id = ${userId})) as watching`
  return row?.watching ?? false
}

async function setProjectWatch(
  q: Query,
  projectId: string,
  userId: string,
  on: boolean,
  at: number,
): Promise<void> {
  if (on)
    await q`insert into project_watches (project_id, user_id, at) values (${projectId}, ${userId}, ${at}) on conflict do nothing`
  else await q`delete from project_watches where project_id = ${projectId} and user_id = ${userId}`
}

async function watchesProject(q: Query, projectId: string, userId: string): Promise<boolean> {
  const [row] =
    await q`select 1 from project_watches where project_id = ${projectId} and user_id = ${userId}`
  return row !== undefined
}

/** The person's unread notifications shown in the app (the bell), as sql/0041's triggers keep the count. */
async function unreadCount(q: Query, userId: string): Promise<number> {
  const [row] = await q<
    { n: number }[]
  >`select n from notification_unread where user_id = ${userId}`
  return row?.n ?? 0
}

/** A count of unread notifications as a scalar subquery, for the pages' one statement. */
export function unreadCountColumn(q: Query, userId: string): Fragment {
  return q`coalesce((select nb.n from notification_unread nb where nb.user_id = ${userId}), 0)`
}

interface NotificationRow {
  id: number
  ticket_id: string
  project_id: string
  slug: string
  number: number
  subject: string
  reason: Reason
  kind: Cause
  actor_id: string | null
  actor: string
  at: number
  read_at: number | null
  e_id: number | null
  e_kind: TicketEvent['kind'] | null
  e_user_id: string | null
  e_by: string | null
  e_app: string | null
  e_data: EventRow['data'] | null
  e_created: number | null
}

function notificationOf(r: NotificationRow): Notification {
  return {
    id: String(r.id),
    ticket: {
      id: r.ticket_id,
      project: r.project_id,
      slug: r.slug,
      number: r.number,
      subject: r.subject,
    },
    reason: r.reason,
    kind: r.kind,
    event:
      r.e_id === null
        ? null
        : eventOf({
            id: r.e_id,
            kind: r.e_kind!,
            user_id: r.e_user_id,
            by: r.e_by!,
            app: r.e_app,
            data: r.e_data!,
            created: r.e_created!,
          }),
    actor: { id: r.actor_id ?? null, name: r.actor },
    at: r.at,
    read: r.read_at !== null,
  }
}

/** The person's notifications in the app, newest first: `limit` of them after the id `before` (exclusive). */
async function listOf(
  q: Query,
  userId: string,
  limit: number,
  before: number | null,
): Promise<Notification[]> {
  const rows = await q<NotificationRow[]>`
    select n.id, n.ticket_id, t.project_id, p.slug, t.number, t.subject, n.reason, n.kind,
           n.actor_id, n.actor, n.at, n.read_at,
           e.id as e_id, e.kind as e_kind, e.user_id as e_user_id, e.by as e_by, e.app as e_app,
           e.data as e_data, e.created as e_created
    from notifications n
    join tickets t on t.id = n.ticket_id
    join projects p on p.id = t.project_id
    left join ticket_events e on e.id = n.event_id
    where n.user_id = ${userId} and n.in_app ${before === null ? q`` : q`and n.id < ${before}`}
    order by n.id desc
    limit ${limit}`
  return rows.map(notificationOf)
}

/** Notifications the page's tickets are first looked for among: the person's newest this many. */
const GROUPS_WINDOW = 2000

/**
 * The tickets of a page of groups: `limit` tickets by their newest notification, below `before`
 * (a ticket with a notification from `before` on was on an earlier page). Looked for among the
 * newest {@link GROUPS_WINDOW} notifications: when they hold `limit` tickets, those are the
 * page's (a ticket with a newer notification would be among them); else every notification of
 * the person is grouped.
 */
async function pageTickets(
  q: Query,
  userId: string,
  limit: number,
  before: number | null,
): Promise<{ ticket_id: string; newest: number }[]> {
  const earlier = (alias: string) =>
    before === null
      ? q``
      : q`and not exists (select 1 from notifications x where x.user_id = ${userId}
            and x.ticket_id = ${q(alias)}.ticket_id and x.in_app and x.id >= ${before})`
  const recent = await q<{ ticket_id: string; newest: number; seen: number }[]>`
    with w as (
      select ticket_id, id from notifications
      where user_id = ${userId} and in_app ${before === null ? q`` : q`and id < ${before}`}
      order by id desc limit ${GROUPS_WINDOW})
    select w.ticket_id, max(w.id) as newest, (select count(*)::int from w) as seen
    from w where true ${earlier('w')}
    group by w.ticket_id order by max(w.id) desc limit ${limit}`
  if (recent.length === limit) return recent
  // Fewer: every notification below `before` was looked at, unless the window was full (or
  // every ticket in it was an earlier page's).
  if (recent.length > 0 ? recent[0]!.seen < GROUPS_WINDOW : before === null) return recent
  return q<{ ticket_id: string; newest: number }[]>`
    select n.ticket_id, max(n.id) as newest from notifications n
    where n.user_id = ${userId} and n.in_app
    group by n.ticket_id
    ${before === null ? q`` : q`having max(n.id) < ${before}`}
    order by max(n.id) desc limit ${limit}`
}

/**
 * The person's notifications in the app grouped by ticket, the ticket with the newest first:
 * `limit` groups from the one whose newest notification is below `before`. Each group's unread
 * rows are read once, and its count, kinds, reasons, first actors and first event are taken
 * from them together (windows over those few rows), not by a read of them each.
 */
async function groupsOf(
  q: Query,
  userId: string,
  limit: number,
  before: number | null,
): Promise<NotificationGroup[]> {
  const page = await pageTickets(q, userId, limit, before)
  if (page.length === 0) return []
  const rows = await q<
    {
      ticket_id: string
      project_id: string
      slug: string
      number: number
      subject: string
      newest: number
      unread_count: number
      kinds: Json<{ kind: Cause; n: number }[]> | null
      reasons: Json<Reason[]> | null
      actors: Json<string[]> | null
      first_event: number | null
      last_kind: Cause
      last_reason: Reason
      last_actor: string
      last_at: number
    }[]
  >`
    select g.ticket_id, t.project_id, p.slug, t.number, t.subject, g.newest,
           coalesce(u.unread_count, 0) as unread_count, u.kinds, u.reasons, u.actors, u.first_event,
           l.kind as last_kind, l.reason as last_reason, l.actor as last_actor, l.at as last_at
    from unnest(${q.array(page.map((g) => g.ticket_id))}::uuid[], ${q.array(page.map((g) => g.newest))}::bigint[])
      as g(ticket_id, newest)
    join tickets t on t.id = g.ticket_id
    join projects p on p.id = t.project_id
    join notifications l on l.id = g.newest
    left join lateral (
      select count(*)::int as unread_count,
             (array_agg(x.event_id order by x.id))[1] as first_event,
             json_agg(json_build_object('kind', x.kind, 'n', x.kind_n) order by x.id)
               filter (where x.kind_pos = 1) as kinds,
             json_agg(distinct x.reason) as reasons,
             to_json((array_agg(x.actor order by x.id) filter (where x.actor_pos = 1))[1:3]) as actors
      from (
        select n.id, n.kind, n.reason, n.actor, n.event_id,
               row_number() over (partition by n.kind order by n.id) as kind_pos,
               count(*) over (partition by n.kind)::int as kind_n,
               row_number() over (partition by n.actor order by n.id) as actor_pos
        from notifications n
        where n.user_id = ${userId} and n.ticket_id = g.ticket_id and n.in_app and n.read_at is null
      ) x
    ) u on true
    order by g.newest desc`
  return rows.map((r) => ({
    ticket: {
      id: r.ticket_id,
      project: r.project_id,
      slug: r.slug,
      number: r.number,
      subject: r.subject,
    },
    newest: r.newest,
    unreadCount: r.unread_count,
    unreadKinds: parsed(r.kinds) ?? [],
    reasons: parsed(r.reasons) ?? [],
    actors: parsed(r.actors) ?? [],
    firstUnreadEvent: r.first_event ?? null,
    last: { kind: r.last_kind, reason: r.last_reason, actor: r.last_actor, at: r.last_at },
  }))
}

/** JSON text on the embedded database, parsed JSON on a server. */
type Json<T> = string | T

function parsed<T>(value: Json<T> | null): T | null {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value
}

/** Marks one of the person's notifications read; false when they have none of that id. */
async function markRead(q: Query, userId: string, id: string, at: number): Promise<boolean> {
  if (!isNotificationId(id)) return false
  const rows = await q<{ read_at: number | null }[]>`
    update notifications set read_at = coalesce(read_at, ${at})
    where id = ${id} and user_id = ${userId} and in_app
    returning read_at`
  return rows.length > 0
}

/** Marks every unread notification of the person in the app read; answers how many were. */
async function markAllRead(q: Query, userId: string, at: number): Promise<number> {
  const rows = await q`
    update notifications set read_at = ${at} where user_id = ${userId} and read_at is null and in_app
    returning 1`
  return rows.length
}

/**
 * Marks the person's unread notifications of one ticket read, those by mail only too (they opened
 * the ticket: what it would tell them, they have seen); answers how many of those in the app were.
 */
async function markTicketRead(
  q: Query,
  userId: string,
  ticketId: string,
  at: number,
): Promise<number> {
  const rows = await q<{ in_app: boolean }[]>`
    update notifications set read_at = ${at}
    where user_id = ${userId} and ticket_id = ${ticketId} and read_at is null
    returning in_app`
  return rows.filter((r) => r.in_app).length
}

/** Whether any of the person's notifications of one ticket is unread, in the app or by mail. */
async function anyUnreadOf(q: Query, userId: string, ticketId: string): Promise<boolean> {
  const [row] = await q<{ unread: boolean }[]>`
    select exists (select 1 from notifications
      where user_id = ${userId} and ticket_id = ${ticketId} and read_at is null) as unread`
  return row!.unread
}

/** Deletes read notifications made before `cutoff`; answers how many went. */
async function pruneRead(q: Query, cutoff: number): Promise<number> {
  const rows =
    await q`delete from notifications where at < ${cutoff} and read_at is not null returning 1`
  return rows.length
}

/** Notifications on `q`; `clock` stamps reads and watches. */
export function notificationTable(q: Query, clock: () => number) {
  return {
    /** Inside a transaction: see {@link claimEvents}. */
    claimEvents: (limit: number) => claimEvents(q, limit),
    membersOf: (projectIds: readonly string[]) => membersOf(q, projectIds),
    prefsOf: (userIds: readonly string[]) => prefsOf(q, userIds),
    /** Inside a transaction: see {@link fanOutRows}. */
    fanOut: (items: readonly FanOutItem[], mail: boolean) => fanOutRows(q, items, mail),
    insert: (rows: readonly NewNotification[]) => insertNotifications(q, rows),
    autoWatch: (ticketId: string, userIds: readonly string[], at: number) =>
      autoWatch(q, ticketId, userIds, at),
    setWatch: (ticketId: string, userId: string, watching: boolean) =>
      setWatch(q, ticketId, userId, watching, clock()),
    isWatching: (ticketId: string, userId: string) => isWatching(q, ticketId, userId),
    anyUnreadOf: (userId: string, ticketId: string) => anyUnreadOf(q, userId, ticketId),
    setProjectWatch: (projectId: string, userId: string, on: boolean) =>
      setProjectWatch(q, projectId, userId, on, clock()),
    watchesProject: (projectId: string, userId: string) => watchesProject(q, projectId, userId),
    unread: (userId: string) => unreadCount(q, userId),
    list: (userId: string, limit: number, before: number | null) =>
      listOf(q, userId, limit, before),
    groups: (userId: string, limit: number, before: number | null) =>
      groupsOf(q, userId, limit, before),
    markRead: (userId: string, id: string) => markRead(q, userId, id, clock()),
    markAllRead: (userId: string) => markAllRead(q, userId, clock()),
    markTicketRead: (userId: string, ticketId: string) =>
      markTicketRead(q, userId, ticketId, clock()),
    /** Deletes read notifications older than {@link KEEP_READ_MS}. */
    prune: () => pruneRead(q, clock() - KEEP_READ_MS),
    prefs: (userId: string) => prefsOfUser(q, userId),
    setPrefs: (userId: string, prefs: Prefs) => setPrefs(q, userId, prefs),
    /** One kind's mail for one person, their app choice kept (the unsubscribe). */
    setMail: (userId: string, kind: Kind, mail: boolean) => setMail(q, userId, kind, mail),
    defaults: () => defaults(q),
    setDefaults: (prefs: Prefs) => setDefaults(q, prefs),
  }
}
