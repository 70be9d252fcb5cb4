/**
 * What every part of the ticket service is handed: built once in {@link createTicketsService}
 * from the service dependencies, never a module-level singleton.
 */
import type { Sql, TransactionSql } from '../db.ts'
import type { IdentityProvider } from '../idp.ts'
import type { Logger } from '../log.ts'
import type { Sessions } from '../session.ts'
import type { Credentials } from './auth.ts'
import type { EventName } from './events.ts'
import type { Mailer } from './mail.ts'

/** Stores a live event for a project inside the current transaction. */
export type Emit = (projectId: string, name: EventName, args: unknown[]) => Promise<void>

export interface Context {
  sql: Sql
  clock: () => number
  /** The public base URL, without a trailing slash. */
  publicUrl: string
  /** The origin of the public URL, for the cross-site check. */
  origin: string
  sessions: Sessions
  idp: IdentityProvider
  logger: Logger
  /** Null when `SMTP_URL` is unset: invites are then not mailed. */
  mailer: Mailer | null
  credentials: Credentials
  /**
   * Runs `fn` in one transaction; events it emits are stored in that transaction, and live
   * pollers are woken once it has committed. A result with `ok: false` (a refusal) rolls the
   * transaction back and is returned as it is. Inside `fn` only `tx` may be used.
   */
  transact<T>(fn: (tx: TransactionSql, emit: Emit) => Promise<T>): Promise<T>
}
