/**
 * Webhooks of a project (docs/tickets-api.md, 4.12; docs/webhooks.md): add, list, change,
 * rotate the secret, remove; the delivery log, "Send test event" and redeliver.
 *
 * Callers: a project admin (user token, or the page's session with `x-tag`), or a connected
 * app's project key, which sees and changes only the webhooks it added itself. Order of checks,
 * as every write: 405, credential (401), body (400), project (404), role (403), the webhook or
 * delivery (404), then the rules (400 `{ error, field }`).
 *
 * Bodies are JSON objects of strings, except `events`, a list of kinds, and `active`, which may
 * also be a JSON boolean.
 */
import { refuseContentType } from '../../http/guards.ts'
import type { Handler } from '../../http/handler.ts'
import { parseJsonObject } from '../../http/json-validate.ts'
import { refuseHost } from '../../http/outbound.ts'
import { randomBase64 } from '../../base/random.ts'
import type { Request } from '../../http/request.ts'
import { json } from '../../http/response.ts'
import type { Caller } from '../credentials.ts'
import { refuseText } from '../rules/body.ts'
import type { Context } from '../context.ts'
import {
  ACTIVE_OR_EVENTS,
  BAD_ACTIVE,
  BAD_WEBHOOK_URL,
  EVENTS_NOT_LIST,
  fieldNotString,
  fieldRequired,
  NO_SUCH_DELIVERY,
  NO_SUCH_PROJECT,
  NO_SUCH_WEBHOOK,
  refusedWebhookUrl,
  unknownField,
  unknownWebhookKind,
} from '../rules/messages.ts'
import { answerRefusal, refuse, type Refusal } from '../../http/refusal.ts'
import { addWebhook, refuseWebhookManager } from '../domain/webhooks.ts'
import type { Project } from '../store/projects.ts'
import type { Delivery, Webhook } from '../store/webhooks.ts'
import { isWebhookKind, TEST_KIND, webhookBody } from '../rules/webhook-events.ts'
import { newMessageId } from '../workers/webhook-worker.ts'

/** A target address is at most this long. */
export const WEBHOOK_URL_MAX = 2000
/** The log answers at most this many deliveries, newest first (it keeps at most 1,000). */
export const LOG_MAX = 1000
/** Signing secrets: this many random bytes after `whsec_`. */
const SECRET_BYTES = 32

const NO_STORE = { 'cache-control': 'no-store' } as const

/** A fresh signing secret, as Standard Webhooks writes them. */
export function newWebhookSecret(): string {
  return `whsec_${randomBase64(SECRET_BYTES)}`
}

type WebhookBody = { url?: string; events?: string[]; active?: boolean }

/**
 * Checks a webhook body: only the fields `allowed`, `url` a string, `events` a list of known
 * kinds (duplicates dropped), `active` a boolean or `'true'`/`'false'`.
 */
function checkWebhookBody(
  bytes: Uint8Array,
  allowed: readonly (keyof WebhookBody)[],
): { ok: true; body: WebhookBody } | Refusal {
  const parsed = parseJsonObject(bytes, { emptyIsObject: true, field: 'body' })
  if (!parsed.ok) return parsed
  const body: WebhookBody = {}
  for (const [name, field] of Object.entries(parsed.value)) {
    if (!(allowed as readonly string[]).includes(name)) return refuse(400, unknownField(name), name)
    if (name === 'url') {
      if (typeof field !== 'string') return refuse(400, fieldNotString(name), name)
      const refused = refuseText(name, field)
      if (refused) return refused
      body.url = field
    } else if (name === 'events') {
      if (!Array.isArray(field) || field.some((k) => typeof k !== 'string'))
        return refuse(400, EVENTS_NOT_LIST, 'events')
      const unknown = (field as string[]).find((k) => !isWebhookKind(k))
      if (unknown !== undefined) return refuse(400, unknownWebhookKind(unknown), 'events')
      body.events = [...new Set(field as string[])]
    } else {
      if (field !== true && field !== false && field !== 'true' && field !== 'false')
        return refuse(400, BAD_ACTIVE, 'active')
      body.active = field === true || field === 'true'
    }
  }
  return { ok: true, body }
}

