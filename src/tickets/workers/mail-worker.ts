/**
 * Mails notifications (docs/notifications.md, "Mail"), in two steps a round:
 *
 * 1. **Compose.** The pending notifications of one person on one ticket whose first is
 *    `NOTIFY_DELAY` old become one mail: those made within the delay of the first go in (read
 *    ones, and those of a kind the person turned off, are cancelled), and the mail is stored in
 *    the outbox in the same transaction.
 * 2. **Deliver.** Mails due are taken under a lease and sent one by one through SMTP, outside
 *    any transaction; each attempt is recorded. A failure is tried again with back-off for a day;
 *    a 5xx at `RCPT TO` stops mail to that address until it is confirmed again.
 *
 * Writes never wait for any of it: they only add notifications, and a mail server that is down
 * only leaves mails pending here. Rounds run every `intervalMs`.
 */
import type { Logger } from '../../base/log.ts'
import { randomToken } from '../../base/random.ts'
import type { Mailer } from '../mailer/mailer.ts'
import { composeMail, mailKindOf, type MailItem } from '../representations/mail.ts'
import { unsubscribeToken } from '../rules/unsubscribe.ts'
import type { TicketStore } from '../store/ticket-store.ts'
import { KEEP_DONE_MS, type HeldMail } from '../store/mail.ts'
import { createRounds } from './rounds.ts'

/** How long a process holds a mail it sends: longer than one attempt's timeout. */
export const MAIL_LEASE_MS = 120_000
/** Failed attempts are tried again for this long after the mail was composed. */
export const RETRY_FOR_MS = 24 * 60 * 60 * 1000
/** The first retry's wait; each later one doubles it, up to {@link RETRY_MAX_MS}. */
export const RETRY_BASE_MS = 10_000
export const RETRY_MAX_MS = 60 * 60 * 1000
/** Batches composed per round, and mails taken per round. */
const BATCHES_PER_ROUND = 200
const SENDS_PER_ROUND = 50
const PRUNE_EVERY_MS = 10 * 60 * 1000

export interface MailWorkerDeps {
  store: TicketStore
  mailer: Mailer
  publicUrl: string
  logger: Logger
  clock: () => number
  /** `NOTIFY_DELAY` in ms. */
  delayMs: number
  intervalMs?: number
  leaseMs?: number
  /** The first retry's wait ({@link RETRY_BASE_MS} unless told). */
  retryBaseMs?: number
  /** In [0, 1), the retries' jitter. */
  random?: () => number
}

export interface MailWorker {
  start(): void
  /** Asks for a round now (after the running one). */
  poke(): void
  /** Resolves once no round runs. */
  settled(): Promise<void>
  close(): Promise<void>
}

/**
 * When to try a mail again after `attempts` failed attempts, or null once a day has gone since
 * it was composed at `created`: the base wait doubled per attempt, at most an hour, with up to a
 * fifth more at random so that many mails do not all come back at once.
 */
export function nextMailAttempt(
  attempts: number,
  created: number,
  now: number,
  baseMs: number,
  random: () => number,
): number | null {
  const wait = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), RETRY_MAX_MS)
  const next = now + Math.round(wait * (1 + random() / 5))
  return next - created > RETRY_FOR_MS ? null : next
}

