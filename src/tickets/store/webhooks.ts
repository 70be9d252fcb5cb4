/**
 * Webhooks (`webhooks`), their deliveries (`webhook_deliveries`) and how far the events outbox
 * has been turned into deliveries (`webhook_state`); sql/0020_webhooks.sql, docs/webhooks.md.
 *
 * Delivery is claimed per webhook with a lease ({@link claimWebhooks}): one statement takes the
 * webhooks that have a delivery due and are not held, skipping rows another process is taking
 * at that moment (`FOR UPDATE SKIP LOCKED`), and holds them for the lease. No transaction stays
 * open while a delivery is sent; a process that dies holding a lease holds it until the lease
 * ends, and then another takes the webhook, with its deliveries still pending.
 */
import type postgres from 'postgres'
import type { Query } from '../../db/client.ts'
import type { OutboxEvent } from '../rules/webhook-events.ts'
import type { EventName } from '../live/events.ts'

type Fragment = postgres.PendingQuery<postgres.Row[]>

/** A webhook as the API shows it: never its secret. */
export interface Webhook {
  id: string
  url: string
  /** The kinds it hears; empty means every kind. */
  events: string[]
  /** False while paused by an admin or disabled by the service. */
  active: boolean
  /** Why the service disabled it (a 410, three days of failures), else null. */
  disabled: string | null
  /** The connected app that registered it with its project key (the connection's id), else null. */
  connection: string | null
  created: number
}

/** A delivery as the log shows it. */
export interface Delivery {
  id: string
  /** The `webhook-id` header, the same on every attempt. */
  message: string
  type: string
  state: 'pending' | 'delivered' | 'failed'
  attempts: number
  created: number
  /** When the last attempt was made, else null. */
  at: number | null
  /** The next attempt, while pending. */
  next: number | null
  status: number | null
  durationMs: number | null
  /** The first 1 KB of the last answer. */
  answer: string | null
  /** Why the last attempt had no answer (refused address, timeout, connection error). */
  error: string | null
}

/** A webhook held for delivery: what signing and sending need. */
export interface HeldWebhook {
  id: string
  projectId: string
  url: string
  active: boolean
  secret: string
  /** The rotated-out secret, which also signs until `previousUntil` (ms since 1970). */
  previousSecret: string | null
  previousUntil: number | null
}

/**
 * The secrets that sign a message sent at `now`: the webhook's own, and the rotated-out one
 * until its 24 hours are over. Chosen per attempt, not when the webhook is held, so that a
 * delivery sent after the end never carries the old signature.
 */
export function signingSecrets(hook: HeldWebhook, now: number): string[] {
  return hook.previousSecret !== null && (hook.previousUntil ?? 0) > now
    ? [hook.secret, hook.previousSecret]
    : [hook.secret]
}

/** A delivery to send. */
export interface DueDelivery {
  id: string
  message: string
  type: string
  ordered: boolean
  payload: string
  attempts: number
  /** When the first attempt was made, null before it. */
  firstAt: number | null
}

/** A delivery to insert. */
export interface NewDelivery {
  webhookId: string
  message: string
  type: string
  ordered: boolean
  payload: string
}

/** What an attempt came to, to record. */
export interface Attempt {
  at: number
  state: 'pending' | 'delivered' | 'failed'
  next: number
  status: number | null
  durationMs: number
  answer: string | null
  error: string | null
}

/** Deliveries kept in the log: this long, and at most this many per webhook (pending ones always). */
export const LOG_KEEP_MS = 7 * 24 * 60 * 60 * 1000
export const LOG_KEEP_ENTRIES = 1000

/** A rotated-out secret still signs for this long. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000

interface WebhookRow {
  id: string
  url: string
  events: string[]
  active: boolean
  disabled: string | null
  connection_id: string | null
  created: number
}

function webhookOf(r: WebhookRow): Webhook {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    active: r.active,
    disabled: r.disabled ?? null,
    connection: r.connection_id ?? null,
    created: r.created,
  }
}

interface DeliveryRow {
  id: number
  message_id: string
  type: string
  state: Delivery['state']
  attempts: number
  created: number
  last_at: number | null
  next_at: number
  status: number | null
  duration_ms: number | null
  answer: string | null
  error: string | null
}

function deliveryOf(r: DeliveryRow): Delivery {
  return {
    id: String(r.id),
    message: r.message_id,
    type: r.type,
    state: r.state,
    attempts: r.attempts,
    created: r.created,
    at: r.last_at ?? null,
    next: r.state === 'pending' ? r.next_at : null,
    status: r.status ?? null,
    durationMs: r.duration_ms ?? null,
    answer: r.answer ?? null,
    error: r.error ?? null,
  }
}

/** A webhook's id in the path: 12 characters of a-z0-9. A delivery's: decimal digits. */
const WEBHOOK_ID = /^[a-z0-9]{12}$/
const DELIVERY_ID = /^[1-9][0-9]{0,15}$/