/** The syntax of a target: absolute http(s), no credentials or fragment, at most 2000 characters; answers it normalised. */
function checkUrl(text: string): { ok: true; url: URL } | Refusal {
  if (text.length > WEBHOOK_URL_MAX || !/^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i.test(text))
    return refuse(400, BAD_WEBHOOK_URL, 'url')
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return refuse(400, BAD_WEBHOOK_URL, 'url')
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username !== '' ||
    url.password !== '' ||
    text.includes('#')
  )
    return refuse(400, BAD_WEBHOOK_URL, 'url')
  return { ok: true, url }
}

/** A caller allowed on a project's webhooks: an admin sees all; a key only its own (`connection`). */
type Allowed = { ok: true; project: Project; connection?: string } | Refusal

export interface WebhookHandlers {
  list: Handler
  create: Handler
  update: Handler
  rotate: Handler
  remove: Handler
  deliveries: Handler
  test: Handler
  redeliver: Handler
}

export function createWebhookHandlers(
  ctx: Context,
  options: { allowPrivate: boolean; poke: () => void },
): WebhookHandlers {
  const { store, credentials } = ctx

  /** Credential (401), then the body (400) when `allowed` fields are given, as every write. */
  async function accept(
    req: Request,
    allowed: readonly (keyof WebhookBody)[] | null,
  ): Promise<{ ok: true; caller: Caller; body: WebhookBody } | Refusal> {
    const who = await credentials.resolve(req, 'user-or-key')
    if (!who.ok) return who
    if (allowed === null) return { ok: true, caller: who.caller, body: {} }
    const bytes = await req.body()
    if (who.caller.via === 'session') {
      const refused = refuseContentType(req, bytes)
      if (refused) return refused
    }
    const checked = checkWebhookBody(bytes, allowed)
    if (!checked.ok) return checked
    return { ok: true, caller: who.caller, body: checked.body }
  }

  /** The project (404), then the caller's right to its webhooks (403). */
  async function allow(req: Request, caller: Caller): Promise<Allowed> {
    const project = await store.projects.find(req.params.slug!)
    if (!project) return refuse(404, NO_SUCH_PROJECT)
    if (caller.kind === 'key') {
      const acting = await credentials.actingUser(caller, project.id)
      if (!acting.ok) return acting
      return { ok: true, project, connection: caller.connection.id }
    }
    const refused = refuseWebhookManager(await store.projects.roleOf(project.id, caller.user.id))
    return refused ?? { ok: true, project }
  }

  /** The webhook of the path, among those the caller may see (404). */
  async function webhookOf(
    req: Request,
    allowed: Extract<Allowed, { ok: true }>,
  ): Promise<{ ok: true; webhook: Webhook } | Refusal> {
    const webhook = await store.webhooks.one(allowed.project.id, req.params.id!, allowed.connection)
    return webhook ? { ok: true, webhook } : refuse(404, NO_SUCH_WEBHOOK)
  }

  /** Accepts, allows and finds the webhook, in that order. */
  async function onWebhook(req: Request, allowed: readonly (keyof WebhookBody)[] | null) {
    const w = await accept(req, allowed)
    if (!w.ok) return w
    const a = await allow(req, w.caller)
    if (!a.ok) return a
    const found = await webhookOf(req, a)
    if (!found.ok) return found
    return {
      ok: true as const,
      body: w.body,
      project: a.project,
      connection: a.connection,
      webhook: found.webhook,
    }
  }

  /** Queues a delivery out of the event stream and wakes the worker. */
  async function enqueue(
    webhookId: string,
    message: string,
    type: string,
    payload: string,
  ): Promise<Delivery> {
    const [id] = await store.webhooks.enqueue([
      { webhookId, message, type, ordered: false, payload },
    ])
    options.poke()
    return (await store.webhooks.delivery(webhookId, id!))!
  }

  return {
    async list(req) {
      const w = await accept(req, null)
      if (!w.ok) return answerRefusal(w)
      const a = await allow(req, w.caller)
      if (!a.ok) return answerRefusal(a)
      return json(200, { webhooks: await store.webhooks.of(a.project.id, a.connection) }, NO_STORE)
    },

    async create(req) {
      const w = await accept(req, ['url', 'events', 'active'])
      if (!w.ok) return answerRefusal(w)
      if (w.body.url === undefined || w.body.url === '')
        return answerRefusal(refuse(400, fieldRequired('url'), 'url'))
      const a = await allow(req, w.caller)
      if (!a.ok) return answerRefusal(a)
      const checked = checkUrl(w.body.url)
      if (!checked.ok) return answerRefusal(checked)
      const refused = await refuseHost(checked.url.hostname, options.allowPrivate)
      if (refused) return answerRefusal(refuse(400, refusedWebhookUrl(refused), 'url'))
      const secret = newWebhookSecret()
      const input = {
        url: checked.url.href,
        events: w.body.events ?? [],
        active: w.body.active ?? true,
        secret,
      }
      const made = await store.transact((tx) =>
        addWebhook(tx, a.project.id, a.connection ?? null, input),
      )
      if (!made.ok) return answerRefusal(made)
      return json(201, { webhook: made.webhook, secret }, NO_STORE)
    },

    async update(req) {
      const w = await onWebhook(req, ['active', 'events'])
      if (!w.ok) return answerRefusal(w)
      if (w.body.active === undefined && w.body.events === undefined)
        return answerRefusal(refuse(400, ACTIVE_OR_EVENTS, 'active'))
      const webhook = await store.webhooks.update(w.webhook.id, w.body)
      options.poke()
      return json(200, { webhook }, NO_STORE)
    },

    async rotate(req) {
      const w = await onWebhook(req, [])
      if (!w.ok) return answerRefusal(w)
      const secret = newWebhookSecret()
      await store.webhooks.rotate(w.webhook.id, secret)
      return json(200, { webhook: w.webhook, secret }, NO_STORE)
    },

    async remove(req) {
      const w = await onWebhook(req, [])
      if (!w.ok) return answerRefusal(w)
      await store.webhooks.remove(w.webhook.id)
      return json(
        200,
        { removed: w.webhook, webhooks: await store.webhooks.of(w.project.id, w.connection) },
        NO_STORE,
      )
    },

    async deliveries(req) {
      const w = await onWebhook(req, null)
      if (!w.ok) return answerRefusal(w)
      return json(
        200,
        { deliveries: await store.webhooks.deliveries(w.webhook.id, LOG_MAX) },
        NO_STORE,
      )
    },

    async test(req) {
      const w = await onWebhook(req, [])
      if (!w.ok) return answerRefusal(w)
      const p = w.project
      const payload = webhookBody(
        TEST_KIND,
        ctx.clock(),
        { project: { id: p.id, slug: p.slug }, webhook: { id: w.webhook.id, url: w.webhook.url } },
        ctx.publicUrl,
      )
      return json(
        202,
        { delivery: await enqueue(w.webhook.id, newMessageId(), TEST_KIND, payload) },
        NO_STORE,
      )
    },

    async redeliver(req) {
      const w = await onWebhook(req, [])
      if (!w.ok) return answerRefusal(w)
      const original = await store.webhooks.delivery(w.webhook.id, req.params.delivery!)
      if (!original) return answerRefusal(refuse(404, NO_SUCH_DELIVERY))
      // The same message, so a receiver that kept its `webhook-id` knows it again.
      return json(
        202,
        {
          delivery: await enqueue(w.webhook.id, original.message, original.type, original.payload),
        },
        NO_STORE,
      )
    },
  }
}
