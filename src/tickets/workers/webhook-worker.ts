/**
 * Delivers webhooks from the events outbox (docs/webhooks.md, "How delivery works").
 *
 * A round turns the events committed since the last round into deliveries (one short
 * transaction, `webhooks.fanOut`), then takes the webhooks with a delivery due under a lease
 * (`webhooks.claim`) and serves each on its own: its deliveries go one at a time, in order, so a
 * slow or dead target holds up only itself. No transaction is open while a request is out.
 * Rounds run after this process's writes (`wake`), every `intervalMs` (other processes' writes,
 * retries coming due), and when a webhook's turn ends.
 *
 * At least once: a delivery is marked sent only after its answer, so a process killed while
 * sending leaves it pending, and whichever process holds the webhook next (after the lease)
 * sends it again with the same `webhook-id`.
 */
import { setMaxListeners } from 'node:events'
import { Webhook as Signer } from 'standardwebhooks'
import type { Logger } from '../../base/log.ts'
import { postChecked, type Outcome } from '../../http/outbound.ts'
import { randomToken } from '../../base/random.ts'
import type { Wake } from '../live/events.ts'
import type { TicketStore } from '../store/ticket-store.ts'
import { signingSecrets, type DueDelivery, type HeldWebhook } from '../store/webhooks.ts'
import { createRounds } from './rounds.ts'
import {
  nextAttemptAt,
  webhookBody,
  webhookMessageOf,
  type OutboxEvent,
} from '../rules/webhook-events.ts'

/** A 2xx within this is a success; anything else, or nothing, is a failure. */
export const DELIVERY_TIMEOUT_MS = 10_000
/** How long a process holds a webhook it serves, renewed at each delivery: longer than one attempt. */
export const LEASE_MS = 30_000
/** How much of an answer the log keeps. */
export const ANSWER_KEEP_BYTES = 1024
/** Events turned into deliveries per transaction. */
const FAN_OUT_BATCH = 500
/** How often the log is pruned. */
const PRUNE_EVERY_MS = 10 * 60 * 1000

export const GONE_REASON = 'the receiver answered 410 Gone'
export const FAILED_REASON = 'deliveries failed for 3 days'

/** Sends one signed delivery; the default is {@link postChecked}. */
export type Send = (
  url: string,
  headers: Record<string, string>,
  body: string,
  /** Aborted when the worker closes: the send ends at once, and is not recorded. */
  signal: AbortSignal,
) => Promise<Outcome>

export interface WebhookWorkerDeps {
  store: TicketStore
  publicUrl: string
  logger: Logger
  /** `WEBHOOK_ALLOW_PRIVATE=1`: targets on loopback and private networks may be reached. */
  allowPrivate: boolean
  /** Milliseconds since the epoch: the `webhook-timestamp`, the log's times and the retry schedule. */
  clock: () => number
  /** Pinged after this process's writes. */
  wake?: Wake
  /** In [0, 1), the retries' jitter. */
  random?: () => number
  send?: Send
  /** How often a round runs without a wake-up (1 s unless told). */
  intervalMs?: number
  /** At most this many webhooks served at once by this process. */
  maxServing?: number
  /** How long a held webhook stays held ({@link LEASE_MS} unless told; tests of a killed process shorten it). */
  leaseMs?: number
}

export interface WebhookWorker {
  /** Starts the rounds. */
  start(): void
  /** Asks for a round now (after the running one). */
  poke(): void
  /** Resolves once no round runs and no webhook is being served (tests). */
  settled(): Promise<void>
  /** Stops the rounds, ends the sends under way and waits for their holds to be let go. */
  close(): Promise<void>
}

/** `webhook-signature`: one `v1,<base64>` per secret, separated by spaces (Standard Webhooks). */
export function signatureOf(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => new Signer(secret).sign(messageId, new Date(timestampSeconds * 1000), body))
    .join(' ')
}

/** A fresh `webhook-id`. */
export function newMessageId(): string {
  return `msg_${randomToken(18)}`
}

