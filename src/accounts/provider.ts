/**
 * The built-in identity provider: real accounts in the services' database (docs/core.md,
 * "Identity provider"). It speaks the protocol the services already use (decisions, section 3):
 * `GET /login?key&return` signs a person in and sends the browser back to `return` with
 * `idp_code=<code>`; `POST /api/exchange { key, secret, code }` answers `{ id, name }`.
 *
 * A person signs in with a name and password (scrypt, src/accounts/password.ts) or a passkey;
 * the provider then keeps a session of its own (`idp_session` on its origin, stored hashed, a
 * new id at every sign-in), so the second app signs them in with one click on **Sign in**.
 * Every form carries a token bound to the browser (src/accounts/browser-binding.ts). The first
 * person makes the owner account; later people sign up through a link the owner makes, a
 * project invite, or open sign-up when the owner turns it on.
 *
 * A sign-in method is a way to reach {@link ProviderCore.finish} with an account: passwords and
 * passkeys here, another (an organisation's OpenID Connect provider) beside them.
 */
import { serializeCookie } from '../http/cookie.ts'
import type { Sql } from '../db/client.ts'
import type { Assets } from '../http/assets.ts'
import type { HttpRoute } from '../http/handler.ts'
import type { Html } from '../http/html.ts'
import { parseJsonObject } from '../http/json-validate.ts'
import {
  answerRefusal,
  ERROR_CODE,
  reason,
  refuse,
  type Refusal,
  type RefusalCode,
} from '../http/refusal.ts'
import type { Request } from '../http/request.ts'
import { sameText } from '../http/guards.ts'
import { json, redirect, type Headers, type Response } from '../http/response.ts'
import { createSignInAttempts, type SignInAttempts } from './attempts.ts'
import { cookiesOf, expired, readForm } from './forms.ts'
import { API_REFUSED, REFUSED, TEXT } from './messages.ts'
import { createBrowserBinding } from './browser-binding.ts'
import {
  inviteContextOf,
  refusedEmailOf,
  takeInviteSignupOf,
  type InviteContext,
  type ServiceHooks,
} from './service-hooks.ts'
import { createHashGate, type HashGate } from './hash-gate.ts'
import { cleanName } from './names.ts'
import { cookieName } from './cookies.ts'
import { shownName } from '../auth/shown-name.ts'
import { addressKey, clientAddress } from '../limits/rate-limit.ts'
import { providerPage, providerPolicy, type PageFrame } from './page.ts'
import {
  hashPassword,
  passwordDefect,
  PASSWORD_COST,
  unknownAccountHash,
  verifyPassword,
  type PasswordCost,
} from './password.ts'
import {
  forgotContent,
  messageContent,
  requestQuery,
  resetContent,
  setupContent,
  signInContent,
  signUpContent,
  type LoginRequest,
} from './pages.ts'
import { settingsRoutes } from './settings.ts'
import {
  createAccountStore,
  PROVIDER_SESSION_MS,
  SESSION_COOKIE,
  type Account,
  type AccountStore,
  type SignUpPlace,
} from './store.ts'
import { createPasskeys } from './passkeys.ts'
import type { OidcConfig } from './oidc.ts'
import type { Logger } from '../base/log.ts'
import { createOidc, oidcButton, type RelyingParty } from './oidc.ts'
import {
  mailAddress,
  type AccountMailer,
  type Checked,
  type ProviderCore,
  type RefusalShown,
} from './provider-core.ts'

export interface ServiceAddresses {
  notes: string | null
  tickets: string | null
}

