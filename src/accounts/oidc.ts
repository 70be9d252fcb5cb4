/**
 * Sign-in through an organisation's OpenID Connect provider (docs/core.md, "Identity provider"):
 * the authorization code flow with PKCE (S256), `state` and `nonce`, through `openid-client`,
 * which checks the ID token (issuer, audience, expiry, nonce, signature from the provider's
 * JWKS). A person there is the pair (issuer, `sub`) in `idp_oidc_identities`.
 *
 * `GET /oidc/start` keeps the flow's secrets (state, nonce, PKCE verifier) and the sign-in's
 * request in a sealed, short-lived HttpOnly cookie of the browser that started it, so the
 * callback completes only in that browser (no login CSRF through `/oidc/callback`). The
 * callback ends like any sign-in, at {@link ProviderCore.finish}; a failure with a sign-in
 * request from an app goes back to the app as a login code that carries the reason, which the
 * exchange answers as its error text, so the app shows it on its failure page (decisions,
 * section 3, unchanged).
 */
import { createHmac } from 'node:crypto'
import * as client from 'openid-client'
import nacl from 'tweetnacl'
import { serializeCookie } from '../http/cookie.ts'
import type { HttpRoute } from '../http/handler.ts'
import { html, type Html } from '../http/html.ts'
import type { Logger } from '../base/log.ts'
import { reason as why, refuse, type RefusalStatus } from '../http/refusal.ts'
import type { Request } from '../http/request.ts'
import { redirect, type Headers, type Response } from '../http/response.ts'
import { textDefect } from '../http/text.ts'
import type { InviteContext } from './service-hooks.ts'
import { requestQuery, type LoginRequest } from './pages.ts'
import type { ProviderCore } from './provider-core.ts'
import type { Account, AccountStore, SignUpPlace } from './store.ts'
import { REFUSED } from './messages.ts'

/** Sign-in through an organisation's OpenID Connect provider: `OIDC_*` (src/config.ts reads them). */
export interface OidcConfig {
  /** The issuer's URL; everything else comes from its discovery document. */
  issuer: string
  clientId: string
  /** Null for a public client (no client authentication, PKCE only). */
  clientSecret: string | null
  /** The sign-in button's words (`OIDC_NAME`). */
  name: string
  /** `OIDC_ONLY=1`: no passwords, no sign-up form; the sign-in page goes straight to the issuer. */
  only: boolean
  scopes: string
  /** `OIDC_LAZY=1`: an unreadable discovery document does not stop the start; it is retried. */
  lazy: boolean
}

const FLOW_COOKIE = 'idp_oidc'
const FLOW_SECONDS = 600
/** How long the provider has to answer discovery, the token request and userinfo (seconds). */
const TIMEOUT_SECONDS = 5

/** What a person reads when an OpenID Connect sign-in fails, each in one place. */
export const OIDC_TEXT = {
  unreachable: (name: string) =>
    `${name} cannot be reached just now, so the sign-in could not finish. Try again in a few minutes.`,
  wrongState:
    'The answer from the sign-in provider does not belong to the sign-in this browser started (wrong state). Go back to the app and press Sign in again.',
  noFlow:
    'This sign-in was not started in this browser, or it took longer than 10 minutes. Go back to the app and press Sign in again.',
  codeUsed: 'The sign-in code from the provider has expired or was used already. Sign in again.',
  otherClient:
    "The provider's answer was meant for another app (an ID token for another client), so it is refused. Sign in again; if it happens again, tell the owner of this site.",
  denied: (name: string) => `You declined the sign-in at ${name}, so you are not signed in.`,
  refused: (name: string, why: string) => `${name} refused the sign-in: ${why}`,
  unknownKey:
    "The provider's answer is signed with a key this site does not know yet. Sign in again: the provider's keys are read again.",
  unverified:
    "The provider's answer could not be verified, so it is refused. Sign in again; if it happens again, tell the owner of this site.",
  disabled: 'This account is disabled. Ask the owner of this site.',
  mustInvite: (name: string, who: string) =>
    `You signed in at ${name} as ${who}, but you have no account here yet. An owner of this site must invite you: ask them for a sign-up link or an invite to a project, and open it.`,
  linkUsed: 'This link has been used or has expired. Ask the owner for a new one.',
  identityTaken: (name: string) =>
    `This ${name} identity is linked to another account here already. Ask the owner of this site.`,
} as const