async function webhooksOf(
  q: Query,
  projectId: string,
  only: { id?: string; connection?: string },
): Promise<Webhook[]> {
  if (only.id !== undefined && !WEBHOOK_ID.test(only.id)) return []
  const rows = await q<WebhookRow[]>`
    select id, url, events, active, disabled, connection_id, created from webhooks
    where project_id = ${projectId}
      ${only.id === undefined ? q`` : q`and id = ${only.id}`}
      ${only.connection === undefined ? q`` : q`and connection_id = ${only.connection}`}
    order by created, id`
  return rows.map(webhookOf)
}

/**
 * Turns the events after `webhook_state.fanned_through` into deliveries, for every webhook of
 * their project, paused or disabled too: such a webhook's deliveries wait, and go in order
 * when it is resumed, up to `limit` events,
 * in one transaction `tx`; `message` makes each event's message for a webhook's project, or null
 * when no webhook hears it. Answers how many events it read, or null when another process is
 * doing this now (it holds the state row).
 */
async function fanOut(
  tx: Query,
  limit: number,
  message: (
    event: OutboxEvent,
    project: { id: string; slug: string },
  ) => { type: string; payload: string } | null,
  newMessageId: () => string,
): Promise<number | null> {
  const [state] = await tx<
    { fanned_through: number }[]
  >`select fanned_through from webhook_state for update skip locked`
  if (!state) return null
  const events = await tx<
    {
      seq: number
      project_id: string | null
      name: EventName
      args: unknown[]
      created: number
      slug: string | null
    }[]
  >`
    select e.seq, e.project_id, e.name, e.args, e.created, p.slug
    from events e left join projects p on p.id = e.project_id
    where e.seq > ${state.fanned_through}
    order by e.seq limit ${limit}`
  if (events.length === 0) return 0
  const projects = [
    ...new Set(events.flatMap((e) => (e.project_id === null ? [] : [e.project_id]))),
  ]
  const hooks =
    projects.length === 0
      ? []
      : await tx<{ id: string; project_id: string; events: string[]; since_seq: number }[]>`
    select id, project_id, events, since_seq from webhooks where project_id in ${tx(projects)} order by id`
  const rows: NewDelivery[] = []
  for (const e of events) {
    if (e.project_id === null || e.slug === null) continue
    const listening = hooks.filter((h) => h.project_id === e.project_id && e.seq > h.since_seq)
    if (listening.length === 0) continue
    const made = message(
      { seq: e.seq, projectId: e.project_id, name: e.name, args: e.args, created: e.created },
      { id: e.project_id, slug: e.slug },
    )
    if (made === null) continue
    for (const h of listening) {
      if (h.events.length > 0 && !h.events.includes(made.type)) continue
      rows.push({
        webhookId: h.id,
        message: newMessageId(),
        type: made.type,
        ordered: true,
        payload: made.payload,
      })
    }
  }
  await insertDeliveries(tx, rows, events[events.length - 1]!.created)
  await tx`update webhook_state set fanned_through = ${events[events.length - 1]!.seq}`
  return events.length
}

async function insertDeliveries(
  q: Query,
  rows: readonly NewDelivery[],
  now: number,
): Promise<string[]> {
  if (rows.length === 0) return []
  // In the order given: `id` order is the order a webhook's ordered deliveries are sent in.
  const made = await q<{ id: number }[]>`
    insert into webhook_deliveries (webhook_id, message_id, type, ordered, payload, created, state, next_at)
    select d->>'webhookId', d->>'message', d->>'type', (d->>'ordered')::boolean, d->>'payload', ${now}, 'pending', ${now}
    from jsonb_array_elements(${q.json(rows as never)}::jsonb) with ordinality as n(d, i)
    order by n.i
    returning id`
  return made.map((r) => String(r.id))
}

