/**
 * What a service is given at start-up and what it hands back: its route table.
 * State lives in the factory's closure, built once, never in module-level singletons.
 */
import type { Sql } from './db/client.ts'
import type { Handler, HttpRoute } from './http/handler.ts'
import type { IdentityProvider } from './auth/idp.ts'
import type { Logger } from './base/log.ts'
import type { Request } from './http/request.ts'
import type { Sessions } from './auth/session.ts'

/** The services `npm start` can run (`SERVICES`). */
export type ServiceName = 'notes' | 'tickets'

/** The settings a service reads; src/config.ts reads them from the environment. */
export interface ServiceSettings {
  /** `SMTP_URL`: where mail is sent, or null when none is. */
  smtpUrl: string | null
  /** `MAIL_FROM`: the sender of every mail; `notifications@<host of TICKETS_URL>` unless set. */
  mailFrom: string
  /** `NOTIFY_DELAY`: how long, in seconds, a ticket's events gather before they are mailed. */
  notifyDelaySeconds: number
  /** `DATABASE_URL`, or null for the embedded database. */
  databaseUrl: string | null
  /** `WEBHOOK_ALLOW_PRIVATE=1`: webhooks may target loopback and private addresses. */
  webhookAllowPrivate: boolean
  /** `UPLOAD_MAX_MB`: the largest file a ticket may be given, in MB of 1,048,576 bytes. */
  uploadMaxMb: number
  /** `PROJECT_FILES_MAX_MB`: the most a project's files may take, in MB. */
  projectFilesMaxMb: number
}

export interface ServiceDeps {
  sql: Sql
  config: ServiceSettings
  /** Milliseconds since the epoch; tests pass their own. */
  clock: () => number
  idp: IdentityProvider
  sessions: Sessions
  logger: Logger
  /** The service's public base URL, without a trailing slash. */
  publicUrl: string
  /** Where the person's menu leads (docs/core.md, "Finding your way"); absent: nowhere but Sign out. */
  places?: Places
}

/**
 * The addresses the person's menu on every page links to: the built-in provider's `/account` and
 * `/admin` (null with an outside provider or the development one, which have neither), and each
 * service's address (null when it is not started).
 */
export interface Places {
  provider: string | null
  notes: string | null
  tickets: string | null
}

export interface Service {
  routes: HttpRoute[]
  /** Answers paths no route matches (JSON 404 when absent). */
  notFound?: Handler
  /**
   * Who the credential the rate limiter counts a request by (its `Authorization` header, else
   * the session cookie) belongs to, when this service knows it (a token, a key, a signed-in
   * session): `user:<id>` for a person, `key:<id>` for a project key; null otherwise. Only such
   * a credential counts on a bucket of its owner's (src/limits/rate-limit.ts).
   */
  verifyCredential?(req: Request): Promise<string | null>
  /** Called at shutdown, after the server stopped accepting. */
  close?(): Promise<void> | void
}