/** The organisation's provider, discovered once (again after a key it does not know). */
export interface RelyingParty {
  /** The client configuration; rejects with a short reason when the discovery document cannot be read. */
  configuration(): Promise<client.Configuration>
  /** Forgets the discovered configuration (and its cached keys), so the next sign-in reads them again. */
  forget(): void
}

export function createRelyingParty(settings: OidcConfig): RelyingParty {
  let discovered: Promise<client.Configuration> | null = null
  const insecure = settings.issuer.startsWith('http:')
  async function discover(): Promise<client.Configuration> {
    const found = await client.discovery(
      new URL(settings.issuer),
      settings.clientId,
      undefined,
      undefined,
      {
        execute: insecure ? [client.allowInsecureRequests] : [],
        timeout: TIMEOUT_SECONDS,
      },
    )
    const metadata = found.serverMetadata()
    const config = new client.Configuration(
      metadata,
      settings.clientId,
      undefined,
      clientAuthentication(settings.clientSecret, metadata.token_endpoint_auth_methods_supported),
    )
    if (insecure) client.allowInsecureRequests(config)
    config.timeout = TIMEOUT_SECONDS
    return config
  }
  return {
    configuration() {
      discovered ??= discover().catch((err: unknown) => {
        discovered = null
        throw new Error(describe(err))
      })
      return discovered
    },
    forget() {
      discovered = null
    },
  }
}

/** Client authentication as the discovery document allows it: Basic when listed (or nothing is), else the form's fields. */
function clientAuthentication(
  secret: string | null,
  supported: string[] | undefined,
): client.ClientAuth {
  if (secret === null) return client.None()
  if (supported === undefined || supported.includes('client_secret_basic'))
    return client.ClientSecretBasic(secret)
  return client.ClientSecretPost(secret)
}

/** A short, secret-free description of an error for the log. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const code = (err as { code?: unknown }).code
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
  return `${typeof code === 'string' ? `${code} ` : ''}${err.message}${cause}`
}

/** What a person reads for an error of the flow, by what went wrong. */
function reasonOf(err: unknown, name: string): string {
  if (err instanceof client.AuthorizationResponseError) {
    if (err.error === 'access_denied') return OIDC_TEXT.denied(name)
    return OIDC_TEXT.refused(name, clip(err.error_description ?? err.error))
  }
  if (err instanceof client.ResponseBodyError) {
    if (err.error === 'invalid_grant') return OIDC_TEXT.codeUsed
    return OIDC_TEXT.refused(name, clip(err.error_description ?? err.error))
  }
  const code = (err as { code?: unknown }).code
  // openid-client names the kind of failure; the oauth4webapi error it wraps (the cause) says
  // which parameter or claim.
  const inner = err instanceof Error && err.cause instanceof Error ? err.cause : err
  const detail = inner instanceof Error ? inner.message : ''
  const claim = (inner as { cause?: { claim?: unknown } }).cause?.claim
  if (code === 'OAUTH_INVALID_RESPONSE' && /"state"/.test(detail)) return OIDC_TEXT.wrongState
  if (
    code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' &&
    (claim === 'aud' || claim === 'azp' || /"aud"|"azp"/.test(detail))
  )
    return OIDC_TEXT.otherClient
  if (code === 'OAUTH_KEY_SELECTION_FAILED') return OIDC_TEXT.unknownKey
  if (typeof code === 'string' && code.startsWith('OAUTH_')) return OIDC_TEXT.unverified
  // fetch's TypeError, a timeout's AbortError or DOMException: no answer came.
  return OIDC_TEXT.unreachable(name)
}

