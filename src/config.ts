/**
 * Settings from environment variables (and an optional `.env` file), checked once at start-up.
 * The table in README.md, "Configuration", lists every variable.
 */
import { existsSync } from 'node:fs'
import type { OidcConfig } from './accounts/oidc.ts'
import { DEFAULT_LIMITS, type Limit, type Limits } from './limits/rate-limit.ts'
import type { ServiceName, ServiceSettings } from './service.ts'

/** Every setting; a service sees its part, {@link ServiceSettings}. */
export interface Config extends ServiceSettings {
  host: string
  notesPort: number
  ticketsPort: number
  /** The identity provider's port: `IDP_PORT`, else the older name `DEV_IDP_PORT`. */
  idpPort: number
  /** The identity provider's public address (`IDP_URL`), or null for `http://localhost:<port>`. */
  idpUrl: string | null
  /** `DEV_SIGNIN=1`: the development provider (anyone as anyone) instead of the built-in accounts. */
  devSignin: boolean
  notesUrl: string
  ticketsUrl: string
  dataDir: string
  /** The identity provider's base URL; null means the development provider runs. */
  authUrl: string | null
  apiKey: string
  apiSecret: string
  /** 32 bytes, or null: one is generated once and kept in the database. */
  sessionSecret: Uint8Array | null
  services: ServiceName[]
  /** The rate limits of each class of route, or null when `RATE_LIMIT=off`. */
  rateLimits: Limits | null
  /** How many reverse proxies in front to trust for `X-Forwarded-For`; 0 reads the socket's address. */
  trustProxy: number
  /** Sign-in through an organisation's OpenID Connect provider (`OIDC_ISSUER`), or null. */
  oidc: OidcConfig | null
}

/** Reads `.env` from the working directory into `process.env` when the file exists. */
export function loadEnvFile(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path)
}

