/**
 * Starts the whole application as `npm start` runs it: the database (with migrations), the
 * development identity provider when `AUTH_URL` is unset, and the services `SERVICES` names.
 */
import { createServer, type AddressInfo } from 'node:net'
import type { Config, ServiceName } from './config.ts'
import { createReadiness, openDatabase, type Database } from './db.ts'
import { createDevIdentityProvider } from './dev-idp.ts'
import { serve, type Served } from './http.ts'
import { createIdentityProvider } from './idp.ts'
import type { RequestLogger } from './log.ts'
import { migrate } from './migrate.ts'
import { createRateLimiter, type RateLimiter } from './rate-limit.ts'
import { createSharedBuckets } from './rate-limit-store.ts'
import { createNotesService } from './notes/service.ts'
import type { Service, ServiceDeps } from './service.ts'
import { createSessions, loadSessionSecret } from './session.ts'
import { keepStatistics } from './statistics.ts'
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

const WHAT: Record<ServiceName, string> = { notes: 'the notes sync service', tickets: 'the ticket tracker' }

/**
 * The address to open. Unset, `NOTES_URL` and `TICKETS_URL` are `http://localhost:<port>`; this
 * puts in the port really listened on (for port 0), and the bound address when `HOST` names one
 * other than this machine's loopback or every address, so that the printed address, the bound
 * one and the one the sign-in returns to (where the cookie lives) are the same.
 */
function publicUrlOf(url: string, host: string, configuredPort: number, port: number): string {
  if (url !== `http://localhost:${configuredPort}`) return url
  const local = ['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::', ''].includes(host)
  return `http://${local ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`
}

/** A free port on `host`, for a service told to take any (port 0) whose public URL must name it. */
async function freePort(host: string): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, host, resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** Runs `listen`; a port in use becomes a message naming the variable that moves it. */
async function portNamed<T>(variable: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    throw new Error(`port ${port} is already in use by another program: set ${variable} to a free port`)
  }
}

/** Starts everything `config` asks for; resolves once every server listens. */
export async function startApp(config: Config, options: { logger: RequestLogger; clock?: () => number; db?: Database }): Promise<App> {
  const { logger } = options
  const clock = options.clock ?? Date.now
  const db = options.db ?? (await openDatabase(config))
  const servers: App['servers'] = {}
  const services: Service[] = []
  const limiters: RateLimiter[] = []
  // A server's autovacuum keeps the planner's statistics; the embedded database needs us to.
  const statistics = db.kind === 'embedded' ? keepStatistics(db.sql, logger) : null
  const close = async () => {
    await Promise.all(Object.values(servers).map((s) => s.close()))
    await statistics?.stop()
    for (const limiter of limiters) await limiter.close()
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
      servers.devIdp = await portNamed('DEV_IDP_PORT', config.devIdpPort, () =>
        serve({ name: 'dev-idp', routes: dev.routes, host: config.host, port: config.devIdpPort, logger }),
      )
      authUrl = `http://localhost:${servers.devIdp.port}`
      logger.line(`dev-idp: DEVELOPMENT ONLY identity provider at ${authUrl}: it signs anyone in as anyone (set AUTH_URL to use a real one)`)
    }
    const idp = createIdentityProvider({ authUrl, apiKey: config.apiKey, apiSecret: config.apiSecret })
    const ready = createReadiness(db.sql)

    const lines: string[] = []
    for (const name of config.services) {
      const configured = name === 'notes' ? config.notesPort : config.ticketsPort
      const port = configured === 0 ? await freePort(config.host) : configured
      const publicUrl = publicUrlOf(name === 'notes' ? config.notesUrl : config.ticketsUrl, config.host, configured, port)
      const sessions = createSessions({ sql: db.sql, secret, service: name, secure: publicUrl.startsWith('https:'), clock })
      const service = FACTORIES[name]({ sql: db.sql, config, clock, idp, sessions, logger, publicUrl })
      services.push(service)
      const limiter = config.rateLimits
        ? createRateLimiter({
            limits: config.rateLimits,
            clock,
            cookieName: sessions.cookieName,
            trustProxy: config.trustProxy,
            // Processes share a PostgreSQL server; the embedded database has one process.
            shared: config.databaseUrl !== null ? createSharedBuckets(db.sql, name) : null,
            verify: service.verifyCredential,
          })
        : null
      if (limiter) {
        limiters.push(limiter)
        limiter.start()
      }
      servers[name] = await portNamed(name === 'notes' ? 'NOTES_PORT' : 'TICKETS_PORT', port, () =>
        serve({ name, routes: service.routes, notFound: service.notFound, host: config.host, port, logger, ready, limiter }),
      )
      lines.push(`${name}: ${WHAT[name]} on the ${db.kind} database, open ${publicUrl}`)
    }
    // The log ends with one line per service: what it is and the one address to open.
    for (const line of lines) logger.line(line)
  } catch (err) {
    await close().catch(() => {})
    throw err
  }
  return { db, servers, close }
}