function clip(text: string): string {
  const plain = textDefect(text) === null ? text : 'no reason given'
  return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain
}

/** What one flow keeps in its cookie. */
interface Flow {
  state: string
  nonce: string
  verifier: string
  request: LoginRequest
  /** A sign-up link the person came through, or ''. */
  link: string
  /** An identity link from the owner, or ''. */
  connect: string
  expires: number
}

export interface OidcDeps {
  settings: OidcConfig
  party: RelyingParty
  store: AccountStore
  core: ProviderCore
  publicUrl: string
  secret: Uint8Array
  clock: () => number
  logger: Logger | null
  /** A provider page in its frame. */
  page(
    req: Request,
    status: number,
    title: string,
    content: (csrf: string) => Html,
    options?: { headers?: Headers },
  ): Response
  /** How a first sign-in may make an account: a live sign-up link, an invite, open sign-up; null when none allows it. */
  signUpAllowed(
    link: string,
    request: LoginRequest,
  ): Promise<{ link: string; invite: InviteContext | null; place?: SignUpPlace } | null>
}

export interface Oidc {
  routes: HttpRoute[]
  /** The sign-in button's words. */
  name: string
  issuer: string
  /** Where the sign-in button goes for this request (and sign-up link). */
  startHref(request: LoginRequest, extra?: Record<string, string>): string
}