export interface AccountsProviderDeps {
  sql: Sql
  clock: () => number
  apiKey: string
  apiSecret: string
  /** The provider's public address (`IDP_URL`). */
  publicUrl: string
  /** The services' public addresses: where sign-ins may return, and `form-action`'s origins. */
  services: ServiceAddresses
  /** What each service does for the provider: an invite's words, and ending what an account holds there. */
  hooks: readonly ServiceHooks[]
  /** Signs the forms' browser tokens (the session secret). */
  secret: Uint8Array
  trustProxy: number
  assets: Assets | null
  attempts?: SignInAttempts
  /** The ceiling on password hashes at once (src/accounts/hash-gate.ts); one of its own when absent. */
  hashes?: HashGate
  /** The cost of new password hashes; PASSWORD_COST unless told (tests set a cheap one). */
  passwordCost?: PasswordCost
  /** Sign-in through the organisation's OpenID Connect provider (src/accounts/oidc.ts), or none. */
  oidc?: { settings: OidcConfig; party: RelyingParty } | null
  logger?: Logger | null
  /** Mails confirmation and reset links (`SMTP_URL`), or null: this site sends no mail. */
  mailer?: AccountMailer | null
}

export interface AccountsProvider {
  routes: HttpRoute[]
  store: AccountStore
}

/** The title of the page answering each refusal of a login request or a form. */
const REFUSED_TITLE: Partial<Record<RefusalCode, string>> = {
  bad_login_request: 'Sign-in refused',
  bad_form: 'Form refused',
  form_expired: 'Form expired',
  forbidden: 'Admin',
}

