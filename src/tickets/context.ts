/**
 * What every part of the ticket service is handed: built once in {@link createTicketsService}
 * from the service dependencies, never a module-level singleton.
 */
import type { IdentityProvider } from '../auth/idp.ts'
import type { Places } from '../service.ts'
import type { Logger } from '../base/log.ts'
import type { Sessions } from '../auth/session.ts'
import type { Credentials } from './credentials.ts'
import type { Mailer } from './mailer/mailer.ts'
import type { TicketStore } from './store/ticket-store.ts'

export interface Context {
  store: TicketStore
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
  /** Where the person's menu leads (src/auth/person-menu.ts). */
  places?: Places
  /** `UPLOAD_MAX_MB`: the largest file, shown beside Attach files. */
  uploadMaxMb: number
}