/**
 * The due condition of a webhook's deliveries: a pending delivery whose time has come, that is
 * either out of the stream (a test event, a redelivery) or the stream's first pending one, and
 * then only while the webhook is active.
 */
function dueFor(q: Query, webhook: Fragment, active: Fragment, now: number): Fragment {
  return q`
    d.webhook_id = ${webhook} and d.state = 'pending' and d.next_at <= ${now}
    and (not d.ordered or (${active} and d.id = (
      select min(d2.id) from webhook_deliveries d2 where d2.webhook_id = d.webhook_id and d2.state = 'pending' and d2.ordered)))`
}

/**
 * Takes up to `limit` webhooks with a delivery due and no holder, and holds them until
 * `now + leaseMs`; answers them.
 */
async function claimWebhooks(
  q: Query,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<HeldWebhook[]> {
  const rows = await q<
    {
      id: string
      project_id: string
      url: string
      active: boolean
      secret: string
      previous_secret: string | null
      previous_until: number | null
    }[]
  >`
    update webhooks w set leased_until = ${now + leaseMs}
    where w.id in (
      select h.id from webhooks h
      where h.leased_until <= ${now}
        and exists (select 1 from webhook_deliveries d where ${dueFor(q, q`h.id`, q`h.active`, now)})
      order by h.leased_until, h.id
      limit ${limit}
      for update skip locked)
    returning w.id, w.project_id, w.url, w.active, w.secret, w.previous_secret, w.previous_until`
  return rows.map((r) => ({
    id: r.id,
    projectId: r.project_id,
    url: r.url,
    active: r.active,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousUntil: r.previous_until === null ? null : Number(r.previous_until),
  }))
}

/** The next delivery due for a held webhook (out-of-stream ones first), reading its state afresh; null when none is. */
async function nextDue(q: Query, webhookId: string, now: number): Promise<DueDelivery | null> {
  const [row] = await q<
    {
      id: number
      message_id: string
      type: string
      ordered: boolean
      payload: string
      attempts: number
      first_at: number | null
    }[]
  >`
    select d.id, d.message_id, d.type, d.ordered, d.payload, d.attempts, d.first_at
    from webhook_deliveries d join webhooks w on w.id = d.webhook_id
    where ${dueFor(q, q`${webhookId}`, q`w.active`, now)}
    order by d.ordered, d.id limit 1`
  return row
    ? {
        id: String(row.id),
        message: row.message_id,
        type: row.type,
        ordered: row.ordered,
        payload: row.payload,
        attempts: row.attempts,
        firstAt: row.first_at ?? null,
      }
    : null
}

/** The webhooks, deliveries and delivery state on `q`. */
export function webhookTable(q: Query, clock: () => number) {
  return {
    /** A project's webhooks, oldest first; with `connection`, only that connected app's. */
    of: (projectId: string, connection?: string) =>
      webhooksOf(q, projectId, connection === undefined ? {} : { connection }),
    /** One of a project's webhooks (with `connection`, only if it is that app's), or null. */
    async one(projectId: string, id: string, connection?: string): Promise<Webhook | null> {
      const [hook] = await webhooksOf(
        q,
        projectId,
        connection === undefined ? { id } : { id, connection },
      )
      return hook ?? null
    },
    /** How many webhooks the project has, its row locked so that two additions count in turn. */
    async lockedCount(projectId: string): Promise<number> {
      await q`select 1 from projects where id = ${projectId} for no key update`
      const [row] = await q<
        { n: number }[]
      >`select count(*)::int as n from webhooks where project_id = ${projectId}`
      return row?.n ?? 0
    },
    /** Adds a webhook; it hears the events committed after this. */
    async insert(hook: {
      id: string
      projectId: string
      connection: string | null
      url: string
      events: readonly string[]
      active: boolean
      secret: string
    }): Promise<Webhook> {
      const [row] = await q<WebhookRow[]>`
        insert into webhooks (id, project_id, connection_id, url, events, active, secret, since_seq, created)
        values (${hook.id}, ${hook.projectId}, ${hook.connection}, ${hook.url}, ${q.array(hook.events as string[])}::text[], ${hook.active}, ${hook.secret},
                (select greatest(pruned_through, (select max(seq) from events)) from live_state), ${clock()})
        returning id, url, events, active, disabled, connection_id, created`
      return webhookOf(row!)
    },
    /** Pauses or resumes (a resumed webhook is no longer disabled) and changes its kinds; answers it. */
    async update(
      id: string,
      change: { active?: boolean; events?: readonly string[] },
    ): Promise<Webhook | null> {
      const [row] = await q<WebhookRow[]>`
        update webhooks set
          active = coalesce(${change.active ?? null}::boolean, active),
          disabled = case when ${change.active ?? null}::boolean then null else disabled end,
          events = coalesce(${change.events === undefined ? null : q.array(change.events as string[])}::text[], events)
        where id = ${id}
        returning id, url, events, active, disabled, connection_id, created`
      return row ? webhookOf(row) : null
    },
    /** Replaces the signing secret; the previous one still signs for {@link PREVIOUS_SECRET_MS}. */
    async rotate(id: string, secret: string): Promise<void> {
      await q`update webhooks set previous_secret = secret, previous_until = ${clock() + PREVIOUS_SECRET_MS}, secret = ${secret} where id = ${id}`
    },
    async remove(id: string): Promise<void> {
      await q`delete from webhooks where id = ${id}`
    },
    /** Stops a webhook for `reason` (shown to the project's admins). */
    async disable(id: string, reason: string): Promise<void> {
      await q`update webhooks set active = false, disabled = ${reason} where id = ${id}`
    },
    /** A webhook's log, newest first. */
    async deliveries(webhookId: string, limit: number): Promise<Delivery[]> {
      const rows = await q<DeliveryRow[]>`
        select id, message_id, type, state, attempts, created, last_at, next_at, status, duration_ms, answer, error
        from webhook_deliveries where webhook_id = ${webhookId} order by id desc limit ${limit}`
      return rows.map(deliveryOf)
    },
    /** One delivery of a webhook with its payload, or null. */
    async delivery(
      webhookId: string,
      id: string,
    ): Promise<(Delivery & { payload: string }) | null> {
      if (!DELIVERY_ID.test(id)) return null
      const [row] = await q<(DeliveryRow & { payload: string })[]>`
        select id, message_id, type, state, attempts, created, last_at, next_at, status, duration_ms, answer, error, payload
        from webhook_deliveries where webhook_id = ${webhookId} and id = ${id}`
      return row ? { ...deliveryOf(row), payload: row.payload } : null
    },
    /** Queues deliveries out of the event stream (a test event, a redelivery), due now; answers their ids. */
    enqueue: (rows: readonly NewDelivery[]) => insertDeliveries(q, rows, clock()),
    /** Inside a transaction: see {@link fanOut}. */
    fanOut: (limit: number, message: Parameters<typeof fanOut>[2], newMessageId: () => string) =>
      fanOut(q, limit, message, newMessageId),
    claim: (now: number, leaseMs: number, limit: number) => claimWebhooks(q, now, leaseMs, limit),
    nextDue: (webhookId: string, now: number) => nextDue(q, webhookId, now),
    /** Extends a held webhook's lease. */
    async hold(webhookId: string, until: number): Promise<void> {
      await q`update webhooks set leased_until = ${until} where id = ${webhookId}`
    },
    async release(webhookId: string): Promise<void> {
      await q`update webhooks set leased_until = 0 where id = ${webhookId}`
    },
    async record(deliveryId: string, a: Attempt): Promise<void> {
      await q`
        update webhook_deliveries set state = ${a.state}, attempts = attempts + 1, next_at = ${a.next}, last_at = ${a.at}, first_at = coalesce(first_at, ${a.at}),
          status = ${a.status}, duration_ms = ${a.durationMs}, answer = ${a.answer}, error = ${a.error}
        where id = ${deliveryId}`
    },
    /** Deletes log entries past {@link LOG_KEEP_MS} or past the newest {@link LOG_KEEP_ENTRIES} of their webhook; pending ones stay. */
    async prune(now: number): Promise<number> {
      const gone = await q`
        delete from webhook_deliveries d
        where d.state <> 'pending' and (d.created < ${now - LOG_KEEP_MS} or d.id < coalesce((
          select d2.id from webhook_deliveries d2 where d2.webhook_id = d.webhook_id order by d2.id desc offset ${LOG_KEEP_ENTRIES - 1} limit 1), 0))`
      return gone.count
    },
  }
}
