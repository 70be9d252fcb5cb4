/**
 * Starts the whole application as `npm start` runs it: the database (with migrations), the
 * identity provider when `AUTH_URL` is unset (built-in accounts, or with `DEV_SIGNIN=1` the
 * development provider), and the services `SERVICES` names.
 */
import { createServer, type AddressInfo } from 'node:net'
import type { Config } from './config.ts'
import { connect, createReadiness, openDatabase, type Database } from './db/client.ts'
import { createDevIdentityProvider } from './accounts/dev-idp.ts'
import { bundleProviderAssets } from './accounts/assets.ts'
import { providerPolicy } from './accounts/page.ts'
import { createAccountsProvider } from './accounts/provider.ts'
import { createRelyingParty } from './accounts/oidc.ts'
import { createAccountStore } from './accounts/store.ts'
import type { HttpRoute } from './http/handler.ts'
import { serve, type Served } from './http/server.ts'
import { createIdentityProvider } from './auth/idp.ts'
import type { Logger } from './base/log.ts'
import { migrate } from './db/migrate.ts'
import { createRateLimiter, type RateLimiter } from './limits/rate-limit.ts'
import { createSharedBuckets } from './limits/shared-buckets.ts'
import { createNotesService } from './notes/service.ts'
import type { Service, ServiceDeps, ServiceName } from './service.ts'
import { createSessions, loadSessionSecret } from './auth/session.ts'
import { vacuumHourly } from './db/vacuum.ts'
import { createTicketsService } from './tickets/service.ts'

export interface App {
  db: Database
  /** The services' servers, and the identity provider's (`idp`) when `AUTH_URL` is unset. */
  servers: Partial<Record<ServiceName | 'idp', Served>>
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
    throw new Error(`port ${port} is already in use by another program: set ${variable} to a free port`, { cause: err })
  }
}

/** Starts everything `config` asks for; resolves once every server listens. */
export async function startApp(config: Config, options: { logger: Logger; clock?: () => number; db?: Database }): Promise<App> {
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
  try {
    // A migration may rightly run longer than the pool's answer deadline (a rewrite of a large
    // table), so on a server of our own opening it runs on a client without one.
    const migrator = config.databaseUrl && !options.db ? connect(config.databaseUrl, { max: 1, answerTimeout: null }) : db.sql
    const applied = await migrate(migrator).finally(() => (migrator === db.sql ? undefined : migrator.end({ timeout: 5 })))
    if (applied.length > 0) logger.line(`database: applied ${applied.join(', ')}`)
    const secret = await loadSessionSecret(db.sql, config.sessionSecret)

    // The services' addresses first: the provider lets sign-ins return only there.
    const planned: { name: ServiceName; port: number; publicUrl: string }[] = []
    for (const name of config.services) {
      const configured = name === 'notes' ? config.notesPort : config.ticketsPort
      const port = configured === 0 ? await freePort(config.host) : configured
      planned.push({ name, port, publicUrl: publicUrlOf(name === 'notes' ? config.notesUrl : config.ticketsUrl, config.host, configured, port) })
    }
    const addressOf = (name: ServiceName) => planned.find((p) => p.name === name)?.publicUrl ?? null

    const ready = createReadiness(db.sql)
    let authUrl = config.authUrl
    const providerLines: string[] = []
    if (authUrl === null) {
      const port = config.idpPort === 0 ? await freePort(config.host) : config.idpPort
      authUrl = config.idpUrl ?? publicUrlOf(`http://localhost:${config.idpPort}`, config.host, config.idpPort, port)
      const services = { notes: addressOf('notes'), tickets: addressOf('tickets') }
      const assets = await bundleProviderAssets()
      const frame = { stylesheet: assets.url('style'), policy: providerPolicy([services.notes, services.tickets].filter((u): u is string => u !== null)) }
      // The organisation's provider is read at start: an unreadable issuer stops it, unless OIDC_LAZY=1.
      const party = config.oidc ? createRelyingParty(config.oidc) : null
      if (config.oidc && party) {
        try {
          await party.configuration()
        } catch (err) {
          if (!config.oidc.lazy) throw new Error(`OIDC_ISSUER ${config.oidc.issuer}: its discovery document cannot be read (${(err as Error).message}); set OIDC_LAZY=1 to start anyway`, { cause: err })
          logger.line(`idp: OIDC_ISSUER ${config.oidc.issuer} cannot be read yet (${(err as Error).message}); it is tried again at each sign-in (OIDC_LAZY=1)`)
        }
      }
      const oidc = config.oidc && party ? { settings: config.oidc, party } : null
      const routes: HttpRoute[] = config.devSignin
        ? [...createDevIdentityProvider({ apiKey: config.apiKey, apiSecret: config.apiSecret, frame }).routes, { method: 'GET', path: '/assets/:file', handler: assets.handler }]
        : createAccountsProvider({ sql: db.sql, clock, apiKey: config.apiKey, apiSecret: config.apiSecret, publicUrl: authUrl, services, secret, trustProxy: config.trustProxy, assets, oidc, logger }).routes
      const limiter = config.rateLimits
        ? createRateLimiter({ limits: config.rateLimits, clock, trustProxy: config.trustProxy, shared: config.databaseUrl !== null ? createSharedBuckets(db.sql, 'idp') : null })
        : null
      if (limiter) {
        limiters.push(limiter)
        limiter.start()
      }
      servers.idp = await portNamed('IDP_PORT', port, () =>
        serve({ name: config.devSignin ? 'dev-idp' : 'idp', routes, host: config.host, port, logger, ready, limiter }),
      )
      if (config.devSignin) {
        logger.line(`dev-idp: DEVELOPMENT ONLY identity provider at ${authUrl}: it signs anyone in as anyone (DEV_SIGNIN=1; unset it for real accounts)`)
      } else {
        providerLines.push(`idp: sign-in with built-in accounts at ${authUrl}`)
        if (config.oidc) {
          providerLines.push(`idp: ${config.oidc.name} through ${config.oidc.issuer}${config.oidc.only ? ' only (OIDC_ONLY=1)' : ''}; register the redirect URI ${authUrl}/oidc/callback there`)
        }
        if (!(await createAccountStore({ sql: db.sql, clock }).hasAccounts())) {
          providerLines.push(`idp: no account yet: the first person to press Sign in in either app creates the owner account`)
        }
      }
    }
    const idp = createIdentityProvider({ authUrl, apiKey: config.apiKey, apiSecret: config.apiSecret })

    const lines: string[] = []
    for (const { name, port, publicUrl } of planned) {
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
    for (const line of [...providerLines, ...lines]) logger.line(line)
  } catch (err) {
    await close().catch(() => {})
    throw err
  }
  return { db, servers, close }
}
