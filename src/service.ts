/**
 * What a service is given at start-up and what it hands back: its route table.
 * State lives in the factory's closure, built once, never in module-level singletons.
 */
import type { Config } from './config.ts'
import type { Sql } from './db.ts'
import type { Handler, HttpRoute } from './handler.ts'
import type { IdentityProvider } from './idp.ts'
import type { Logger } from './log.ts'
import type { Sessions } from './session.ts'

export interface ServiceDeps {
  sql: Sql
  config: Config
  /** Milliseconds since the epoch; tests pass their own. */
  clock: () => number
  idp: IdentityProvider
  sessions: Sessions
  logger: Logger
  /** The service's public base URL, without a trailing slash. */
  publicUrl: string
}

export interface Service {
  routes: HttpRoute[]
  /** Answers paths no route matches (JSON 404 when absent). */
  notFound?: Handler
  /** Called at shutdown, after the server stopped accepting. */
  close?(): Promise<void> | void
}