/** Builds the provider's routes. */
export function createAccountsProvider(deps: AccountsProviderDeps): AccountsProvider {
  const { sql, clock } = deps
  const store = createAccountStore({ sql, clock, hooks: deps.hooks })
  const secure = deps.publicUrl.startsWith('https:')
  /** The provider session's cookie name (`__Host-idp_session` on https). */
  const SESSION = cookieName(SESSION_COOKIE, secure)
  const binding = createBrowserBinding({ secret: deps.secret, secure, sessionCookie: SESSION })
  const attempts =
    deps.attempts ??
    createSignInAttempts({ sql, clock, trustProxy: deps.trustProxy, secret: deps.secret, secure })
  const hashes = deps.hashes ?? createHashGate()
  const cost = deps.passwordCost ?? PASSWORD_COST
  /** The stored form of a new password. */
  const hashed = (password: string) => hashPassword(password, cost)
  const UNKNOWN_ACCOUNT_HASH = unknownAccountHash(cost)
  const mailer = deps.mailer ?? null
  /** Runs a password hash for the request through the ceiling: its answer, or 'busy'. */
  const hashing = <T>(req: Request, work: () => Promise<T>) =>
    hashes.run(addressKey(clientAddress(req, deps.trustProxy)), work)
  /** The answer when no hash could be had. */
  const busy = (req: Request) =>
    refused(req, refuse(503, REFUSED.busy), { title: 'Busy', headers: { 'retry-after': '2' } })
  const serviceUrls = [deps.services.notes, deps.services.tickets].filter(
    (u): u is string => u !== null,
  )
  const origins = new Set(serviceUrls.map((u) => new URL(u).origin))
  const frame: PageFrame = {
    stylesheet: deps.assets?.url('style') ?? null,
    scripts: deps.assets ? [deps.assets.url('passkeys')] : [],
    policy: providerPolicy(serviceUrls),
  }
  const apps = [
    ...(deps.services.notes ? [{ name: 'Notes', url: deps.services.notes }] : []),
    ...(deps.services.tickets ? [{ name: 'Tickets', url: deps.services.tickets }] : []),
  ]

  function page(
    req: Request,
    status: number,
    title: string,
    content: (csrf: string) => Html,
    options: { account?: Account | null; wide?: boolean; headers?: Headers } = {},
  ): Response {
    const { csrf, setCookie } = binding.of(req)
    const headers: Headers = { ...options.headers }
    if (setCookie !== null) headers['set-cookie'] = [...cookiesOf(headers), setCookie]
    const signedIn = options.account
      ? {
          name: shownName(options.account.displayName, options.account.name),
          isOwner: options.account.isOwner,
          csrf,
        }
      : null
    return providerPage(frame, status, title, content(csrf), {
      signedIn,
      wide: options.wide,
      headers,
    })
  }

  function message(
    req: Request,
    status: number,
    title: string,
    text: string,
    next?: { href: string; text: string },
    headers?: Headers,
  ): Response {
    return page(req, status, title, () => messageContent(text, next), { headers })
  }

  /**
   * The one place a refusal becomes a page: the message as its text under the page's own title
   * (else one by the code), the code in the refusal header, and a link on when `shown` gives
   * one. A signed-out person is sent to sign in.
   */
  function refused(req: Request, refusal: Refusal, shown: RefusalShown = {}): Response {
    if (refusal.code === 'not_signed_in')
      return redirect(303, '/login', undefined, { 'cache-control': 'no-store' })
    const headers = { ...shown.headers, [ERROR_CODE]: refusal.code }
    const title = shown.title ?? REFUSED_TITLE[refusal.code] ?? 'Refused'
    // A login request is refused before any form of this browser's: no browser token is made.
    if (refusal.code === 'bad_login_request')
      return providerPage(frame, refusal.status, title, messageContent(refusal.message), {
        headers,
      })
    const next =
      shown.next ??
      (refusal.code === 'forbidden' ? { href: '/account', text: 'Your account' } : undefined)
    return message(req, refusal.status, title, refusal.message, next, headers)
  }

  /** The refusal of an address's or a name's sign-in attempts for `waitMs` more. */
  const tooManyAttempts = (waitMs: number) =>
    refuse(429, REFUSED.tooManyAttempts(Math.ceil(waitMs / 1000)))

  function loginRequest(
    key: string | null,
    returnTo: string | null,
  ): Checked<{ request: LoginRequest }> {
    const r = returnTo ?? ''
    // The apps this provider serves send no key (their links stay free of it): the return
    // address, which must be one of theirs, says whose sign-in it is. A key, when sent, must match.
    const k = key === null || key === '' ? (r === '' ? '' : deps.apiKey) : key
    if (k === '' && r === '') return { ok: true, request: { key: '', returnTo: '' } }
    if (k !== deps.apiKey) return refuse(400, REFUSED.unknownKey)
    let url: URL
    try {
      url = new URL(r)
    } catch {
      return refuse(400, REFUSED.badReturn)
    }
    if (!origins.has(url.origin) || r.length > 2000) return refuse(400, REFUSED.badReturn)
    return { ok: true, request: { key: k, returnTo: r } }
  }

  /** The form of a POST, its browser token checked. */
  async function checkedForm(req: Request): Promise<Checked<{ form: URLSearchParams }>> {
    const form = await readForm(req)
    if (form === null) return refuse(400, REFUSED.formUnreadable)
    if (!binding.check(req, form.get('csrf'))) return refuse(403, REFUSED.formExpired)
    return { ok: true, form }
  }

  async function finish(req: Request, account: Account, request: LoginRequest): Promise<Response> {
    // The browser's sign-in id carries on (the apps' sessions it started end with this one).
    const sid = await store.replaceSession(req.cookies[SESSION])
    const session = await store.startSession(account.id, sid ?? undefined)
    await store.recordSignIn(account.id)
    const cookie = serializeCookie(SESSION, session.cookie, {
      httpOnly: true,
      secure,
      sameSite: 'Lax',
      path: '/',
      maxAgeSeconds: PROVIDER_SESSION_MS / 1000,
    })
    return backToApp(account, request, session.sid, { 'set-cookie': cookie })
  }

  async function backToApp(
    account: Account,
    request: LoginRequest,
    sid: string | null,
    headers: Headers = {},
  ): Promise<Response> {
    if (request.returnTo === '')
      return redirect(303, '/account', 'signed in', { ...headers, 'cache-control': 'no-store' })
    const target = new URL(request.returnTo)
    target.searchParams.set('idp_code', await store.issueCode(account.id, sid))
    return redirect(303, target.href, 'signed in', { ...headers, 'cache-control': 'no-store' })
  }

  const core: ProviderCore = { finish, loginRequest, refused }
  const passkeys = createPasskeys({ sql, clock, store, core, binding, publicUrl: deps.publicUrl })
  const oidc = deps.oidc
    ? createOidc({
        settings: deps.oidc.settings,
        party: deps.oidc.party,
        store,
        core,
        publicUrl: deps.publicUrl,
        secret: deps.secret,
        clock,
        logger: deps.logger ?? null,
        page: (req, status, title, content, options) => page(req, status, title, content, options),
        signUpAllowed: (link, request) => signUpAllowed(link, request),
      })
    : null
  /** `OIDC_ONLY=1`: every sign-in goes through the organisation's provider. */
  const oidcOnly = deps.oidc?.settings.only === true
  /** The organisation's sign-in button for a page, or nothing. */
  const ssoButton = (request: LoginRequest, extra: Record<string, string> = {}) =>
    oidc ? oidcButton(oidc.name, oidc.startHref(request, extra)) : null
  /** The answer to a password or sign-up route under `OIDC_ONLY=1`. */
  const onlyThroughOidc = (req: Request) =>
    message(req, 403, 'Sign-in', `Sign-in here is through ${oidc!.name} only.`, {
      href: '/login',
      text: 'Sign in',
    })

  /** The signed-in account of the request, or null. */
  const signedIn = (req: Request) => store.sessionAccount(req.cookies[SESSION])

  /** The sign-in form, showing `refusal` (its message beside the form, its code in the header). */
  async function signInPage(
    req: Request,
    request: LoginRequest,
    name: string,
    refusal: Refusal | null,
  ): Promise<Response> {
    const invite = await inviteContextOf(deps.hooks, request.returnTo)
    if (invite?.revoked)
      return refused(req, refuse(400, REFUSED.inviteRevoked), { title: `Join ${invite.project}` })
    const canSignUp = invite !== null || (await store.openSignup())
    return page(
      req,
      refusal?.status ?? 200,
      invite ? `Join ${invite.project}` : 'Sign in',
      (csrf) =>
        signInContent(request, csrf, {
          name,
          error: refusal?.message ?? null,
          invite,
          canSignUp,
          passkeys: deps.assets !== null,
          sso: ssoButton(request),
        }),
      { headers: refusal ? { [ERROR_CODE]: refusal.code } : undefined },
    )
  }

  // GET /login
  async function loginForm(req: Request): Promise<Response> {
    const checked = loginRequest(req.query.get('key'), req.query.get('return'))
    if (!checked.ok) return refused(req, checked)
    const current = await store.session(req.cookies[SESSION])
    if (current !== null) {
      if (checked.request.returnTo === '')
        return redirect(303, '/account', undefined, { 'cache-control': 'no-store' })
      // Signed in here already: back to the app at once, the one click on its Sign in.
      await store.recordSignIn(current.account.id)
      return backToApp(current.account, checked.request, current.sid)
    }
    if (oidcOnly)
      return redirect(303, oidc!.startHref(checked.request), undefined, {
        'cache-control': 'no-store',
      })
    if (!(await store.hasAccounts()))
      return page(req, 200, 'Create the owner account', (csrf) =>
        setupContent(checked.request, csrf, { name: '' }, {}, ssoButton(checked.request)),
      )
    return signInPage(req, checked.request, '', null)
  }

  /** The form of a POST, with its browser token and its login request checked. */
  async function formOf(
    req: Request,
  ): Promise<Checked<{ form: URLSearchParams; request: LoginRequest }>> {
    const got = await checkedForm(req)
    if (!got.ok) return got
    const checked = loginRequest(got.form.get('key'), got.form.get('return'))
    if (!checked.ok) return checked
    return { ok: true, form: got.form, request: checked.request }
  }

  // POST /login
  async function passwordSignIn(req: Request): Promise<Response> {
    if (oidcOnly) return onlyThroughOidc(req)
    const got = await formOf(req)
    if (!got.ok) return refused(req, got)
    const { form, request } = got
    const name = cleanName(form.get('name') ?? '')
    const password = form.get('password') ?? ''
    // The cheap checks first: the address's attempts, then this name's failures from here.
    const wait = Math.max(await attempts.fromAddress(req), await attempts.accountWait(req, name))
    if (wait > 0) return signInPage(req, request, name, tooManyAttempts(wait))
    const account = name === '' ? null : await store.byName(name)
    // The same scrypt work whether or not the name exists (or has a password: an account made
    // through the organisation's provider has none), so the time tells nothing either.
    const matches = await hashing(req, () =>
      verifyPassword(password.slice(0, 1000), account?.passwordHash || UNKNOWN_ACCOUNT_HASH),
    )
    if (matches === 'busy') return busy(req)
    if (account === null || !matches || account.disabled) {
      await attempts.failed(req, name)
      return signInPage(req, request, name, refuse(400, REFUSED.wrongNameOrPassword))
    }
    const device = await attempts.succeeded(req, account.name)
    const answer = await finish(req, account, request)
    return {
      ...answer,
      headers: { ...answer.headers, 'set-cookie': [...cookiesOf(answer.headers ?? {}), device] },
    }
  }

  /** A new account's name and password, or the errors to show next to the fields; nothing hashed yet. */
  function newAccountFields(
    form: URLSearchParams,
  ):
    | { ok: true; name: string; password: string }
    | { ok: false; name: string; errors: { name?: string; password?: string } } {
    const name = cleanName(form.get('name') ?? '')
    const password = form.get('password') ?? ''
    const errors: { name?: string; password?: string } = {}
    if (name === '') errors.name = TEXT.nameRequired
    else if (name.length > 100) errors.name = TEXT.nameTooLong
    const weak = passwordDefect(password)
    if (weak !== null) errors.password = weak
    if (errors.name || errors.password) return { ok: false, name, errors }
    return { ok: true, name, password }
  }

  // POST /setup
  async function setup(req: Request): Promise<Response> {
    if (oidcOnly) return onlyThroughOidc(req)
    const got = await formOf(req)
    if (!got.ok) return refused(req, got)
    // The cheap checks before any hash: the address's attempts (a setup counts as a sign-in),
    // an owner exists (the usual case once set up), the fields.
    const wait = await attempts.fromAddress(req)
    if (wait > 0) return refused(req, tooManyAttempts(wait), { title: 'Create the owner account' })
    if (await store.hasAccounts())
      return signInPage(req, got.request, '', refuse(409, REFUSED.ownerExists))
    const fields = newAccountFields(got.form)
    if (!fields.ok)
      return page(req, 400, 'Create the owner account', (csrf) =>
        setupContent(
          got.request,
          csrf,
          { name: fields.name },
          fields.errors,
          ssoButton(got.request),
        ),
      )
    const passwordHash = await hashing(req, () => hashed(fields.password))
    if (passwordHash === 'busy') return busy(req)
    const made = await store.create({ name: fields.name, passwordHash, owner: true })
    if (!made.ok) return signInPage(req, got.request, '', refuse(409, REFUSED.ownerExists))
    return finish(req, made.account, got.request)
  }

  /**
   * How a sign-up is allowed: a live link, open sign-up, or a live invite (whose sign-up place
   * the new account must take: `place`); null when it is not.
   */
  async function signUpAllowed(
    link: string,
    request: LoginRequest,
  ): Promise<{ link: string; invite: InviteContext | null; place?: SignUpPlace } | null> {
    const found = await inviteContextOf(deps.hooks, request.returnTo)
    const invite = found?.revoked ? null : found
    if (link !== '') return (await store.signupLinkValid(link)) ? { link, invite } : null
    if (await store.openSignup()) return { link: '', invite }
    if (invite !== null)
      return {
        link: '',
        invite,
        place: (tx) => takeInviteSignupOf(deps.hooks, tx, request.returnTo),
      }
    return null
  }

  /** Why a sign-up is refused (403): a used link, a revoked invite, or sign-up closed. */
  async function refusedSignUp(link: string, request: LoginRequest): Promise<Refusal> {
    if (link !== '') return refuse(403, REFUSED.linkUsed)
    return (await inviteContextOf(deps.hooks, request.returnTo))?.revoked
      ? refuse(403, REFUSED.inviteRevoked)
      : refuse(403, REFUSED.signUpClosed)
  }

  // GET /signup
  async function signUpForm(req: Request): Promise<Response> {
    const checked = loginRequest(req.query.get('key'), req.query.get('return'))
    if (!checked.ok) return refused(req, checked)
    const link = req.query.get('link') ?? ''
    const allowed = await signUpAllowed(link, checked.request)
    if (allowed === null)
      return refused(req, await refusedSignUp(link, checked.request), {
        title: 'Sign-up',
        next: { href: '/login', text: 'Sign in' },
      })
    // Under OIDC_ONLY=1 a sign-up link leads straight to the organisation's provider, the link kept.
    if (oidcOnly)
      return redirect(
        303,
        oidc!.startHref(checked.request, allowed.link === '' ? {} : { link: allowed.link }),
        undefined,
        { 'cache-control': 'no-store' },
      )
    const title = allowed.invite ? `Join ${allowed.invite.project}` : 'Create an account'
    const sso = ssoButton(checked.request, allowed.link === '' ? {} : { link: allowed.link })
    return page(req, 200, title, (csrf) =>
      signUpContent(checked.request, csrf, allowed.link, allowed.invite, { name: '' }, {}, sso),
    )
  }

  // POST /signup
  async function signUp(req: Request): Promise<Response> {
    if (oidcOnly) return onlyThroughOidc(req)
    const got = await formOf(req)
    if (!got.ok) return refused(req, got)
    const link = got.form.get('link') ?? ''
    const allowed = await signUpAllowed(link, got.request)
    if (allowed === null)
      return refused(req, await refusedSignUp(link, got.request), { title: 'Sign-up' })
    const wait = await attempts.fromAddress(req)
    if (wait > 0) return refused(req, tooManyAttempts(wait), { title: 'Sign-up' })
    const title = allowed.invite ? `Join ${allowed.invite.project}` : 'Create an account'
    const again = (name: string, errors: { name?: string; password?: string }) =>
      page(req, 400, title, (csrf) =>
        signUpContent(
          got.request,
          csrf,
          allowed.link,
          allowed.invite,
          { name },
          errors,
          ssoButton(got.request, allowed.link === '' ? {} : { link: allowed.link }),
        ),
      )
    const fields = newAccountFields(got.form)
    if (!fields.ok) return again(fields.name, fields.errors)
    if ((await store.byName(fields.name)) !== null)
      return again(fields.name, { name: TEXT.nameTaken })
    const passwordHash = await hashing(req, () => hashed(fields.password))
    if (passwordHash === 'busy') return busy(req)
    if (link !== '' && !(await store.useSignupLink(link)))
      return refused(req, refuse(403, REFUSED.linkUsed), { title: 'Sign-up' })
    const made = await store.create({
      name: fields.name,
      passwordHash,
      owner: false,
      place: allowed.place,
    })
    if (!made.ok)
      return made.code === 'place_taken'
        ? refused(req, refuse(403, REFUSED.invitePlacesTaken), { title: 'Sign-up' })
        : again(fields.name, { name: TEXT.nameTaken })
    return finish(req, made.account, got.request)
  }

  // POST /signout
  async function signOut(req: Request): Promise<Response> {
    const got = await checkedForm(req)
    if (!got.ok) return refused(req, got)
    await store.endSession(req.cookies[SESSION])
    return redirect(303, '/login', 'signed out', {
      'set-cookie': expired(SESSION, secure),
      'cache-control': 'no-store',
    })
  }

  /** The signed-in account for a page or form of `/account` or `/admin` (the owner's). */
  async function member(req: Request, owner: boolean): Promise<Checked<{ account: Account }>> {
    const account = await signedIn(req)
    if (account === null) return refuse(401, REFUSED.signedOut)
    if (owner && !account.isOwner) return refuse(403, REFUSED.ownerOnly)
    return { ok: true, account }
  }

  /** A POST of `/account` or `/admin`: the account and the form, its token checked. */
  async function memberForm(
    req: Request,
    owner: boolean,
  ): Promise<Checked<{ account: Account; form: URLSearchParams }>> {
    const who = await member(req, owner)
    if (!who.ok) return who
    const got = await checkedForm(req)
    if (!got.ok) return got
    return { ok: true, account: who.account, form: got.form }
  }

  const routes: HttpRoute[] = [
    {
      method: 'GET',
      path: '/',
      handler: async (req) =>
        redirect(303, (await signedIn(req)) ? '/account' : '/login', undefined, {
          'cache-control': 'no-store',
        }),
    },
    { method: 'GET', path: '/login', handler: loginForm, rateLimit: 'signin' },
    { method: 'POST', path: '/login', handler: passwordSignIn, rateLimit: 'signin' },
    { method: 'POST', path: '/setup', handler: setup, rateLimit: 'signin' },
    { method: 'GET', path: '/signup', handler: signUpForm, rateLimit: 'signin' },
    { method: 'POST', path: '/signup', handler: signUp, rateLimit: 'signin' },
    { method: 'POST', path: '/signout', handler: signOut },
    // A forgotten password: a reset link mailed to the account's confirmed address when this site
    // sends mail, else the owner's reset link (docs/core.md, "Built-in accounts").
    {
      method: 'GET',
      path: '/forgot',
      handler: async (req) => {
        const request = loginRequest(req.query.get('key'), req.query.get('return'))
        if (!request.ok) return refused(req, request)
        if (mailer === null || oidcOnly)
          return message(req, 200, 'Forgot password?', TEXT.forgotPassword, {
            href: `/login${requestQuery(request.request)}`,
            text: 'Back to sign in',
          })
        return page(req, 200, 'Forgot password?', (csrf) => forgotContent(request.request, csrf))
      },
    },
    { method: 'POST', path: '/forgot', handler: forgot, rateLimit: 'signin' },
    ...settingsRoutes({
      store,
      attempts,
      publicUrl: deps.publicUrl,
      apps,
      secure,
      page,
      message,
      member,
      memberForm,
      passkeys,
      oidc: oidc ? { name: oidc.name, issuer: oidc.issuer } : null,
      hashing,
      hashed,
      busy,
      mailer,
      refusedEmail: (accountId) => refusedEmailOf(deps.hooks, accountId),
      checkedForm,
      refused,
    }),
    ...(oidc?.routes ?? []),
    {
      method: 'GET',
      path: '/reset',
      handler: async (req) => {
        const link = req.query.get('link') ?? ''
        const account = await store.resetLinkAccount(link)
        if (account === null)
          return refused(req, refuse(404, REFUSED.resetUnknown), {
            title: 'Reset your password',
            next: { href: '/login', text: 'Sign in' },
          })
        return page(req, 200, 'Reset your password', (csrf) =>
          resetContent(link, csrf, account, null),
        )
      },
    },
    {
      method: 'POST',
      path: '/reset',
      rateLimit: 'signin',
      handler: async (req) => {
        if (oidcOnly) return onlyThroughOidc(req)
        const got = await checkedForm(req)
        if (!got.ok) return refused(req, got)
        const { form } = got
        const wait = await attempts.fromAddress(req)
        if (wait > 0) return refused(req, tooManyAttempts(wait), { title: 'Reset your password' })
        const link = form.get('link') ?? ''
        const account = await store.resetLinkAccount(link)
        if (account === null) return resetUnknown(req)
        const password = form.get('password') ?? ''
        const weak = passwordDefect(password)
        if (weak !== null)
          return page(req, 400, 'Reset your password', (csrf) =>
            resetContent(link, csrf, account, weak),
          )
        const passwordHash = await hashing(req, () => hashed(password))
        if (passwordHash === 'busy') return busy(req)
        const reset = await store.resetPassword(link, passwordHash)
        if (reset === null) return resetUnknown(req)
        return finish(req, reset, { key: '', returnTo: '' })
      },
    },
    { method: 'POST', path: '/api/exchange', handler: exchange, rateLimit: 'signin' },
    { method: 'POST', path: '/api/signout', handler: appSignOut, rateLimit: 'signin' },
  ]
  if (deps.assets)
    routes.push({ method: 'GET', path: '/assets/:file', handler: deps.assets.handler })

  /** A reset link unknown, used or expired, on the form's post. */
  function resetUnknown(req: Request): Response {
    return refused(req, refuse(404, REFUSED.resetUnknown), { title: 'Reset your password' })
  }

  // POST /forgot: the same answer whether or not an account matched, so it tells nobody who has one.
  async function forgot(req: Request): Promise<Response> {
    if (mailer === null || oidcOnly)
      return refused(req, refuse(404, REFUSED.noResetMail), { title: 'Forgot password?' })
    const got = await formOf(req)
    if (!got.ok) return refused(req, got)
    const wait = await attempts.fromAddress(req)
    if (wait > 0) return refused(req, tooManyAttempts(wait), { title: 'Forgot password?' })
    const who = (got.form.get('who') ?? '').trim()
    const email = mailAddress(who)
    const byName = email === null ? await store.byName(cleanName(who)) : null
    const accounts = email !== null ? await store.byEmail(email) : byName ? [byName] : []
    for (const account of accounts) {
      if (account.email === null || account.disabled || account.passwordHash === '') continue
      const link = await store.createResetLink(account.id)
      await mailer.send({
        to: account.email,
        subject: 'Reset your password',
        text: `Someone, we hope you, asked for a new password for the account ${account.name} at ${deps.publicUrl}.

Open this link within 24 hours to choose one (it works once):

${deps.publicUrl}/reset?link=${link}

If it was not you, ignore this mail: your password stays as it is.
`,
      })
    }
    return message(req, 200, 'Forgot password?', TEXT.forgotMailed, {
      href: `/login${requestQuery(got.request)}`,
      text: 'Back to sign in',
    })
  }

  /** Whether an app's request carries this site's app key and secret (compared in constant time). */
  function appCredentials(body: Record<string, unknown>): boolean {
    const key = typeof body.key === 'string' && sameText(body.key, deps.apiKey)
    const secret = typeof body.secret === 'string' && sameText(body.secret, deps.apiSecret)
    return key && secret
  }

  // POST /api/exchange (decisions, section 3)
  async function exchange(req: Request): Promise<Response> {
    const parsed = parseJsonObject(await req.body())
    if (!parsed.ok) return answerRefusal(parsed)
    const body = parsed.value
    if (!appCredentials(body)) return answerRefusal(refuse(401, API_REFUSED.badSecret))
    const taken = await store.takeCode(typeof body.code === 'string' ? body.code : '')
    if (taken === null) return answerRefusal(refuse(400, API_REFUSED.codeUnknown))
    if ('failure' in taken) return answerRefusal(refuse(400, reason('login_failed', taken.failure)))
    const { account, sid } = taken
    // `login`, the account's unique name, lets the apps show it beside the display name; `owner`
    // shows the owner the way to `/admin` (docs/core.md, "Finding your way").
    return json(
      200,
      {
        id: account.id,
        name: account.displayName,
        login: account.name,
        // Only a confirmed address: the services mail it (docs/notifications.md).
        ...(account.email !== null ? { email: account.email } : {}),
        ...(account.isOwner ? { owner: true } : {}),
        // The sign-in the app's session belongs to: the app hands it back to sign the browser
        // out everywhere it signed in (POST /api/signout), as OpenID Connect's `sid`.
        ...(sid !== null ? { sid } : {}),
      },
      { 'cache-control': 'no-store' },
    )
  }

  // POST /api/signout { key, secret, sid }: an app's Sign out (docs/core.md, "Signing out"). The
  // provider session of that sign-in ends, and with it every app session it started.
  async function appSignOut(req: Request): Promise<Response> {
    const parsed = parseJsonObject(await req.body())
    if (!parsed.ok) return answerRefusal(parsed)
    const body = parsed.value
    if (!appCredentials(body)) return answerRefusal(refuse(401, API_REFUSED.badSecret))
    if (typeof body.sid !== 'string' || body.sid === '' || body.sid.length > 100)
      return answerRefusal(refuse(400, API_REFUSED.sidNeeded))
    const ended = await store.endSignIn(body.sid)
    return json(200, { ok: true, ended }, { 'cache-control': 'no-store' })
  }

  return { routes, store }
}