/** Builds the configuration from `env`; throws a message naming the variable when one is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1'
  const notesPort = port(env, 'NOTES_PORT', 3001)
  const ticketsPort = port(env, 'TICKETS_PORT', 3002)
  const idpPort = env.IDP_PORT ? port(env, 'IDP_PORT', 3003) : port(env, 'DEV_IDP_PORT', 3003)
  const authUrl = env.AUTH_URL ? baseUrl(env, 'AUTH_URL') : null
  const ticketsUrl = env.TICKETS_URL
    ? baseUrl(env, 'TICKETS_URL')
    : `http://localhost:${ticketsPort}`
  return {
    host,
    notesPort,
    ticketsPort,
    idpPort,
    idpUrl: env.IDP_URL ? baseUrl(env, 'IDP_URL') : null,
    devSignin: flag(env, 'DEV_SIGNIN', 'the development provider'),
    notesUrl: env.NOTES_URL ? baseUrl(env, 'NOTES_URL') : `http://localhost:${notesPort}`,
    ticketsUrl,
    databaseUrl: env.DATABASE_URL || null,
    dataDir: env.DATA_DIR || './data',
    authUrl,
    apiKey: env.API_KEY || 'dev-key',
    apiSecret: env.API_SECRET || 'dev-secret',
    sessionSecret: env.SESSION_SECRET ? secret(env.SESSION_SECRET) : null,
    smtpUrl: env.SMTP_URL ? smtpUrl(env.SMTP_URL) : null,
    mailFrom: env.MAIL_FROM
      ? mailFrom(env.MAIL_FROM)
      : `notifications@${new URL(ticketsUrl).hostname}`,
    notifyDelaySeconds: notifyDelay(env.NOTIFY_DELAY),
    services: services(env.SERVICES),
    rateLimits: rateLimits(env),
    trustProxy: trustProxy(env.TRUST_PROXY),
    oidc: oidc(env, authUrl),
    webhookAllowPrivate: flag(
      env,
      'WEBHOOK_ALLOW_PRIVATE',
      'webhooks may target private addresses',
    ),
    uploadMaxMb: megabytes(env, 'UPLOAD_MAX_MB', 25),
    projectFilesMaxMb: megabytes(env, 'PROJECT_FILES_MAX_MB', 2000),
  }
}

function oidc(env: NodeJS.ProcessEnv, authUrl: string | null): OidcConfig | null {
  if (!env.OIDC_ISSUER) {
    for (const name of [
      'OIDC_CLIENT_ID',
      'OIDC_CLIENT_SECRET',
      'OIDC_ONLY',
      'OIDC_SCOPES',
      'OIDC_LAZY',
      'OIDC_NAME',
    ]) {
      if (env[name])
        throw new Error(
          `${name} is set but OIDC_ISSUER is not: set OIDC_ISSUER to your provider's issuer URL`,
        )
    }
    return null
  }
  if (authUrl !== null)
    throw new Error(
      'OIDC_ISSUER works with the built-in provider: unset AUTH_URL, or set OpenID Connect up at your own provider',
    )
  if (flag(env, 'DEV_SIGNIN', 'the development provider'))
    throw new Error('OIDC_ISSUER works with the built-in accounts, not with DEV_SIGNIN=1')
  // Kept exactly as written: the discovery document's `issuer` must equal it, and some
  // providers' issuers end with a slash (Authentik's do).
  const issuer = env.OIDC_ISSUER
  baseUrl(env, 'OIDC_ISSUER')
  const host = new URL(issuer).hostname
  if (
    issuer.startsWith('http:') &&
    host !== 'localhost' &&
    host !== '127.0.0.1' &&
    host !== '[::1]'
  ) {
    throw new Error(`OIDC_ISSUER must be an https URL (http only for localhost), not '${issuer}'`)
  }
  if (!env.OIDC_CLIENT_ID)
    throw new Error(
      'OIDC_CLIENT_ID must be set with OIDC_ISSUER: the client id your provider gave this site',
    )
  const scopes = (env.OIDC_SCOPES || 'openid profile email').trim().split(/\s+/)
  if (!scopes.includes('openid'))
    throw new Error(`OIDC_SCOPES must include 'openid', not '${env.OIDC_SCOPES}'`)
  const name = (env.OIDC_NAME || 'Single sign-on').trim()
  if (name.length > 60) throw new Error('OIDC_NAME must be at most 60 characters')
  return {
    issuer,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET || null,
    name,
    only: flag(env, 'OIDC_ONLY'),
    scopes: scopes.join(' '),
    lazy: flag(env, 'OIDC_LAZY'),
  }
}

/** A 0/1 setting: unset or `0` is off, `1` on; `meaning` says in the error what `1` does. */
function flag(env: NodeJS.ProcessEnv, name: string, meaning?: string): boolean {
  const raw = env[name]
  if (!raw || raw === '0') return false
  if (raw === '1') return true
  throw new Error(`${name} must be 1${meaning ? ` (${meaning})` : ''} or 0, not '${raw}'`)
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (!raw) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${name} must be a port number from 0 to 65535, not '${raw}'`)
  return n
}

function baseUrl(env: NodeJS.ProcessEnv, name: string): string {
  const raw = env[name] as string
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, not '${raw}'`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${name} must be an http(s) URL, not '${raw}'`)
  return raw.replace(/\/+$/, '')
}

function secret(raw: string): Uint8Array {
  const bytes = Buffer.from(raw, 'base64')
  if (bytes.length !== 32)
    throw new Error('SESSION_SECRET must be 32 bytes in base64 (try: openssl rand -base64 32)')
  return new Uint8Array(bytes)
}

function services(raw: string | undefined): ServiceName[] {
  if (!raw) return ['notes', 'tickets']
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const name of names) {
    if (name !== 'notes' && name !== 'tickets')
      throw new Error(`SERVICES takes 'notes' and/or 'tickets', not '${name}'`)
  }
  return [...new Set(names)] as ServiceName[]
}

function rateLimits(env: NodeJS.ProcessEnv): Limits | null {
  if (env.RATE_LIMIT === 'off') return null
  return {
    api: limit(env, 'RATE_LIMIT', DEFAULT_LIMITS.api),
    signin: limit(env, 'RATE_LIMIT_SIGNIN', DEFAULT_LIMITS.signin),
  }
}

/** `<requests a second>,<burst>`, e.g. `100,1000`; the burst at least 1. */
function limit(env: NodeJS.ProcessEnv, name: string, fallback: Limit): Limit {
  const raw = env[name]
  if (!raw) return fallback
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*,\s*([0-9]+)\s*$/.exec(raw)
  const rate = Number(match?.[1])
  const burst = Number(match?.[2])
  if (match === null || !(rate > 0) || !(burst >= 1) || !Number.isSafeInteger(burst)) {
    const off = name === 'RATE_LIMIT' ? "'off' or " : ''
    throw new Error(
      `${name} must be ${off}'<requests a second>,<burst>' such as '${fallback.rate},${fallback.burst}', not '${raw}'`,
    )
  }
  return { rate, burst }
}

function trustProxy(raw: string | undefined): number {
  if (!raw) return 0
  const n = Number(raw)
  if (!/^[0-9]{1,2}$/.test(raw) || !Number.isInteger(n)) {
    throw new Error(
      `TRUST_PROXY must be the number of reverse proxies in front (0 to 99), not '${raw}'`,
    )
  }
  return n
}

/** `smtp://` or `smtps://`, with a host. */
function smtpUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    // Not echoed: it may hold a password.
    throw new Error('SMTP_URL must be a URL such as smtp://user:pass@mail.example:587')
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '')
    throw new Error(
      `SMTP_URL must start with smtp:// or smtps:// and name a host (smtp://user:pass@mail.example:587), not '${url.protocol}//${url.host}${url.pathname}'`,
    )
  return raw
}

/** One mail address, bare (`me@example.org`) or with a name (`Tickets <me@example.org>`). */
function mailFrom(raw: string): string {
  const value = raw.trim()
  const address = /^[^<>]*<([^<>]+)>$/.exec(value)?.[1] ?? value
  if (!/^[^\s@<>,;"]+@[^\s@<>,;"]+$/.test(address) || value.length > 254)
    throw new Error(
      `MAIL_FROM must be a mail address such as notifications@tickets.example or 'Tickets <notifications@tickets.example>', not '${raw}'`,
    )
  return value
}

/** Whole seconds from 0 to 86400 (a day). */
function notifyDelay(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 120
  const n = Number(raw.trim())
  if (!/^[0-9]{1,5}$/.test(raw.trim()) || n > 86_400)
    throw new Error(`NOTIFY_DELAY must be a whole number of seconds from 0 to 86400, not '${raw}'`)
  return n
}

/** A size in MB: a whole number from 1 to 1,000,000. */
function megabytes(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (!raw) return fallback
  const n = Number(raw)
  if (!/^[0-9]{1,7}$/.test(raw.trim()) || n < 1 || n > 1_000_000)
    throw new Error(`${name} must be a whole number of MB from 1 to 1000000, not '${raw}'`)
  return n
}
