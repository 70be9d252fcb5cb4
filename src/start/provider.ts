/**
 * Start-up: the identity provider, when `AUTH_URL` is unset: the built-in accounts or, with
 * `DEV_SIGNIN=1`, the development provider, on a server of its own.
 */
import type { Config } from '../config.ts'
import type { Database } from '../db/client.ts'
import type { Logger } from '../base/log.ts'
import { createDevIdentityProvider } from '../accounts/dev-idp.ts'
import { bundleProviderAssets } from '../accounts/assets.ts'
import { providerPolicy } from '../accounts/page.ts'
import { createAccountsProvider } from '../accounts/provider.ts'
import { createRelyingParty } from '../accounts/oidc.ts'
import type { ServiceHooks } from '../accounts/service-hooks.ts'
import { createAccountStore } from '../accounts/store.ts'
import type { HttpRoute } from '../http/handler.ts'
import { serve, type Served } from '../http/server.ts'
import type { RateLimiter } from '../limits/rate-limit.ts'
import type { ServiceName } from '../service.ts'
import { createMailer } from '../tickets/mailer/mailer.ts'
import { startLimiter } from './limits.ts'
import { holdPort, portNamed, publicUrlOf, type HeldPort } from './ports.ts'

export interface ProviderDeps {
  config: Config
  db: Database
  clock: () => number
  logger: Logger
  /** The sessions' secret (src/auth/session.ts), which also seals the provider's. */
  secret: Uint8Array
  /** `/healthz`'s readiness (src/db/client.ts, createReadiness). */
  ready: () => Promise<boolean>
  /** Each service's public address, or null when it is not started: sign-ins return only there. */
  addressOf: (name: ServiceName) => string | null
  /** What every service does for the provider (src/accounts/service-hooks.ts). */
  hooks: readonly ServiceHooks[]
  /** Told of the limiter and the server as soon as they run, so that a later failure still stops them. */
  onLimiter: (limiter: RateLimiter) => void
  onServer: (server: Served) => void
}

export interface StartedProvider {
  /** Its public address, the services' `AUTH_URL`. */
  authUrl: string
  /** The lines the log ends with, before the services'. */
  lines: string[]
}

/** Starts the provider's server; resolves once it listens. */
export async function startProvider(deps: ProviderDeps): Promise<StartedProvider> {
  const held = deps.config.idpPort === 0 ? await holdPort(deps.config.host) : null
  try {
    return await startProviderOn(deps, held)
  } finally {
    // Only when the start failed before the server took the port.
    await held?.release()
  }
}

async function startProviderOn(
  deps: ProviderDeps,
  held: HeldPort | null,
): Promise<StartedProvider> {
  const { config, db, clock, logger, secret } = deps
  const port = held?.port ?? config.idpPort
  const authUrl =
    config.idpUrl ??
    publicUrlOf(`http://localhost:${config.idpPort}`, config.host, config.idpPort, port)
  const services = { notes: deps.addressOf('notes'), tickets: deps.addressOf('tickets') }
  const assets = await bundleProviderAssets()
  const frame = {
    stylesheet: assets.url('style'),
    policy: providerPolicy(
      [services.notes, services.tickets].filter((u): u is string => u !== null),
    ),
  }
  // The organisation's provider is read at start: an unreadable issuer stops it, unless OIDC_LAZY=1.
  const party = config.oidc ? createRelyingParty(config.oidc) : null
  if (config.oidc && party) {
    try {
      await party.configuration()
    } catch (err) {
      if (!config.oidc.lazy)
        throw new Error(
          `OIDC_ISSUER ${config.oidc.issuer}: its discovery document cannot be read (${(err as Error).message}); set OIDC_LAZY=1 to start anyway`,
          { cause: err },
        )
      logger.line(
        `idp: OIDC_ISSUER ${config.oidc.issuer} cannot be read yet (${(err as Error).message}); it is tried again at each sign-in (OIDC_LAZY=1)`,
      )
    }
  }
  const oidc = config.oidc && party ? { settings: config.oidc, party } : null
  const routes: HttpRoute[] = config.devSignin
    ? [
        ...createDevIdentityProvider({ apiKey: config.apiKey, apiSecret: config.apiSecret, frame })
          .routes,
        { method: 'GET', path: '/assets/:file', handler: assets.handler },
      ]
    : createAccountsProvider({
        sql: db.sql,
        clock,
        apiKey: config.apiKey,
        apiSecret: config.apiSecret,
        publicUrl: authUrl,
        services,
        hooks: deps.hooks,
        secret,
        trustProxy: config.trustProxy,
        assets,
        oidc,
        logger,
        // The same SMTP server and sender as the tracker's mail; the provider sees only `send`.
        mailer: config.smtpUrl ? createMailer(config.smtpUrl, config.mailFrom, logger) : null,
      }).routes
  const limiter = startLimiter(config, db, clock, 'idp')
  if (limiter) deps.onLimiter(limiter)
  const server = await portNamed('IDP_PORT', port, () =>
    serve({
      name: config.devSignin ? 'dev-idp' : 'idp',
      routes,
      host: config.host,
      port,
      ...(held ? { held: held.take() } : {}),
      logger,
      ready: deps.ready,
      limiter,
    }),
  )
  deps.onServer(server)
  const lines: string[] = []
  if (config.devSignin) {
    logger.line(
      `dev-idp: DEVELOPMENT ONLY identity provider at ${authUrl}: it signs anyone in as anyone (DEV_SIGNIN=1; unset it for real accounts)`,
    )
  } else {
    lines.push(`idp: sign-in with built-in accounts at ${authUrl}`)
    if (config.oidc) {
      lines.push(
        `idp: ${config.oidc.name} through ${config.oidc.issuer}${config.oidc.only ? ' only (OIDC_ONLY=1)' : ''}; register the redirect URI ${authUrl}/oidc/callback there`,
      )
    }
    if (!(await createAccountStore({ sql: db.sql, clock, hooks: deps.hooks }).hasAccounts())) {
      lines.push(
        `idp: no account yet: the first person to press Sign in in either app creates the owner account`,
      )
    }
  }
  return { authUrl, lines }
}