export function createMailWorker(deps: MailWorkerDeps): MailWorker {
  const { store, mailer, clock, logger } = deps
  const random = deps.random ?? Math.random
  const leaseMs = deps.leaseMs ?? MAIL_LEASE_MS
  const baseMs = deps.retryBaseMs ?? RETRY_BASE_MS
  const host = new URL(deps.publicUrl).hostname
  let key: string | null = null
  let timer: NodeJS.Timeout | null = null
  let lastPrune = 0

  /** Composes the due batches into mails; answers how many batches it looked at. */
  async function compose(): Promise<number> {
    const now = clock()
    const due = await store.mail.dueBatches(now - deps.delayMs, BATCHES_PER_ROUND)
    key ??= await store.mail.unsubscribeKey()
    for (const batch of due) {
      await store.transact(async (tx) => {
        const taken = await tx.mail.takeBatch(
          batch.userId,
          batch.ticketId,
          batch.first + deps.delayMs,
        )
        if (taken.length === 0) return
        const content = await tx.mail.batchContent(
          batch.ticketId,
          taken.flatMap((n) => (n.eventId === null ? [] : [n.eventId])),
        )
        if (content === null) return
        const items: MailItem[] = taken.map((n) => ({
          at: n.at,
          actor: n.actor,
          reason: n.reason,
          kind: n.kind,
          event: n.eventId === null ? null : (content.events.get(n.eventId) ?? null),
        }))
        const kind = mailKindOf(items)
        const { ticket } = content
        const messageId = `<${randomToken(12)}.${ticket.id}@${host}>`
        const mail = composeMail({
          ticket,
          items,
          ticketUrl: `${deps.publicUrl}/${ticket.slug}/${ticket.number}`,
          settingsUrl: `${deps.publicUrl}/settings/notifications`,
          unsubscribeUrl: `${deps.publicUrl}/unsubscribe/${unsubscribeToken(key!, batch.userId, kind)}`,
          kind,
          messageId,
          threadId: `<ticket.${ticket.id}@${host}>`,
          listId: `<${ticket.slug}.${host}>`,
        })
        await tx.mail.enqueue({
          userId: batch.userId,
          ticketId: ticket.id,
          reason: kind,
          messageId,
          ...mail,
          at: clock(),
        })
      })
    }
    return due.length
  }

  /**
   * Sends due mails one at a time, each taken under its own lease just before its attempt, so a
   * slow server never leaves a held mail waiting past its lease.
   */
  async function deliver(): Promise<number> {
    let sent = 0
    while (sent < SENDS_PER_ROUND && !rounds.stopped) {
      const [mail] = await store.mail.claim(clock(), leaseMs, 1)
      if (!mail) break
      await attempt(mail)
      sent++
    }
    return sent
  }

  async function attempt(mail: HeldMail): Promise<void> {
    if (mail.address === null) {
      await store.mail.record(mail, { state: 'cancelled', at: clock() })
      return
    }
    const outcome = await mailer.deliver({
      to: mail.address,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      headers: mail.headers,
    })
    const at = clock()
    if (outcome.ok) {
      await store.mail.record(mail, { state: 'sent', address: mail.address, at })
      return
    }
    if (outcome.refused) {
      logger.line(
        `mail: ${mail.address} was refused (${outcome.error}); no more mail goes there until it is confirmed again`,
      )
      await store.mail.record(mail, {
        state: 'refused',
        address: mail.address,
        error: outcome.error,
        at,
      })
      return
    }
    const next = nextMailAttempt(mail.attempts + 1, mail.created, at, baseMs, random)
    if (next === null) {
      logger.line(
        `mail: a mail to ${mail.address} failed for a day and is given up: ${outcome.error}`,
      )
      await store.mail.record(mail, { state: 'failed', error: outcome.error, at })
    } else {
      await store.mail.record(mail, { state: 'pending', next, error: outcome.error, at })
    }
  }

  async function round(): Promise<void> {
    while ((await compose()) === BATCHES_PER_ROUND && !rounds.stopped);
    while ((await deliver()) === SENDS_PER_ROUND && !rounds.stopped);
    if (clock() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = clock()
      await store.mail.prune(lastPrune - KEEP_DONE_MS)
    }
  }

  // After a failed round (the database unreachable), rounds rest (src/tickets/workers/rounds.ts).
  const rounds = createRounds({
    round,
    failed: (err) => logger.line(`mail: a round failed: ${err.message}`),
  })
  const poke = rounds.poke

  return {
    start() {
      if (timer || rounds.stopped) return
      timer = setInterval(poke, deps.intervalMs ?? 1000)
      timer.unref()
      poke()
    },
    poke,
    settled: rounds.settled,
    async close() {
      if (timer) clearInterval(timer)
      await rounds.stop()
    },
  }
}
