/**
 * OpenID Connect settings and start-up (docs/core.md, "Identity provider"): the OIDC_ settings
 * are checked with messages naming the variable; an issuer whose discovery document cannot be
 * read stops the start naming OIDC_ISSUER, unless OIDC_LAZY=1, when the sign-in page says the
 * provider is unreachable and it is read again at the next sign-in; the start log prints the
 * redirect URI to register.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { startApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import type { Logger } from '../src/base/log.ts'
import { OIDC_TEXT, verifiedEmailOf } from '../src/accounts/oidc.ts'
import { createAccountStore } from '../src/accounts/store.ts'
import { testDatabase } from './support/db.ts'
import { CLIENT_ID, CLIENT_SECRET, startTestIssuer } from './support/oidc-issuer.ts'
import { freePort } from './support/ports.ts'

const db = await testDatabase()
const database = { sql: db.sql, kind: 'postgres' as const, close: async () => {} }

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = []
  return { lines, logger: { line: (text) => lines.push(text), flush() {} } }
}

const base = {
  HOST: '127.0.0.1',
  NOTES_PORT: '0',
  TICKETS_PORT: '0',
  IDP_PORT: '0',
  RATE_LIMIT: 'off',
}

test('the OIDC settings are checked with a message naming the variable', () => {
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{ OIDC_CLIENT_ID: 'x' }, /OIDC_CLIENT_ID is set but OIDC_ISSUER is not/],
    [{ OIDC_ONLY: '1' }, /OIDC_ONLY is set but OIDC_ISSUER is not/],
    [{ OIDC_ISSUER: 'https://id.example.org' }, /OIDC_CLIENT_ID must be set with OIDC_ISSUER/],
    [
      { OIDC_ISSUER: 'not a url', OIDC_CLIENT_ID: 'x' },
      /OIDC_ISSUER must be an absolute http\(s\) URL/,
    ],
    [
      { OIDC_ISSUER: 'http://id.example.org', OIDC_CLIENT_ID: 'x' },
      /OIDC_ISSUER must be an https URL \(http only for localhost\)/,
    ],
    [
      { OIDC_ISSUER: 'https://id.example.org', OIDC_CLIENT_ID: 'x', OIDC_SCOPES: 'profile email' },
      /OIDC_SCOPES must include 'openid'/,
    ],
    [
      { OIDC_ISSUER: 'https://id.example.org', OIDC_CLIENT_ID: 'x', OIDC_ONLY: 'yes' },
      /OIDC_ONLY must be 1 or 0, not 'yes'/,
    ],
    [
      {
        OIDC_ISSUER: 'https://id.example.org',
        OIDC_CLIENT_ID: 'x',
        AUTH_URL: 'https://auth.example.org',
      },
      /OIDC_ISSUER works with the built-in provider: unset AUTH_URL/,
    ],
  ]
  for (const [env, message] of cases)
    assert.throws(() => loadConfig(env), message, JSON.stringify(env))
})

test('the OIDC settings have their defaults, and the issuer is kept exactly as written', () => {
  const config = loadConfig({
    OIDC_ISSUER: 'https://auth.example.org/application/o/notes/',
    OIDC_CLIENT_ID: 'notes',
  })
  assert.deepEqual(config.oidc, {
    issuer: 'https://auth.example.org/application/o/notes/',
    clientId: 'notes',
    clientSecret: null,
    name: 'Single sign-on',
    only: false,
    scopes: 'openid profile email',
    lazy: false,
  })
})

test('an issuer whose discovery document cannot be read stops the start with a message naming OIDC_ISSUER', async () => {
  const nobody = `http://127.0.0.1:${await freePort()}`
  const config = loadConfig({ ...base, OIDC_ISSUER: nobody, OIDC_CLIENT_ID: CLIENT_ID })
  await assert.rejects(
    startApp(config, { logger: capture().logger, db: database }),
    (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `^OIDC_ISSUER ${nobody}: its discovery document cannot be read \\(.+\\); set OIDC_LAZY=1 to start anyway$`,
        ),
      )
      return true
    },
  )
})

test('with OIDC_LAZY=1 the start goes on, the sign-in says the provider is unreachable, and it is read once it answers', async () => {
  const issuerPort = await freePort()
  const idpPort = await freePort()
  const log = capture()
  const config = loadConfig({
    ...base,
    IDP_PORT: String(idpPort),
    OIDC_ISSUER: `http://127.0.0.1:${issuerPort}`,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
    OIDC_LAZY: '1',
  })
  const app = await startApp(config, { logger: log.logger, db: database })
  after(() => app.close())
  const idp = app.servers.idp!.url
  assert.ok(
    log.lines.some((l) =>
      l.startsWith(`idp: OIDC_ISSUER http://127.0.0.1:${issuerPort} cannot be read yet (`),
    ),
    log.lines.join('\n'),
  )
  assert.ok(
    log.lines.includes(
      `idp: Single sign-on through http://127.0.0.1:${issuerPort}; register the redirect URI http://localhost:${idpPort}/oidc/callback there`,
    ),
    log.lines.join('\n'),
  )

  const refused = await fetch(`${idp}/oidc/start`, { redirect: 'manual' })
  assert.equal(refused.status, 503)
  assert.match(
    await refused.text(),
    new RegExp(OIDC_TEXT.unreachable('Single sign-on').replace(/[.()]/g, '\\$&')),
  )

  const issuer = await startTestIssuer({
    port: issuerPort,
    redirectUri: `http://localhost:${idpPort}/oidc/callback`,
  })
  after(() => issuer.stop())
  const started = await fetch(`${idp}/oidc/start`, { redirect: 'manual' })
  assert.equal(started.status, 303)
  const location = new URL(started.headers.get('location')!)
  assert.equal(location.origin, issuer.issuer)
  assert.equal(location.searchParams.get('client_id'), CLIENT_ID)
  assert.equal(
    location.searchParams.get('redirect_uri'),
    `http://localhost:${idpPort}/oidc/callback`,
  )
  assert.equal(location.searchParams.get('code_challenge_method'), 'S256')
  assert.equal(location.searchParams.get('scope'), 'openid profile email')
  for (const name of ['state', 'nonce', 'code_challenge'])
    assert.ok((location.searchParams.get(name) ?? '').length >= 32, name)
  assert.match(
    started.headers.get('set-cookie')!,
    /^idp_oidc=[A-Za-z0-9_-]+; Max-Age=600; Path=\/oidc\/; HttpOnly; SameSite=Lax$/,
  )
})

test('a callback without the flow cookie of its browser is refused with a page, not an error', async () => {
  const config = loadConfig({
    ...base,
    OIDC_ISSUER: 'http://127.0.0.1:9',
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_LAZY: '1',
  })
  const app = await startApp(config, { logger: capture().logger, db: database })
  after(() => app.close())
  for (const cookie of [
    '',
    'idp_oidc=forged',
    'idp_oidc=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  ]) {
    const res = await fetch(`${app.servers.idp!.url}/oidc/callback?code=abc&state=def`, {
      headers: { cookie },
    })
    assert.equal(res.status, 400)
    assert.equal(res.headers.get('x-error-code'), 'login_failed')
    assert.match(await res.text(), /This sign-in was not started in this browser/)
  }
})

test('a login code carrying a failure is answered by the exchange as 400 with the reason, once', async () => {
  const config = loadConfig({
    ...base,
    OIDC_ISSUER: 'http://127.0.0.1:9',
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_LAZY: '1',
  })
  const app = await startApp(config, { logger: capture().logger, db: database })
  after(() => app.close())
  const code = await createAccountStore({ sql: db.sql, clock: Date.now, hooks: [] }).issueFailure(
    OIDC_TEXT.denied('Single sign-on'),
  )
  const exchange = () =>
    fetch(`${app.servers.idp!.url}/api/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'dev-key', secret: 'dev-secret', code }),
    })
  const first = await exchange()
  assert.equal(first.status, 400)
  assert.deepEqual(await first.json(), {
    error: 'You declined the sign-in at Single sign-on, so you are not signed in.',
  })
  const again = await exchange()
  assert.deepEqual(await again.json(), { error: 'login code unknown, used or expired' })
})

test("only an email the provider says it verified is taken as the account's confirmed address", () => {
  assert.equal(
    verifiedEmailOf({ email: 'ada@example.org', email_verified: true }),
    'ada@example.org',
  )
  assert.equal(verifiedEmailOf({ email: 'ada@example.org' }), null)
  assert.equal(verifiedEmailOf({ email: 'ada@example.org', email_verified: 'true' }), null)
  assert.equal(verifiedEmailOf({ email: 'not an address', email_verified: true }), null)
  assert.equal(verifiedEmailOf({ email: `${'a'.repeat(250)}@b.org`, email_verified: true }), null)
  assert.equal(verifiedEmailOf({ email_verified: true }), null)
})
