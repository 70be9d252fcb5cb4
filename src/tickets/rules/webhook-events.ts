/**
 * What webhooks send (docs/webhooks.md): the event kinds a webhook may ask for, the message a
 * live event becomes (`{ type, timestamp, data }`), the cut of a message too large to send,
 * and when a failed delivery is tried again.
 */
import type { EventName } from '../live/events.ts'

export const WEBHOOK_KINDS = [
  'ticket.created',
  'ticket.commented',
  'ticket.state_changed',
  'ticket.assigned',
  'ticket.edited',
  'ticket.related',
  'file.attached',
  'ticket.labeled',
  'ticket.milestoned',
  'ticket.due_changed',
  'member.changed',
  'connection.changed',
] as const
export type WebhookKind = (typeof WEBHOOK_KINDS)[number]

/** At most this many webhooks a project. */
export const WEBHOOKS_MAX = 20

/** The type of the message "Send test event" sends; no subscription is needed for it. */
export const TEST_KIND = 'webhook.test'

export function isWebhookKind(text: string): text is WebhookKind {
  return (WEBHOOK_KINDS as readonly string[]).includes(text)
}

/** A message body is at most this many bytes; a larger one is cut to the event's ids and links. */
export const PAYLOAD_MAX_BYTES = 256 * 1024

/** A stored live event, as the outbox keeps it. */
export interface OutboxEvent {
  seq: number
  projectId: string
  name: EventName
  args: unknown[]
  created: number
}

const BY_HISTORY_KIND: Readonly<Record<string, WebhookKind>> = {
  comment: 'ticket.commented',
  state: 'ticket.state_changed',
  assign: 'ticket.assigned',
  edit: 'ticket.edited',
  link: 'ticket.related',
  label: 'ticket.labeled',
  milestone: 'ticket.milestoned',
  due: 'ticket.due_changed',
}

type Obj = Record<string, unknown>

/**
 * The kind and data a live event becomes, or null for an event no webhook hears
 * (`projectChanged`; `invitesChanged`, for which docs/webhooks.md has no kind; `ticketsRelated`,
 * whose change arrives as `ticket.related`).
 * `project` is the project as the API names it. Ticket events carry the ticket and the history
 * event exactly as the API answered them.
 */
export function webhookMessageOf(
  event: OutboxEvent,
  project: { id: string; slug: string },
): { type: WebhookKind; data: Obj } | null {
  const a = event.args
  switch (event.name) {
    case 'ticketCreated':
      return { type: 'ticket.created', data: { project, ticket: a[0] } }
    case 'ticketEvent': {
      const historyEvent = a[1] as Obj
      const type = BY_HISTORY_KIND[String(historyEvent?.kind)]
      return type ? { type, data: { project, ticket: a[2], event: historyEvent } } : null
    }
    case 'membersChanged':
      return { type: 'member.changed', data: { project } }
    case 'connectionsChanged':
      return { type: 'connection.changed', data: { project } }
    case 'fileAttached':
      return { type: 'file.attached', data: { project, file: a[0] } }
    default:
      return null
  }
}

/**
 * The message body: `{ type, timestamp, data }`, `timestamp` in ISO 8601. One over
 * {@link PAYLOAD_MAX_BYTES} keeps only the ids and the addresses to read the rest from
 * (`data.cut` is then true): the ticket's API address, the project's.
 */
export function webhookBody(type: string, at: number, data: Obj, publicUrl: string): string {
  const whole = JSON.stringify({ type, timestamp: new Date(at).toISOString(), data })
  if (Buffer.byteLength(whole) <= PAYLOAD_MAX_BYTES) return whole
  const project = data.project as { id: string; slug: string } | undefined
  const ticket = data.ticket as Obj | undefined
  const event = data.event as Obj | undefined
  const cut: Obj = { cut: true }
  if (project)
    cut.project = {
      id: project.id,
      slug: project.slug,
      api: `${publicUrl}/api/projects/${encodeURIComponent(project.slug)}`,
    }
  if (ticket)
    cut.ticket = {
      id: ticket.id,
      ref: ticket.ref,
      number: ticket.number,
      api: `${publicUrl}/api/tickets/${encodeURIComponent(String(ticket.id))}`,
    }
  if (event) cut.event = { id: event.id, kind: event.kind }
  return JSON.stringify({ type, timestamp: new Date(at).toISOString(), data: cut })
}

/** Failed deliveries are tried again for this long after their first attempt; then the webhook is disabled. */
export const RETRY_FOR_MS = 3 * 24 * 60 * 60 * 1000

const MINUTE = 60_000
const HOUR = 60 * MINUTE
/** The wait after the n-th failed attempt (1-based), before jitter; the last repeats. */
export const RETRY_WAITS_MS: readonly number[] = [
  5_000,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
]

/**
 * When to try again after `attempts` failed attempts, the first made at `first`: the wait of
 * {@link RETRY_WAITS_MS} with ±20 % jitter (`random` in [0, 1)), so that receivers coming back
 * after an outage are not met by every sender at once. Null once {@link RETRY_FOR_MS} would be
 * passed: the delivery has failed.
 */
export function nextAttemptAt(
  attempts: number,
  first: number,
  now: number,
  random: () => number,
): number | null {
  const wait = RETRY_WAITS_MS[Math.min(attempts, RETRY_WAITS_MS.length) - 1]!
  const at = now + Math.round(wait * (0.8 + 0.4 * random()))
  return at - first > RETRY_FOR_MS ? null : at
}
