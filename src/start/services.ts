/** Start-up: one service (notes or tickets) built from its dependencies and served on its port. */
import type { Config } from '../config.ts'
import type { Database } from '../db/client.ts'
import type { Logger } from '../base/log.ts'
import type { IdentityProvider } from '../auth/idp.ts'
import { createSessions } from '../auth/session.ts'
import { serve, type Served } from '../http/server.ts'
import type { RateLimiter } from '../limits/rate-limit.ts'
import { createNotesService } from '../notes/service.ts'
import type { Places, Service, ServiceDeps, ServiceName } from '../service.ts'
import { createTicketsService } from '../tickets/service.ts'
import { startLimiter } from './limits.ts'
import { portNamed, type PlannedService } from './ports.ts'

const FACTORIES: Record<ServiceName, (deps: ServiceDeps) => Service> = {
  notes: createNotesService,
  tickets: createTicketsService,
}

const WHAT: Record<ServiceName, string> = {
  notes: 'the notes sync service',
  tickets: 'the ticket tracker',
}

export interface ServingDeps {
  config: Config
  db: Database
  clock: () => number
  logger: Logger
  /** The sessions' secret. */
  secret: Uint8Array
  idp: IdentityProvider
  /** Where the person's menu leads. */
  places: Places
  /** `/healthz`'s readiness (src/db/client.ts, createReadiness). */
  ready: () => Promise<boolean>
  /** Told of the service and its limiter as soon as they exist, so that a later failure still stops them. */
  onService: (service: Service) => void
  onLimiter: (limiter: RateLimiter) => void
}

/** Builds the service `planned` names and serves it; resolves with its server and its log line. */
export async function startService(
  deps: ServingDeps,
  planned: PlannedService,
): Promise<{ server: Served; line: string }> {
  const { config, db, clock, logger } = deps
  const { name, port, publicUrl } = planned
  const sessions = createSessions({
    sql: db.sql,
    secret: deps.secret,
    service: name,
    secure: publicUrl.startsWith('https:'),
    clock,
  })
  const service = FACTORIES[name]({
    sql: db.sql,
    config,
    clock,
    idp: deps.idp,
    sessions,
    logger,
    publicUrl,
    places: deps.places,
  })
  deps.onService(service)
  const limiter = startLimiter(config, db, clock, name, {
    cookieName: sessions.cookieName,
    verify: service.verifyCredential,
  })
  if (limiter) deps.onLimiter(limiter)
  const server = await portNamed(name === 'notes' ? 'NOTES_PORT' : 'TICKETS_PORT', port, () =>
    serve({
      name,
      routes: service.routes,
      notFound: service.notFound,
      host: config.host,
      port,
      ...(planned.held ? { held: planned.held.take() } : {}),
      logger,
      ready: deps.ready,
      limiter,
    }),
  )
  return { server, line: `${name}: ${WHAT[name]} on the ${db.kind} database, open ${publicUrl}` }
}
