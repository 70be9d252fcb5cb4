/**
 * Builds what a service factory needs, for tests that call handlers without a socket:
 * a test schema's `sql`, a controllable clock, a scripted identity provider, and sessions.
 */
import { loadConfig } from '../../src/config.ts'
import type { Sql } from '../../src/db/client.ts'
import {
  exchangeResult,
  loginFailed,
  type ExchangeResult,
  type Identity,
  type IdentityProvider,
} from '../../src/auth/idp.ts'
import { createLogger, type Logger } from '../../src/base/log.ts'
import type { ServiceDeps, ServiceName } from '../../src/service.ts'
import { createSessions, loadSessionSecret } from '../../src/auth/session.ts'
import type { Assets } from '../../src/http/assets.ts'
import { buildTicketAssets } from '../../src/tickets/pages/web.ts'
import { buildWebApp, type Built } from '../../src/notes/web.ts'

/** A clock the test moves by hand: it stands still until `advance(ms)`. */
export function testClock(start = 1_700_000_000_000): {
  now: () => number
  advance(ms: number): void
} {
  let t = start
  return { now: () => t, advance: (ms) => void (t += ms) }
}

/**
 * An identity provider that knows the codes the test hands it: `fake.code(identity)` makes a
 * one-time code; any other code answers `unknown login code`; `fake.fail(reason)` makes the
 * next exchange fail with that reason. Both are read through the real client's
 * `exchangeResult`, so an identity or reason the client refuses is refused here too.
 * `fake.useProvider(real)`: **Sign in** leads to a real provider (the built-in one, say), which
 * answers every code the test did not hand out, and hears every sign-out.
 */
export function fakeIdentityProvider(authUrl = 'http://idp.test'): IdentityProvider & {
  code(identity: Identity): string
  fail(reason: string): void
  useProvider(real: IdentityProvider): void
  /** The sign-in ids apps handed to `signOut`, in order. */
  signedOut: string[]
} {
  const codes = new Map<string, Identity>()
  let failure: string | null = null
  let n = 0
  let real: IdentityProvider | null = null
  return {
    loginUrl: (returnUrl) =>
      real?.loginUrl(returnUrl) ??
      `${authUrl}/login?key=dev-key&return=${encodeURIComponent(returnUrl)}`,
    async exchange(code): Promise<ExchangeResult> {
      // Read as the real client reads the provider's answer (src/auth/idp.ts).
      if (failure !== null) {
        const error = failure
        failure = null
        return exchangeResult(400, { error })
      }
      const identity = codes.get(code)
      codes.delete(code)
      if (!identity && real) return real.exchange(code)
      return identity ? exchangeResult(200, identity) : loginFailed('unknown login code')
    },
    signedOut: [],
    async signOut(sid) {
      this.signedOut.push(sid)
      return real ? real.signOut(sid) : true
    },
    useProvider(provider) {
      real = provider
    },
    code(identity) {
      const code = `code-${++n}`
      codes.set(code, identity)
      return code
    },
    fail(reason) {
      failure = reason
    },
  }
}

/** Service dependencies on `sql` for `service`, with public URL `http://localhost:300x`. */
export async function serviceDeps(
  sql: Sql,
  service: ServiceName,
  options: { clock?: () => number; env?: NodeJS.ProcessEnv } = {},
) {
  const config = loadConfig(options.env ?? {})
  const clock = options.clock ?? Date.now
  const idp = fakeIdentityProvider()
  const publicUrl = service === 'notes' ? config.notesUrl : config.ticketsUrl
  const secret = await loadSessionSecret(sql, config.sessionSecret)
  const sessions = createSessions({ sql, secret, service, secure: false, clock })
  const deps: ServiceDeps & {
    buildAssets: () => Promise<Assets>
    build: () => Promise<Built>
  } = {
    sql,
    config,
    clock,
    idp,
    sessions,
    logger: createLogger(null),
    publicUrl,
    buildAssets: ticketAssets,
    build: notesApp,
  }
  return { deps, idp, sessions, config }
}

/**
 * Each service's browser files, bundled once for the test process and handed to every service
 * it makes (about 90 ms of CPU a build, and the unit tier made some 90 services). The first
 * service to ask bundles them.
 */
const once = <T>(build: () => Promise<T>) => {
  let built: Promise<T> | undefined
  return () => (built ??= build())
}
const ticketAssets = once(buildTicketAssets)
const notesApp = once(buildWebApp)

/**
 * A logger for handlers called without a socket: request lines are dropped, and an unexpected
 * exception's logged 500 is written to stderr, so a failing test shows its stack.
 */
export function testLogger(): Logger {
  return {
    line(text) {
      if (text.includes(' error: ')) process.stderr.write(`${text}\n`)
    },
    flush() {},
  }
}
