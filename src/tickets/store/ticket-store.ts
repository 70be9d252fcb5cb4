/**
 * The ticket store: every aggregate's table (`store/*.ts`) bound to the database, built once by
 * {@link createTicketStore} as the notes store is, and {@link TicketStore.transact} for writes
 * that must hold together. Inside a transaction the same tables are bound to it, beside `emit`,
 * which stores a live event in that transaction.
 *
 * ```ts
 * const store = createTicketStore({ sql, clock, wake })
 * const ticket = await store.tickets.byId(id)
 * const result = await store.transact(async (tx) => { ... })
 * ```
 *
 * @module
 */
import type { Query, Sql } from '../../db/client.ts'
import type { EventName, Wake } from '../live/events.ts'
import { Refusal } from '../../http/refusal.ts'
import { transaction } from '../../db/transaction.ts'
import { connectionTable } from './connections.ts'
import { historyTable } from './history.ts'
import { inviteTable } from './invites.ts'
import { emitAll, outboxTable, type NewEvent } from './outbox.ts'
import { CACHED_READS, pageReadTable } from './page-reads.ts'
import { projectTable } from './projects.ts'
import { relationTable } from './relations.ts'
import { ticketTable } from './tickets.ts'
import { tokenTable } from './tokens.ts'
import { userTable } from './users.ts'
import { webhookTable } from './webhooks.ts'
import { fileTable } from './files.ts'
import { labelTable } from './labels.ts'
import { milestoneTable } from './milestones.ts'
import { mailTable } from './mail.ts'
import { notificationTable } from './notifications.ts'
import { bulkTable } from './bulk.ts'
import { viewTable } from './views.ts'
import { boardTable } from './board.ts'
import { dueReminderTable } from './due-reminders.ts'

function tablesOn(q: Query, clock: () => number, cachedReads = 0) {
  return {
    tickets: ticketTable(q),
    history: historyTable(q),
    relations: relationTable(q),
    projects: projectTable(q),
    users: userTable(q, clock),
    tokens: tokenTable(q, clock),
    connections: connectionTable(q, clock),
    invites: inviteTable(q, clock),
    outbox: outboxTable(q),
    pages: pageReadTable(q, cachedReads),
    webhooks: webhookTable(q, clock),
    files: fileTable(q),
    labels: labelTable(q),
    milestones: milestoneTable(q),
    mail: mailTable(q),
    notifications: notificationTable(q, clock),
    bulk: bulkTable(q),
    views: viewTable(q, clock),
    board: boardTable(q),
    dueReminders: dueReminderTable(q),
  }
}

/** Every aggregate's table on one query handle. */
export type Tables = ReturnType<typeof tablesOn>

/** The store inside one transaction. */
export interface TicketTx extends Tables {
  /**
   * Stores a live event for a project (its id, not its slug) in this transaction: the events are
   * kept in order and written together, in one statement, when the transaction's function has
   * answered (and not with a refusal).
   */
  emit(projectId: string, name: EventName, args: unknown[]): Promise<void>
  /** Stores a live event for one person only (their open pages), as {@link TicketTx.emit} does. */
  emitTo(userId: string, name: EventName, args: unknown[]): Promise<void>
}

export interface TicketStore extends Tables {
  /**
   * Runs `fn` in one transaction. A {@link Refusal} it answers rolls the transaction back and
   * is answered as it is; events it emits are stored in the transaction, and `wake` is pinged
   * once it has committed. Inside `fn` only `tx` may be used. A run the database breaks off to
   * resolve a deadlock (or a serialization conflict) is rolled back and `fn` runs again, up to
   * {@link TRANSACT_ATTEMPTS} times in all; so is a run whose connection failed before its
   * `commit` was sent (once more, by `transaction()`), so `fn` must keep nothing outside the
   * transaction.
   */
  transact<T>(fn: (tx: TicketTx) => Promise<T>): Promise<T>
}

export interface TicketStoreDeps {
  sql: Sql
  /** Milliseconds since the epoch. */
  clock: () => number
  /** Pinged after each commit that emitted events, for waiting long-polls. */
  wake?: Wake
  /** Projects and list pages whose shared reads the pages cache between requests ({@link CACHED_READS} unless told; 0 caches nothing, as the benches measure a page after a write). */
  cachedReads?: number
}

/** How many times {@link TicketStore.transact} runs a transaction the server broke off to retry. */
export const TRANSACT_ATTEMPTS = 4

/** A deadlock (40P01) or serialization failure (40001): the server rolled back; retry. */
function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '40P01' || code === '40001'
}

/** Builds the ticket store. */
export function createTicketStore(deps: TicketStoreDeps): TicketStore {
  const { sql, clock, wake } = deps
  return {
    ...tablesOn(sql, clock, deps.cachedReads ?? CACHED_READS),
    async transact<T>(fn: (tx: TicketTx) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        const emitted: NewEvent[] = []
        try {
          const result = await transaction(
            sql,
            async (q) => {
              // transaction() runs this again after a connection failure: start with no events.
              emitted.length = 0
              const tx: TicketTx = {
                ...tablesOn(q, clock),
                async emit(projectId, name, args) {
                  emitted.push({ project: projectId, name, args, created: clock() })
                },
                async emitTo(userId, name, args) {
                  emitted.push({ project: null, user: userId, name, args, created: clock() })
                },
              }
              const value = await fn(tx)
              // Thrown out of the transaction so it rolls back: a refused write leaves nothing
              // behind (a slug claimed before the refusal, say).
              if (value instanceof Refusal) throw value
              return value
            },
            // The events, in one statement that travels with the `commit`.
            (q) => (emitted.length > 0 ? emitAll(q, emitted) : null),
          )
          if (emitted.length > 0) wake?.ping()
          return result
        } catch (err) {
          if (err instanceof Refusal) return err as T
          // PostgreSQL chose this transaction to break a deadlock (or a serialization conflict):
          // nothing of it was kept, and running it again is what the server asks for.
          if (attempt < TRANSACT_ATTEMPTS && isRetryable(err)) {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt))
            continue
          }
          throw err
        }
      }
    },
  }
}
