/**
 * A real OpenID provider for the tests: `oidc-provider` on a port of this machine, with its own
 * development login and consent pages (any login name signs in as that subject; "Continue"
 * consents; "[ Cancel ]" denies), a client registered for the app under test, PKCE required.
 * It can be stopped and started again on the same address, start with new signing keys (a key
 * rotation: its JWKS changes), and hand out ID tokens made for another client.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import Provider from 'oidc-provider'
import { decodeJwt, importJWK, SignJWT } from 'jose'

export const CLIENT_ID = 'notes-tickets'
export const CLIENT_SECRET = 'test-client-secret'
export const OTHER_CLIENT_ID = 'another-app'

/** Claims of the people the tests sign in as, by login name; any other name gets only `preferred_username`. */
export const PEOPLE: Record<string, Record<string, string | boolean>> = {
  ada: { name: 'Ada Lovelace', email: 'ada@example.org', email_verified: true },
  grace: { preferred_username: 'grace', email: 'grace@example.org' },
  emailonly: { email: 'edsger@example.org' },
}

export interface TestIssuer {
  /** The issuer's URL (OIDC_ISSUER). */
  issuer: string
  /** Stops it: connections end, the port is free. */
  stop(): Promise<void>
  /** Starts it again on the same address; `rotate` gives it a new signing key (and JWKS). */
  start(options?: { rotate?: boolean }): Promise<void>
  /** While true, the token endpoint's ID token is made for another client (same key, `aud` another app). */
  tokensForAnotherClient: boolean
  /**
   * Called with each redirect back to the app (its callback with `code` and `state`): what it
   * returns replaces the address, and `stop` stops the provider once that answer is sent, so
   * the app's token request finds nobody.
   */
  onCallback: ((url: URL) => { url?: URL; stop?: boolean } | void) | null
}

function signingKey(): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256' }
}

export async function startTestIssuer(options: {
  port: number
  redirectUri: string
}): Promise<TestIssuer> {
  const issuer = `http://127.0.0.1:${options.port}`
  let key = signingKey()
  let server: Server | null = null

  const self: TestIssuer = {
    issuer,
    tokensForAnotherClient: false,
    onCallback: null,
    async stop() {
      const running = server
      server = null
      if (!running) return
      running.closeAllConnections()
      await new Promise((resolve) => running.close(resolve))
    },
    async start(startOptions = {}) {
      if (startOptions.rotate) key = signingKey()
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            redirect_uris: [options.redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
          {
            client_id: OTHER_CLIENT_ID,
            client_secret: 'another-secret',
            redirect_uris: [options.redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        jwks: { keys: [key] },
        async findAccount(_ctx: unknown, sub: string) {
          return {
            accountId: sub,
            claims: async () => ({ sub, ...(PEOPLE[sub] ?? { preferred_username: sub }) }),
          }
        },
        claims: {
          openid: ['sub'],
          profile: ['name', 'preferred_username'],
          email: ['email', 'email_verified'],
        },
        // The profile's claims in the ID token too, as Google and Keycloak put them.
        conformIdTokenClaims: false,
        features: { devInteractions: { enabled: true } },
        cookies: { keys: ['test-issuer-cookie-key'] },
        pkce: { required: () => true },
      })
      provider.use(async (ctx, next) => {
        await next()
        const location = String(ctx.response.get('location') ?? '')
        if (self.onCallback && location.startsWith(`${options.redirectUri}?`)) {
          const answer = self.onCallback(new URL(location)) ?? {}
          if (answer.url) ctx.redirect(answer.url.href)
          if (answer.stop) ctx.res.once('finish', () => void self.stop())
        }
        const body = ctx.body as { id_token?: string } | undefined
        if (self.tokensForAnotherClient && ctx.path === '/token' && body?.id_token) {
          const claims = decodeJwt(body.id_token)
          const signer = await importJWK(key as never, 'RS256')
          body.id_token = await new SignJWT({
            ...claims,
            aud: OTHER_CLIENT_ID,
            azp: OTHER_CLIENT_ID,
          })
            .setProtectedHeader({ alg: 'RS256', kid: key.kid as string })
            .sign(signer)
        }
      })
      const listening = createServer(provider.callback())
      await new Promise<void>((resolve) => listening.listen(options.port, '127.0.0.1', resolve))
      server = listening
    },
  }
  await self.start()
  return self
}

/**
 * A person at the issuer without a browser: from the authorization address the app sent them to,
 * follows the issuer's redirects with its cookies, signs in on its login form as `login`,
 * consents, and answers the address the issuer sends them back to (the app's callback with
 * `code` and `state`), at the first redirect that leaves the issuer.
 */
export async function throughIssuer(authorization: string, login: string): Promise<URL> {
  const origin = new URL(authorization).origin
  const jar = new Map<string, string>()
  let next = new URL(authorization)
  let form: Record<string, string> | null = null
  for (let step = 0; step < 20; step++) {
    const response = await fetch(next, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    form = null
    const location = response.headers.get('location')
    if (location !== null) {
      next = new URL(location, next)
      if (next.origin !== origin) return next
      continue
    }
    const page = await response.text()
    const action =
      /<form autocomplete="off" action="([^"]+)" method="post">\s*<input type="hidden" name="prompt" value="(login|consent)"\/>/.exec(
        page,
      )
    if (response.status !== 200 || action === null)
      throw new Error(
        `the issuer answered ${response.status} at ${next.pathname}: ${page.slice(0, 300)}`,
      )
    next = new URL(action[1]!.replaceAll('&amp;', '&'), next)
    form =
      action[2] === 'login'
        ? { prompt: 'login', login, password: 'any password' }
        : { prompt: 'consent' }
  }
  throw new Error('the issuer did not send the person back to the app in 20 steps')
}
