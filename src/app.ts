/**
 * Starts the whole application as `npm start` runs it: the database (with migrations), the
 * development identity provider when `AUTH_URL` is unset, and the services `SERVICES` names.
 */
import type { Config, ServiceName } from './config.ts'
import { openDatabase, type Database } from './db.ts'
import { createDevIdentityProvider } from './dev-idp.ts'
import { serve, type Served } from './http.ts'
import { createIdentityProvider } from './idp.ts'
import type { Logger } from './log.ts'
import { migrate } from './migrate.ts'
import { createNotesService } from './notes/service.ts'
import type { Service, ServiceDeps } from './service.ts'
import { createSessions, loadSessionSecret } from './session.ts'
import { createTicketsService } from './tickets/service.ts'

export interface App {
  db: Database
  servers: Partial<Record<ServiceName | 'devIdp', Served>>
  /** Graceful stop: servers first (waiting requests answered), then the database. */
  close(): Promise<void>
}

const FACTORIES: Record<ServiceName, (deps: ServiceDeps) => Service> = {
  notes: createNotesService,
  tickets: createTicketsService,
}

/** Starts everything `config` asks for; resolves once every server listens. */
export async function startApp(config: Config, options: { logger: Logger; clock?: () => number; db?: Database }): Promise<App> {
  const { logger } = options
  const clock = options.clock ?? Date.now
  const db = options.db ?? (await openDatabase(config))
  const servers: App['servers'] = {}
  const services: Service[] = []
  const close = async () => {
    await Promise.all(Object.values(servers).map((s) => s.close()))
    for (const service of services) await service.close?.()
    await db.close()
  }
  try {
    const applied = await migrate(db.sql)
    if (applied.length > 0) logger.line(`database: applied ${applied.join(', ')}`)
    const secret = await loadSessionSecret(db.sql, config.sessionSecret)

    let authUrl = config.authUrl
    if (authUrl === null) {
      const dev = createDevIdentityProvider({ apiKey: config.apiKey, apiSecret: config.apiSecret })
      servers.devIdp = await serve({ name: 'dev-idp', routes: dev.routes, host: config.host, port: config.devIdpPort, logger })
      authUrl = `http://localhost:${servers.devIdp.port}`
      logger.line(`dev-idp: DEVELOPMENT ONLY identity provider at ${authUrl}: it signs anyone in as anyone (set AUTH_URL to use a real one)`)
    }
    const idp = createIdentityProvider({ authUrl, apiKey: config.apiKey, apiSecret: config.apiSecret })
    const ready = async () => {
      await db.sql`select 1`
      return true
    }

    for (const name of config.services) {
      const publicUrl = name === 'notes' ? config.notesUrl : config.ticketsUrl
      const sessions = createSessions({ sql: db.sql, secret, service: name, secure: publicUrl.startsWith('https:'), clock })
      const service = FACTORIES[name]({ sql: db.sql, config, clock, idp, sessions, logger, publicUrl })
      services.push(service)
      const port = name === 'notes' ? config.notesPort : config.ticketsPort
      servers[name] = await serve({ name, routes: service.routes, notFound: service.notFound, host: config.host, port, logger, ready })
      logger.line(`${name}: listening on ${servers[name].url} (public URL ${publicUrl}, ${db.kind} database)`)
    }
  } catch (err) {
    await close().catch(() => {})
    throw err
  }
  return { db, servers, close }
}
