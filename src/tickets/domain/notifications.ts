/**
 * Notifications (docs/notifications.md): who is told of what, who watches what, and what reading
 * does. A write records only its live event (src/tickets/store/outbox.ts); after the commit the
 * notify worker (src/tickets/workers/notify-worker.ts) runs {@link fanOutNotifications}, which
 * turns each ticket event into one row per person told, and wakes those people's open pages.
 *
 * Who is told, the actor never:
 * - `assigned`: the ticket was assigned to them (created so, assigned, or a state change
 *   assigned it), or taken from them;
 * - `mentioned`: the new text (a ticket's subject or summary at creation or newly in an edit, a
 *   comment, a state change's text) mentions them (src/tickets/rules/mentions.ts);
 * - `watching`: they watch the ticket (or its project, for a new ticket) and none of the above.
 * Each person once per event, with the first reason of that list that holds.
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import { mentionedIn, newlyMentioned, type Mentionable } from '../rules/mentions.ts'
import { NO_SUCH_NOTIFICATION } from '../rules/messages.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import type { Cause, FanOutEvent, FanOutItem, Kind, Prefs } from '../store/notifications.ts'
import type { TicketStore, TicketTx } from '../store/ticket-store.ts'

/** Something that happened on a ticket, as the fan-out reads it from a live event. */
export interface Happening {
  ticketId: string
  projectId: string
  /** The history event; null for the ticket's creation. */
  eventId: number | null
  kind: Cause
  actorId: string | null
  actor: string
  at: number
  /** Who the ticket was just assigned to, and who it was taken from. */
  assignedTo: string | null
  takenFrom: string | null
  /** Texts that may mention people: `[before, after]` pairs (an edit's), or new texts with `before` ''. */
  texts: readonly (readonly [string, string])[]
  /** The person who acted watches the ticket from now on (they created it or commented). */
  actorWatches: boolean
}

type Obj = Record<string, unknown>

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null
}