export function createOidc(deps: OidcDeps): Oidc {
  const { settings, party, store, core, clock } = deps
  const name = settings.name
  const secure = deps.publicUrl.startsWith('https:')
  const redirectUri = `${deps.publicUrl}/oidc/callback`
  const sealKey = createHmac('sha256', deps.secret)
    .update('idp oidc flow')
    .digest()
    .subarray(0, nacl.secretbox.keyLength)
  const clearFlow = serializeCookie(FLOW_COOKIE, '', {
    httpOnly: true,
    secure,
    sameSite: 'Lax',
    path: '/oidc/',
    maxAgeSeconds: 0,
  })

  const flowCookie = (flow: Flow) => {
    const nonce = nacl.randomBytes(nacl.secretbox.nonceLength)
    const box = nacl.secretbox(new TextEncoder().encode(JSON.stringify(flow)), nonce, sealKey)
    const value = Buffer.concat([nonce, box]).toString('base64url')
    return serializeCookie(FLOW_COOKIE, value, {
      httpOnly: true,
      secure,
      sameSite: 'Lax',
      path: '/oidc/',
      maxAgeSeconds: FLOW_SECONDS,
    })
  }

  /** The flow this browser started and has not finished, or null. */
  function flowOf(req: Request): Flow | null {
    const value = req.cookies[FLOW_COOKIE]
    if (value === undefined || value.length > 4000 || !/^[A-Za-z0-9_-]+$/.test(value)) return null
    const bytes = new Uint8Array(Buffer.from(value, 'base64url'))
    const n = nacl.secretbox.nonceLength
    const opened =
      bytes.length > n
        ? nacl.secretbox.open(bytes.subarray(n), bytes.subarray(0, n), sealKey)
        : null
    if (!opened) return null
    const flow = JSON.parse(new TextDecoder().decode(opened)) as Flow
    return flow.expires > clock() ? flow : null
  }

  const log = (text: string) => deps.logger?.line(`idp: oidc ${text}`)

  /** A failure: back to the app with a code carrying the reason, or a page here when no app asked. */
  async function failure(
    req: Request,
    request: LoginRequest | null,
    reason: string,
    status: RefusalStatus = 400,
  ): Promise<Response> {
    const headers: Headers = { 'set-cookie': clearFlow, 'cache-control': 'no-store' }
    if (request !== null && request.returnTo !== '') {
      const target = new URL(request.returnTo)
      target.searchParams.set('idp_code', await store.issueFailure(reason))
      return redirect(303, target.href, 'sign-in failed', headers)
    }
    return core.refused(req, refuse(status, why('login_failed', reason)), {
      title: 'Sign-in failed',
      next: { href: '/login', text: 'Sign in' },
      headers,
    })
  }

  // GET /oidc/start?key&return&link&connect
  async function start(req: Request): Promise<Response> {
    const checked = core.loginRequest(req.query.get('key'), req.query.get('return'))
    if (!checked.ok) return core.refused(req, checked)
    const request = checked.request
    let config: client.Configuration
    try {
      config = await party.configuration()
    } catch (err) {
      log(`sign-in failed: provider unreachable: ${(err as Error).message}`)
      return failure(req, request, OIDC_TEXT.unreachable(name), 503)
    }
    const flow: Flow = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      request,
      link: (req.query.get('link') ?? '').slice(0, 100),
      connect: (req.query.get('connect') ?? '').slice(0, 100),
      expires: clock() + FLOW_SECONDS * 1000,
    }
    const target = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: settings.scopes,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    })
    return redirect(303, target.href, undefined, {
      'set-cookie': flowCookie(flow),
      'cache-control': 'no-store',
    })
  }

  // GET /oidc/callback
  async function callback(req: Request): Promise<Response> {
    const flow = flowOf(req)
    if (flow === null) {
      log('sign-in failed: no flow of this browser')
      return failure(req, null, OIDC_TEXT.noFlow)
    }
    let config: client.Configuration
    let claims: Record<string, unknown>
    try {
      config = await party.configuration()
      const tokens = await client.authorizationCodeGrant(
        config,
        new URL(`${redirectUri}${req.search === '' ? '' : `?${req.search}`}`),
        {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        },
      )
      claims = { ...tokens.claims() }
      if (displayNameOf(claims) === null && config.serverMetadata().userinfo_endpoint) {
        claims = {
          ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))),
          ...claims,
        }
      }
    } catch (err) {
      if ((err as { code?: unknown }).code === 'OAUTH_KEY_SELECTION_FAILED') party.forget()
      const reason = reasonOf(err, name)
      log(`sign-in failed: ${reason} (${describe(err)})`)
      return failure(req, flow.request, reason)
    }
    const issuer = String(claims.iss)
    const subject = String(claims.sub)
    const displayName = displayNameOf(claims) ?? subject.slice(0, 100)
    const email = verifiedEmailOf(claims)
    /** Signs the account in, its address set first when the provider verified one. */
    const enter = async (account: Account) => {
      if (email !== null) await store.setVerifiedEmail(account.id, email)
      return signIn(req, { ...account, email: email ?? account.email }, flow.request)
    }

    if (flow.connect !== '') {
      const linked = await store.useIdentityLink(flow.connect, issuer, subject)
      if (!linked.ok)
        return failure(
          req,
          flow.request,
          linked.code === 'link_used' ? OIDC_TEXT.linkUsed : OIDC_TEXT.identityTaken(name),
        )
      log(`linked an identity to account ${linked.account.id}`)
      return enter(linked.account)
    }

    const known = await store.byIdentity(issuer, subject)
    if (known !== null) {
      if (known.disabled) return failure(req, flow.request, OIDC_TEXT.disabled)
      return enter(known)
    }

    // A first sign-in: the owner on a fresh install, else as sign-up allows.
    if (!(await store.hasAccounts())) {
      const made = await store.createForIdentity({
        issuer,
        subject,
        name: displayName,
        owner: true,
      })
      if (made.ok) return enter(made.account)
    }
    const allowed = await deps.signUpAllowed(flow.link, flow.request)
    if (allowed === null || (allowed.link !== '' && !(await store.useSignupLink(allowed.link)))) {
      log('sign-in refused: no account, and no sign-up link, invite or open sign-up')
      return core.refused(
        req,
        refuse(403, why('signup_closed', OIDC_TEXT.mustInvite(name, displayName))),
        { title: 'Ask for an invite', headers: { 'set-cookie': clearFlow } },
      )
    }
    // Through an invite, the account takes one of its sign-up places in the same transaction.
    const made = await store.createForIdentity({
      issuer,
      subject,
      name: displayName,
      owner: false,
      place: allowed.place,
    })
    if (!made.ok && made.code === 'place_taken') {
      log('sign-in refused: the invite has made as many accounts as it has uses')
      return core.refused(req, refuse(403, REFUSED.invitePlacesTaken), {
        title: 'Ask for an invite',
        headers: { 'set-cookie': clearFlow },
      })
    }
    if (!made.ok) {
      // Made by a sign-in of the same identity a moment ago.
      const again = await store.byIdentity(issuer, subject)
      if (again === null || again.disabled) return failure(req, flow.request, OIDC_TEXT.unverified)
      return enter(again)
    }
    return enter(made.account)
  }

  async function signIn(req: Request, account: Account, request: LoginRequest): Promise<Response> {
    const response = await core.finish(req, account, request)
    const cookies = response.headers?.['set-cookie']
    const list = cookies === undefined ? [] : Array.isArray(cookies) ? cookies : [cookies]
    return { ...response, headers: { ...response.headers, 'set-cookie': [...list, clearFlow] } }
  }

  // GET /oidc/link?link=… (an identity link the owner made)
  async function linkPage(req: Request): Promise<Response> {
    const link = req.query.get('link') ?? ''
    const account = await store.identityLinkAccount(link)
    if (account === null)
      return core.refused(req, refuse(404, why('link_used', OIDC_TEXT.linkUsed)), {
        title: `Link ${name}`,
        next: { href: '/login', text: 'Sign in' },
      })
    return deps.page(req, 200, `Link ${name}`, () =>
      linkContent(name, account, `/oidc/start?${new URLSearchParams({ connect: link })}`),
    )
  }

  return {
    name,
    issuer: settings.issuer,
    routes: [
      { method: 'GET', path: '/oidc/start', handler: start, rateLimit: 'signin' },
      { method: 'GET', path: '/oidc/callback', handler: callback, rateLimit: 'signin' },
      { method: 'GET', path: '/oidc/link', handler: linkPage },
    ],
    startHref(request, extra = {}) {
      return `/oidc/start${requestQuery(request, extra)}`
    },
  }
}

