/**
 * Starts the whole application as `npm start` runs it, in its steps (src/start/): the database
 * and its migrations, the sessions' secret, the services' ports, the identity provider when
 * `AUTH_URL` is unset (built-in accounts, or with `DEV_SIGNIN=1` the development provider), and
 * the services `SERVICES` names, each behind its rate limits.
 */
import type { Config } from './config.ts'
import type { ServiceHooks } from './accounts/service-hooks.ts'
import { createReadiness, openDatabase, type Database } from './db/client.ts'
import type { Served } from './http/server.ts'
import { createIdentityProvider } from './auth/idp.ts'
import type { Logger } from './base/log.ts'
import type { RateLimiter } from './limits/rate-limit.ts'
import type { Service, ServiceName } from './service.ts'
import { loadSessionSecret } from './auth/session.ts'
import { vacuumHourly } from './db/vacuum.ts'
import { notesAccountHooks } from './notes/account-hooks.ts'
import { ticketsAccountHooks } from './tickets/account-hooks.ts'
import { runMigrations } from './start/migrations.ts'
import { planServices, type PlannedService } from './start/ports.ts'
import { startProvider } from './start/provider.ts'
import { startService } from './start/services.ts'

export interface App {
  db: Database
  /** The services' servers, and the identity provider's (`idp`) when `AUTH_URL` is unset. */
  servers: Partial<Record<ServiceName | 'idp', Served>>
  /** Graceful stop: servers first (waiting requests answered), then the database. */
  close(): Promise<void>
}

/** Starts everything `config` asks for; resolves once every server listens. */
export async function startApp(
  config: Config,
  options: { logger: Logger; clock?: () => number; db?: Database },
): Promise<App> {
  const { logger } = options
  const clock = options.clock ?? Date.now
  const db = options.db ?? (await openDatabase(config))
  const servers: App['servers'] = {}
  const services: Service[] = []
  const limiters: RateLimiter[] = []
  // A server's autovacuum keeps the planner's statistics; the embedded database needs us to.
  const statistics = db.kind === 'embedded' ? vacuumHourly(db.sql, logger) : null
  const close = async () => {
    await Promise.all(Object.values(servers).map((s) => s.close()))
    await statistics?.stop()
    for (const limiter of limiters) await limiter.close()
    for (const service of services) await service.close?.()
    await db.close()
  }
  const onLimiter = (limiter: RateLimiter) => limiters.push(limiter)
  let planned: PlannedService[] = []
  try {
    await runMigrations(config, db, !options.db, logger)
    const secret = await loadSessionSecret(db.sql, config.sessionSecret)
    // The services' addresses first: the provider lets sign-ins return only there.
    planned = await planServices(config)
    const addressOf = (name: ServiceName) => planned.find((p) => p.name === name)?.publicUrl ?? null
    const ready = createReadiness(db.sql)

    let authUrl = config.authUrl
    const providerLines: string[] = []
    if (authUrl === null) {
      const onServer = (server: Served) => (servers.idp = server)
      // What each service does for the provider, served here or not: another process may serve
      // it on this database.
      const hooks: ServiceHooks[] = [
        notesAccountHooks(),
        ticketsAccountHooks({ sql: db.sql, clock, publicUrl: addressOf('tickets') }),
      ]
      const provider = await startProvider({
        config,
        db,
        clock,
        logger,
        secret,
        ready,
        addressOf,
        hooks,
        onLimiter,
        onServer,
      })
      authUrl = provider.authUrl
      providerLines.push(...provider.lines)
    }
    const idp = createIdentityProvider({
      authUrl,
      apiKey: config.apiKey,
      apiSecret: config.apiSecret,
      keyInLinks: config.authUrl !== null || config.devSignin,
    })

    const lines: string[] = []
    // The built-in accounts have `/account` and `/admin`; an outside provider and the development one do not.
    const places = {
      provider: config.authUrl === null && !config.devSignin ? authUrl : null,
      notes: addressOf('notes'),
      tickets: addressOf('tickets'),
    }
    const serving = {
      config,
      db,
      clock,
      logger,
      secret,
      idp,
      places,
      ready,
      onService: (s: Service) => services.push(s),
      onLimiter,
    }
    for (const p of planned) {
      const { server, line } = await startService(serving, p)
      servers[p.name] = server
      lines.push(line)
    }
    // The log ends with one line per service: what it is and the one address to open.
    for (const line of [...providerLines, ...lines]) logger.line(line)
  } catch (err) {
    await close().catch(() => {})
    // The ports held for services that never listened on them.
    for (const p of planned) await p.held?.release()
    throw err
  }
  return { db, servers, close }
}