function idOf(value: unknown): string | null {
  return isObj(value) && typeof value.id === 'string' ? value.id : null
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** What a live event of the outbox tells, or null for one that tells nobody. */
export function happeningOf(event: FanOutEvent): Happening | null {
  const [first, second] = event.args
  if (event.name === 'ticketCreated') {
    if (!isObj(first) || typeof first.id !== 'string') return null
    const author = isObj(first.author) ? first.author : null
    return {
      ticketId: first.id,
      projectId: event.projectId,
      eventId: null,
      kind: 'created',
      actorId: idOf(author),
      actor: text(author?.name),
      at: typeof first.created === 'number' ? first.created : event.created,
      assignedTo: idOf(first.assignee),
      takenFrom: null,
      texts: [
        ['', text(first.subject)],
        ['', text(first.summary)],
      ],
      actorWatches: true,
    }
  }
  if (event.name !== 'ticketEvent' || typeof first !== 'string' || !isObj(second)) return null
  const e = second as TicketEvent
  if (typeof e.id !== 'number') return null
  const base = {
    ticketId: first,
    projectId: event.projectId,
    eventId: e.id,
    kind: e.kind,
    actorId: e.user,
    actor: e.by,
    at: e.created,
    assignedTo: null,
    takenFrom: null,
    texts: [] as (readonly [string, string])[],
    actorWatches: false,
  }
  switch (e.kind) {
    case 'comment':
      return { ...base, texts: [['', text(e.text)]], actorWatches: true }
    case 'state':
      return { ...base, texts: [['', text(e.text)]], actorWatches: text(e.text).trim() !== '' }
    case 'assign':
      return { ...base, assignedTo: idOf(e.to), takenFrom: idOf(e.from) }
    case 'edit': {
      const pairs: (readonly [string, string])[] = []
      for (const field of ['subject', 'summary']) {
        const change = e[field]
        if (isObj(change)) pairs.push([text(change.from), text(change.to)])
      }
      return { ...base, texts: pairs }
    }
    case 'link':
    case 'label':
    case 'milestone':
    case 'due':
      return base
    default:
      return null
  }
}

/**
 * The people `h` names and why, each once, never the actor: whom it assigns or unassigns, then
 * whom its new text mentions. Everyone else who watches the ticket is told as `watching`.
 */
export function namedBy(
  h: Happening,
  members: readonly Mentionable[],
): { userId: string; reason: Kind }[] {
  const told = new Map<string, Kind>()
  const tell = (userId: string | null, reason: Kind) => {
    if (userId === null || userId === h.actorId || told.has(userId)) return
    told.set(userId, reason)
  }
  tell(h.assignedTo, 'assigned')
  tell(h.takenFrom, 'assigned')
  for (const id of mentionedOf(h, members)) tell(id, 'mentioned')
  return [...told].map(([userId, reason]) => ({ userId, reason }))
}

/** The members the new text of `h` mentions. */
export function mentionedOf(h: Happening, members: readonly Mentionable[]): string[] {
  const ids = new Set<string>()
  for (const [before, after] of h.texts)
    for (const id of before === ''
      ? mentionedIn(after, members)
      : newlyMentioned(before, after, members))
      ids.add(id)
  return [...ids]
}

/** How the fan-out is run: whether mail can be sent (`SMTP_URL` is set). */
export interface FanOutOptions {
  mail: boolean
}

/**
 * Fans out up to `limit` events of the outbox into notifications in transaction `tx`: the
 * mentioned watch the ticket from the event on, each person told gets a row (in the app, by
 * mail, as they chose; no row when neither), and each person with a new row in the app gets a
 * `notificationsChanged` live event. Who is named (assigned, mentioned) is decided here; the
 * watchers are added in the database, in one statement for the whole batch
 * (src/tickets/store/notifications.ts). Answers how many events it read, or null when another
 * process fans out now.
 */
export async function fanOutNotifications(
  tx: TicketTx,
  limit: number,
  options: FanOutOptions,
): Promise<number | null> {
  const claimed = await tx.notifications.claimEvents(limit)
  if (claimed === null) return null
  const happenings = claimed.events.flatMap((e) => happeningOf(e) ?? [])
  // The members are read only when a text may mention one.
  const mayMention = happenings.some((h) => h.texts.some(([, after]) => after.includes('@')))
  const members = mayMention
    ? await tx.notifications.membersOf([...new Set(happenings.map((h) => h.projectId))])
    : new Map<string, Mentionable[]>()
  const items: FanOutItem[] = []
  // Who was mentioned on each ticket earlier in this batch: they watch it from then on.
  const mentionedBefore = new Map<string, Set<string>>()
  const watches: { h: Happening; mentioned: string[] }[] = []
  for (const h of happenings) {
    const projectMembers = members.get(h.projectId) ?? []
    const earlier = mentionedBefore.get(h.ticketId) ?? new Set<string>()
    items.push({
      ticketId: h.ticketId,
      eventId: h.eventId,
      kind: h.kind,
      actorId: h.actorId,
      actor: h.actor,
      at: h.at,
      named: namedBy(h, projectMembers),
      alsoWatching: [...earlier],
    })
    const mentioned = mentionedOf(h, projectMembers)
    if (mentioned.length > 0) {
      watches.push({ h, mentioned })
      mentionedBefore.set(h.ticketId, new Set([...earlier, ...mentioned]))
    }
  }
  for (const { userId, added } of await tx.notifications.fanOut(items, options.mail))
    await tx.emitTo(userId, 'notificationsChanged', [{ added }])
  // After the rows: a watch written first would tell the mentioned of the batch's earlier events.
  for (const { h, mentioned } of watches)
    await tx.notifications.autoWatch(h.ticketId, mentioned, h.at)
  return claimed.read
}

/**
 * The automatic watches of a write, in its transaction: the actor of a creation, a comment or
 * a state change with a text, and whoever the ticket is now assigned to.
 */
export async function watchOnWrite(
  tx: TicketTx,
  ticketId: string,
  actor: Actor,
  also: { actorWatches: boolean; assignee: string | null },
): Promise<void> {
  const ids = [
    ...(also.actorWatches ? [actor.user.id] : []),
    ...(also.assignee !== null && also.assignee !== actor.user.id ? [also.assignee] : []),
  ]
  await tx.notifications.autoWatch(ticketId, ids, actor.now)
}

/** **Watch** or **Unwatch** of a ticket by the person. */
export async function setWatching(
  tx: TicketTx,
  userId: string,
  ticketId: string,
  watching: boolean,
): Promise<void> {
  await tx.notifications.setWatch(ticketId, userId, watching)
}

/** A project's **Watch all**, or its undoing. */
export async function setWatchingProject(
  tx: TicketTx,
  userId: string,
  projectId: string,
  on: boolean,
): Promise<void> {
  await tx.notifications.setProjectWatch(projectId, userId, on)
}

/** Marks one notification of the person read (404 when they have none of that id); answers the unread count. */
export async function readOne(
  tx: TicketTx,
  userId: string,
  id: string,
): Promise<{ unread: number } | Refusal> {
  if (!(await tx.notifications.markRead(userId, id))) return refuse(404, NO_SUCH_NOTIFICATION, 'id')
  await tx.emitTo(userId, 'notificationsChanged', [{ added: 0 }])
  return { unread: await tx.notifications.unread(userId) }
}

/** **Mark all read**; answers the unread count (0, unless more came meanwhile). */
export async function readAll(tx: TicketTx, userId: string): Promise<{ unread: number }> {
  if ((await tx.notifications.markAllRead(userId)) > 0)
    await tx.emitTo(userId, 'notificationsChanged', [{ added: 0 }])
  return { unread: await tx.notifications.unread(userId) }
}

/**
 * The person opened a ticket: its notifications are read, in one transaction with the live event
 * their other pages' bells follow; answers how many in the app were unread. A ticket with none
 * unread (most views of a page) writes nothing: no transaction is begun.
 */
export async function openTicket(
  store: TicketStore,
  userId: string,
  ticketId: string,
): Promise<number> {
  if (!(await store.notifications.anyUnreadOf(userId, ticketId))) return 0
  return store.transact((tx) => readTicket(tx, userId, ticketId))
}

/** The ticket's notifications of the person read (their other pages' bells follow); answers how many in the app were unread. */
export async function readTicket(tx: TicketTx, userId: string, ticketId: string): Promise<number> {
  const read = await tx.notifications.markTicketRead(userId, ticketId)
  if (read > 0) await tx.emitTo(userId, 'notificationsChanged', [{ added: 0 }])
  return read
}

/** The person's choices of app and mail per kind. */
export async function savePrefs(tx: TicketTx, userId: string, prefs: Prefs): Promise<void> {
  await tx.notifications.setPrefs(userId, prefs)
}