/**
 * The address the claims say the provider verified (`email` with `email_verified: true`, at most
 * 254 characters, one `@`), or null: it is taken as confirmed (docs/notifications.md).
 */
export function verifiedEmailOf(claims: Record<string, unknown>): string | null {
  const { email } = claims
  if (claims.email_verified !== true || typeof email !== 'string') return null
  if (email.length > 254 || !/^[^\s@<>,;"]+@[^\s@<>,;"]+$/.test(email)) return null
  return textDefect(email) === null ? email : null
}

/** The display name a provider's claims give: `name`, else `preferred_username`, else `email`; null when none. */
export function displayNameOf(claims: Record<string, unknown>): string | null {
  for (const key of ['name', 'preferred_username', 'email']) {
    const value = claims[key]
    if (typeof value === 'string' && value.trim() !== '' && textDefect(value) === null)
      return value.trim().slice(0, 100)
  }
  return null
}

/** The page of an identity link: who it is for, and the button to the organisation's provider. */
function linkContent(name: string, account: Account, href: string): Html {
  return html`<div class="card stack"><p>Sign in at ${name} to link it to the account <strong>${account.name}</strong>. From then on you sign in with ${name}; your notes and projects stay yours.</p>
<a class="button primary wide-button" href="${href}">Continue with ${name}</a></div>`
}

/** The sign-in button to the organisation's provider. */
export function oidcButton(name: string, href: string): Html {
  return html`<a class="button primary wide-button sso" href="${href}">${name}</a>`
}