export function createWebhookWorker(deps: WebhookWorkerDeps): WebhookWorker {
  const { store, clock, logger } = deps
  const random = deps.random ?? Math.random
  const send: Send =
    deps.send ??
    ((url, headers, body, signal) =>
      postChecked(url, headers, body, {
        timeoutMs: DELIVERY_TIMEOUT_MS,
        allowPrivate: deps.allowPrivate,
        keepBytes: ANSWER_KEEP_BYTES,
        clock,
        signal,
      }))
  const maxServing = deps.maxServing ?? 200
  const leaseMs = deps.leaseMs ?? LEASE_MS
  const serving = new Set<Promise<void>>()
  let timer: NodeJS.Timeout | null = null
  let lastPrune = 0
  const stop = new AbortController()
  // Every send under way (up to maxServing at once) listens for the stop.
  setMaxListeners(0, stop.signal)

  function message(
    event: OutboxEvent,
    project: { id: string; slug: string },
  ): { type: string; payload: string } | null {
    const made = webhookMessageOf(event, project)
    return (
      made && {
        type: made.type,
        payload: webhookBody(made.type, event.created, made.data, deps.publicUrl),
      }
    )
  }

  async function round(): Promise<void> {
    for (;;) {
      const read = await store.transact((tx) =>
        tx.webhooks.fanOut(FAN_OUT_BATCH, message, newMessageId),
      )
      if (read === null || read < FAN_OUT_BATCH) break
    }
    const room = maxServing - serving.size
    if (room > 0 && !rounds.stopped) {
      for (const hook of await store.webhooks.claim(clock(), leaseMs, room)) {
        const job: Promise<void> = serve(hook).finally(() => {
          serving.delete(job)
          if (!rounds.stopped) poke()
        })
        serving.add(job)
      }
    }
    if (clock() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = clock()
      await store.webhooks.prune(lastPrune)
    }
  }

  // After a failed round (the database unreachable), rounds rest (src/tickets/workers/rounds.ts).
  const rounds = createRounds({
    round,
    failed: (err) => logger.line(`webhooks: a delivery round failed: ${err.message}`),
  })
  const poke = rounds.poke

  /** Sends a held webhook's due deliveries one at a time, then lets it go. */
  async function serve(hook: HeldWebhook): Promise<void> {
    // Held until then; renewed once half of it is gone, so that a send (at most its timeout,
    // shorter than half a lease) always ends inside the lease.
    let heldUntil = clock() + leaseMs
    try {
      while (!rounds.stopped) {
        const now = clock()
        const due = await store.webhooks.nextDue(hook.id, now)
        if (!due) break
        if (heldUntil - now < leaseMs / 2) {
          heldUntil = now + leaseMs
          await store.webhooks.hold(hook.id, heldUntil)
        }
        if (!(await attempt(hook, due))) break
      }
    } catch (err) {
      logger.line(`webhooks: delivering to webhook ${hook.id} failed: ${(err as Error).message}`)
    } finally {
      await store.webhooks.release(hook.id).catch(() => {})
    }
  }

  /** One attempt, recorded; answers whether the webhook may go on to its next delivery. */
  async function attempt(hook: HeldWebhook, due: DueDelivery): Promise<boolean> {
    const now = clock()
    const seconds = Math.floor(now / 1000)
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'tickets-webhooks/1',
      'webhook-id': due.message,
      'webhook-timestamp': String(seconds),
      'webhook-signature': signatureOf(
        signingSecrets(hook, now),
        due.message,
        seconds,
        due.payload,
      ),
    }
    const outcome = await send(hook.url, headers, due.payload, stop.signal)
    // Cut by close: not the target's failure, so no attempt is counted; the delivery stays due
    // and the next start sends it again, with the same webhook-id.
    if (stop.signal.aborted) return false
    const at = clock()
    const base = {
      at,
      durationMs: outcome.durationMs,
      status: outcome.ok ? outcome.status : null,
      answer: outcome.ok ? outcome.answer : null,
      error: outcome.ok ? null : outcome.error,
    }
    if (outcome.ok && outcome.status >= 200 && outcome.status < 300) {
      await store.webhooks.record(due.id, { ...base, state: 'delivered', next: at })
      return true
    }
    if (outcome.ok && outcome.status === 410) {
      await store.webhooks.record(due.id, { ...base, state: 'failed', next: at })
      await store.webhooks.disable(hook.id, GONE_REASON)
      return false
    }
    const next = nextAttemptAt(due.attempts + 1, due.firstAt ?? at, at, random)
    if (next === null) {
      await store.webhooks.record(due.id, { ...base, state: 'failed', next: at })
      if (due.ordered) await store.webhooks.disable(hook.id, FAILED_REASON)
      return false
    }
    await store.webhooks.record(due.id, { ...base, state: 'pending', next })
    // Out-of-stream deliveries due now may still go; the stream waits for its first.
    return true
  }

  async function followWake(): Promise<void> {
    while (!rounds.stopped && deps.wake) {
      await deps.wake.next(stop.signal)
      poke()
    }
  }

  return {
    start() {
      if (timer || rounds.stopped) return
      timer = setInterval(poke, deps.intervalMs ?? 1000)
      timer.unref()
      void followWake()
      poke()
    },
    poke,
    async settled() {
      do {
        await rounds.settled()
        await Promise.all([...serving])
      } while (rounds.running || serving.size > 0)
    },
    async close() {
      const ended = rounds.stop()
      // Ends the sends under way at once: a target slow to answer must not hold the shutdown.
      stop.abort()
      if (timer) clearInterval(timer)
      // At most a send's timeout and a little: a statement on a database already closed must
      // not hold the shutdown either (what is not recorded is sent again by the next start).
      let limit: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.all([ended, ...serving]),
        new Promise<void>((resolve) => (limit = setTimeout(resolve, DELIVERY_TIMEOUT_MS + 1000))),
      ])
      clearTimeout(limit)
    },
  }
}
