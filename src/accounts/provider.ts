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
import { serializeCookie } from '../cookie.ts'
import type { Sql } from '../db.ts'
import type { Assets } from '../assets.ts'
import type { HttpRoute } from '../handler.ts'
import type { Html } from '../html.ts'
import { parseJsonBody } from '../json-validate.ts'
import type { Request } from '../request.ts'
import { json, jsonError, redirect, type Headers, type Response } from '../response.ts'
import { textDefect } from '../text.ts'
import { createSignInAttempts, type SignInAttempts } from './attempts.ts'
import { createBrowserBinding } from './browser-binding.ts'
import { inviteContext, type InviteContext } from './invite-context.ts'
import { providerPage, providerPolicy, type PageFrame } from './page.ts'
import { hashPassword, passwordDefect, UNKNOWN_ACCOUNT_HASH, verifyPassword } from './password.ts'
import { accountContent, adminContent, messageContent, resetContent, setupContent, signInContent, signUpContent, type LoginRequest } from './pages.ts'
import { createAccountStore, PROVIDER_SESSION_MS, SESSION_COOKIE, type Account, type AccountStore } from './store.ts'
import { createPasskeys } from './passkeys.ts'

/** The words people read, each in one place. */
export const TEXT = {
  wrongNameOrPassword: 'Wrong name or password.',
  tooManyAttempts: (seconds: number) => `Too many sign-in attempts. Try again in ${seconds} seconds.`,
  unknownKey: 'This app key is not known here, so the sign-in is refused.',
  badReturn: "The sign-in must return to one of this site's apps.",
  formExpired: 'This form has expired. Go back, reload the page and try again.',
  nameRequired: 'Enter a name.',
  nameTooLong: 'A name has at most 100 characters.',
  nameTaken: 'That name is taken. Choose another.',
  ownerExists: 'The owner account exists already. Sign in instead.',
  signUpClosed: 'Sign-up here needs a link from the owner of this site, or an invite to a project.',
  linkUsed: 'This sign-up link has been used up or has expired. Ask the owner for a new one.',
  resetUnknown: 'This reset link has been used or has expired. Ask the owner for a new one.',
  wrongCurrent: 'The current password is wrong.',
} as const

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
  /** Signs the forms' browser tokens (the session secret). */
  secret: Uint8Array
  trustProxy: number
  assets: Assets | null
  attempts?: SignInAttempts
}

export interface AccountsProvider {
  routes: HttpRoute[]
  store: AccountStore
}

/** What a sign-in method needs of the provider. */
export interface ProviderCore {
  /**
   * Signs `account` in at the provider, in the browser of `req`: a new session (the one its
   * cookie named before, if any, ends), and the redirect back to the app, or to `/account`.
   */
  finish(req: Request, account: Account, request: LoginRequest): Promise<Response>
  /** The login request a form or query carries, or the page refusing it. */
  loginRequest(key: string | null, returnTo: string | null): { ok: true; request: LoginRequest } | { ok: false; response: Response }
}

/** Builds the provider's routes. */
export function createAccountsProvider(deps: AccountsProviderDeps): AccountsProvider {
  const { sql, clock } = deps
  const store = createAccountStore({ sql, clock })
  const secure = deps.publicUrl.startsWith('https:')
  const binding = createBrowserBinding({ secret: deps.secret, secure })
  const attempts = deps.attempts ?? createSignInAttempts({ clock, trustProxy: deps.trustProxy })
  const serviceUrls = [deps.services.notes, deps.services.tickets].filter((u): u is string => u !== null)
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

  function page(req: Request, status: number, title: string, content: (csrf: string) => Html, options: { account?: Account | null; wide?: boolean; headers?: Headers } = {}): Response {
    const { csrf, setCookie } = binding.of(req)
    const headers: Headers = { ...options.headers }
    if (setCookie !== null) headers['set-cookie'] = [...cookiesOf(headers), setCookie]
    const signedIn = options.account ? { name: options.account.displayName, isOwner: options.account.isOwner, csrf } : null
    return providerPage(frame, status, title, content(csrf), { signedIn, wide: options.wide, headers })
  }

  function message(req: Request, status: number, title: string, text: string, next?: { href: string; text: string }): Response {
    return page(req, status, title, () => messageContent(text, next))
  }

  function loginRequest(key: string | null, returnTo: string | null): { ok: true; request: LoginRequest } | { ok: false; response: Response } {
    const k = key ?? ''
    const r = returnTo ?? ''
    if (k === '' && r === '') return { ok: true, request: { key: '', returnTo: '' } }
    const refuse = (text: string) => ({ ok: false as const, response: providerPage(frame, 400, 'Sign-in refused', messageContent(text)) })
    if (k !== deps.apiKey) return refuse(TEXT.unknownKey)
    let url: URL
    try {
      url = new URL(r)
    } catch {
      return refuse(TEXT.badReturn)
    }
    if (!origins.has(url.origin) || r.length > 2000) return refuse(TEXT.badReturn)
    return { ok: true, request: { key: k, returnTo: r } }
  }

  async function finish(req: Request, account: Account, request: LoginRequest): Promise<Response> {
    await store.endSession(req.cookies[SESSION_COOKIE])
    const session = await store.startSession(account.id)
    await store.recordSignIn(account.id)
    const cookie = serializeCookie(SESSION_COOKIE, session, { httpOnly: true, secure, sameSite: 'Lax', path: '/', maxAgeSeconds: PROVIDER_SESSION_MS / 1000 })
    return backToApp(account, request, { 'set-cookie': cookie })
  }

  async function backToApp(account: Account, request: LoginRequest, headers: Headers = {}): Promise<Response> {
    if (request.returnTo === '') return redirect(303, '/account', 'signed in', { ...headers, 'cache-control': 'no-store' })
    const target = new URL(request.returnTo)
    target.searchParams.set('idp_code', await store.issueCode(account.id))
    return redirect(303, target.href, 'signed in', { ...headers, 'cache-control': 'no-store' })
  }

  const core: ProviderCore = { finish, loginRequest }
  const passkeys = createPasskeys({ sql, clock, store, core, binding, publicUrl: deps.publicUrl, attempts })

  /** The signed-in account of the request, or null. */
  const signedIn = (req: Request) => store.sessionAccount(req.cookies[SESSION_COOKIE])

  async function signInPage(req: Request, request: LoginRequest, status: number, name: string, error: string | null): Promise<Response> {
    const invite = await inviteContext(sql, deps.services.tickets, request.returnTo, clock())
    const canSignUp = invite !== null || (await store.openSignup())
    return page(req, status, invite ? `Sign in to join ${invite.project}` : 'Sign in', (csrf) =>
      signInContent(request, csrf, { name, error, invite, canSignUp, passkeys: deps.assets !== null }),
    )
  }

  // GET /login
  async function loginForm(req: Request): Promise<Response> {
    const checked = loginRequest(req.query.get('key'), req.query.get('return'))
    if (!checked.ok) return checked.response
    const account = await signedIn(req)
    if (account !== null) {
      if (checked.request.returnTo === '') return redirect(303, '/account', undefined, { 'cache-control': 'no-store' })
      // Signed in here already: back to the app at once, the one click on its Sign in.
      await store.recordSignIn(account.id)
      return backToApp(account, checked.request)
    }
    if (!(await store.hasAccounts())) return page(req, 200, 'Create the owner account', (csrf) => setupContent(checked.request, csrf, { name: '' }))
    return signInPage(req, checked.request, 200, '', null)
  }

  /** The form of a POST, with its login request and browser token checked; else the page refusing it. */
  async function formOf(req: Request): Promise<{ ok: true; form: URLSearchParams; request: LoginRequest } | { ok: false; response: Response }> {
    const form = await readForm(req)
    if (form === null) return { ok: false, response: message(req, 400, 'Form refused', 'The form could not be read. Go back and try again.') }
    if (!binding.check(req, form.get('csrf'))) return { ok: false, response: message(req, 403, 'Form expired', TEXT.formExpired) }
    const checked = loginRequest(form.get('key'), form.get('return'))
    if (!checked.ok) return checked
    return { ok: true, form, request: checked.request }
  }

  // POST /login
  async function passwordSignIn(req: Request): Promise<Response> {
    const got = await formOf(req)
    if (!got.ok) return got.response
    const { form, request } = got
    const name = (form.get('name') ?? '').trim()
    const password = form.get('password') ?? ''
    const wait = Math.max(attempts.fromAddress(req), attempts.accountWait(name))
    if (wait > 0) return signInPage(req, request, 429, name, TEXT.tooManyAttempts(Math.ceil(wait / 1000)))
    const account = name === '' ? null : await store.byName(name)
    // The same scrypt work whether or not the name exists, so the time tells nothing either.
    const matches = await verifyPassword(password.slice(0, 1000), account?.passwordHash ?? UNKNOWN_ACCOUNT_HASH)
    if (account === null || !matches || account.disabled) {
      attempts.failed(name)
      return signInPage(req, request, 400, name, TEXT.wrongNameOrPassword)
    }
    return finish(req, account, request)
  }

  /** A new account's name and password, or the errors to show next to the fields. */
  async function newAccountFields(form: URLSearchParams): Promise<{ ok: true; name: string; passwordHash: string } | { ok: false; name: string; errors: { name?: string; password?: string } }> {
    const name = (form.get('name') ?? '').trim()
    const password = form.get('password') ?? ''
    const errors: { name?: string; password?: string } = {}
    if (name === '') errors.name = TEXT.nameRequired
    else if (name.length > 100) errors.name = TEXT.nameTooLong
    const weak = passwordDefect(password)
    if (weak !== null) errors.password = weak
    if (errors.name || errors.password) return { ok: false, name, errors }
    return { ok: true, name, passwordHash: await hashPassword(password) }
  }

  // POST /setup
  async function setup(req: Request): Promise<Response> {
    const got = await formOf(req)
    if (!got.ok) return got.response
    const fields = await newAccountFields(got.form)
    if (!fields.ok) return page(req, 400, 'Create the owner account', (csrf) => setupContent(got.request, csrf, { name: fields.name }, fields.errors))
    const made = await store.create({ name: fields.name, passwordHash: fields.passwordHash, owner: true })
    if (!made.ok) return signInPage(req, got.request, 409, '', TEXT.ownerExists)
    return finish(req, made.account, got.request)
  }

  /** How a sign-up is allowed: a live link, a live invite, or open sign-up; null when it is not. */
  async function signUpAllowed(link: string, request: LoginRequest): Promise<{ link: string; invite: InviteContext | null } | null> {
    const invite = await inviteContext(sql, deps.services.tickets, request.returnTo, clock())
    if (link !== '') return (await store.signupLinkValid(link)) ? { link, invite } : null
    if (invite !== null || (await store.openSignup())) return { link: '', invite }
    return null
  }

  // GET /signup
  async function signUpForm(req: Request): Promise<Response> {
    const checked = loginRequest(req.query.get('key'), req.query.get('return'))
    if (!checked.ok) return checked.response
    const link = req.query.get('link') ?? ''
    const allowed = await signUpAllowed(link, checked.request)
    if (allowed === null) return message(req, 403, 'Sign-up', link === '' ? TEXT.signUpClosed : TEXT.linkUsed, { href: '/login', text: 'Sign in' })
    const title = allowed.invite ? `Join ${allowed.invite.project}` : 'Create an account'
    return page(req, 200, title, (csrf) => signUpContent(checked.request, csrf, allowed.link, allowed.invite, { name: '' }))
  }

  // POST /signup
  async function signUp(req: Request): Promise<Response> {
    const got = await formOf(req)
    if (!got.ok) return got.response
    const link = got.form.get('link') ?? ''
    const allowed = await signUpAllowed(link, got.request)
    if (allowed === null) return message(req, 403, 'Sign-up', link === '' ? TEXT.signUpClosed : TEXT.linkUsed)
    if (attempts.fromAddress(req) > 0) return message(req, 429, 'Sign-up', TEXT.tooManyAttempts(60))
    const title = allowed.invite ? `Join ${allowed.invite.project}` : 'Create an account'
    const again = (name: string, errors: { name?: string; password?: string }) =>
      page(req, 400, title, (csrf) => signUpContent(got.request, csrf, allowed.link, allowed.invite, { name }, errors))
    const fields = await newAccountFields(got.form)
    if (!fields.ok) return again(fields.name, fields.errors)
    if ((await store.byName(fields.name)) !== null) return again(fields.name, { name: TEXT.nameTaken })
    if (link !== '' && !(await store.useSignupLink(link))) return message(req, 403, 'Sign-up', TEXT.linkUsed)
    const made = await store.create({ name: fields.name, passwordHash: fields.passwordHash, owner: false })
    if (!made.ok) return again(fields.name, { name: TEXT.nameTaken })
    return finish(req, made.account, got.request)
  }

  // POST /signout
  async function signOut(req: Request): Promise<Response> {
    const form = await readForm(req)
    if (form === null || !binding.check(req, form.get('csrf'))) return message(req, 403, 'Form expired', TEXT.formExpired)
    await store.endSession(req.cookies[SESSION_COOKIE])
    return redirect(303, '/login', 'signed out', { 'set-cookie': expired(SESSION_COOKIE, secure), 'cache-control': 'no-store' })
  }

  /** The signed-in account for a page or form of `/account` or `/admin`; else the answer to give. */
  async function member(req: Request, owner: boolean): Promise<{ ok: true; account: Account } | { ok: false; response: Response }> {
    const account = await signedIn(req)
    if (account === null) return { ok: false, response: redirect(303, '/login', undefined, { 'cache-control': 'no-store' }) }
    if (owner && !account.isOwner) return { ok: false, response: message(req, 403, 'Admin', 'Only the owner of this site sees this page.', { href: '/account', text: 'Your account' }) }
    return { ok: true, account }
  }

  /** A POST of `/account` or `/admin`: the account and the form, its token checked. */
  async function memberForm(req: Request, owner: boolean): Promise<{ ok: true; account: Account; form: URLSearchParams } | { ok: false; response: Response }> {
    const who = await member(req, owner)
    if (!who.ok) return who
    const form = await readForm(req)
    if (form === null || !binding.check(req, form.get('csrf'))) return { ok: false, response: message(req, 403, 'Form expired', TEXT.formExpired) }
    return { ok: true, account: who.account, form }
  }

  async function accountPage(req: Request, account: Account, status = 200, notice: string | null = null, errors: Parameters<typeof accountContent>[0]['errors'] = {}): Promise<Response> {
    const keys = await passkeys.list(account.id)
    return page(req, status, 'Your account', (csrf) => accountContent({ account, csrf, apps, passkeys: keys, notice, errors }), { account, wide: true })
  }

  const NOTICES: Record<string, string> = Object.assign(Object.create(null), {
    name: 'Your display name is saved. The apps show it from your next sign-in.',
    password: 'Your password is changed.',
    passkey: 'Your passkey is added.',
    renamed: 'The passkey is renamed.',
    removed: 'The passkey is removed.',
  })

  async function adminPage(req: Request, account: Account, status = 200, made: { what: string; url: string } | null = null, error: string | null = null): Promise<Response> {
    const [people, openSignup, links] = await Promise.all([store.list(), store.openSignup(), store.signupLinks()])
    return page(req, status, 'Admin', (csrf) => adminContent({ csrf, people, openSignup, links, made, error }), { account, wide: true })
  }

  const routes: HttpRoute[] = [
    {
      method: 'GET',
      path: '/',
      handler: async (req) => redirect(303, (await signedIn(req)) ? '/account' : '/login', undefined, { 'cache-control': 'no-store' }),
    },
    { method: 'GET', path: '/login', handler: loginForm, rateLimit: 'signin' },
    { method: 'POST', path: '/login', handler: passwordSignIn, rateLimit: 'signin' },
    { method: 'POST', path: '/setup', handler: setup, rateLimit: 'signin' },
    { method: 'GET', path: '/signup', handler: signUpForm, rateLimit: 'signin' },
    { method: 'POST', path: '/signup', handler: signUp, rateLimit: 'signin' },
    { method: 'POST', path: '/signout', handler: signOut },
    {
      method: 'GET',
      path: '/account',
      handler: async (req) => {
        const who = await member(req, false)
        if (!who.ok) return who.response
        return accountPage(req, who.account, 200, NOTICES[req.query.get('done') ?? ''] ?? null)
      },
    },
    {
      method: 'POST',
      path: '/account/name',
      handler: async (req) => {
        const got = await memberForm(req, false)
        if (!got.ok) return got.response
        const name = (got.form.get('display_name') ?? '').trim()
        if (name === '' || name.length > 100) return accountPage(req, got.account, 400, null, { displayName: name === '' ? TEXT.nameRequired : TEXT.nameTooLong })
        await store.setDisplayName(got.account.id, name)
        return redirect(303, '/account?done=name')
      },
    },
    {
      method: 'POST',
      path: '/account/password',
      handler: async (req) => {
        const got = await memberForm(req, false)
        if (!got.ok) return got.response
        const { account, form } = got
        if (attempts.accountWait(account.name) > 0) return accountPage(req, account, 429, null, { current: TEXT.tooManyAttempts(Math.ceil(attempts.accountWait(account.name) / 1000)) })
        if (!(await verifyPassword((form.get('current') ?? '').slice(0, 1000), account.passwordHash))) {
          attempts.failed(account.name)
          return accountPage(req, account, 400, null, { current: TEXT.wrongCurrent })
        }
        const password = form.get('password') ?? ''
        const weak = passwordDefect(password)
        if (weak !== null) return accountPage(req, account, 400, null, { password: weak })
        await store.setPassword(account.id, await hashPassword(password))
        return redirect(303, '/account?done=password')
      },
    },
    {
      method: 'POST',
      path: '/account/signout-everywhere',
      handler: async (req) => {
        const got = await memberForm(req, false)
        if (!got.ok) return got.response
        await store.signOutEverywhere(got.account.id)
        return redirect(303, '/login', 'signed out everywhere', { 'set-cookie': expired(SESSION_COOKIE, secure), 'cache-control': 'no-store' })
      },
    },
    ...passkeys.routes({ readForm, memberForm, accountPage }),
    {
      method: 'GET',
      path: '/admin',
      handler: async (req) => {
        const who = await member(req, true)
        return who.ok ? adminPage(req, who.account) : who.response
      },
    },
    {
      method: 'POST',
      path: '/admin/signup-links',
      handler: async (req) => {
        const got = await memberForm(req, true)
        if (!got.ok) return got.response
        const uses = wholeNumber(got.form.get('uses'), 1, 1000)
        const days = wholeNumber(got.form.get('days'), 1, 90)
        if (uses === null || days === null) return adminPage(req, got.account, 400, null, 'Uses is a whole number from 1 to 1000, and days from 1 to 90.')
        const link = await store.createSignupLink(uses, days)
        const what = `A sign-up link for ${uses === 1 ? 'one person' : `${uses} people`}, valid for ${days} ${days === 1 ? 'day' : 'days'}.`
        return adminPage(req, got.account, 200, { what, url: `${deps.publicUrl}/signup?link=${link}` })
      },
    },
    {
      method: 'POST',
      path: '/admin/open-signup',
      handler: async (req) => {
        const got = await memberForm(req, true)
        if (!got.ok) return got.response
        await store.setOpenSignup(got.form.get('on') === '1')
        return redirect(303, '/admin')
      },
    },
    {
      method: 'POST',
      path: '/admin/people/:id/:action',
      handler: async (req) => {
        const got = await memberForm(req, true)
        if (!got.ok) return got.response
        const person = await store.byId(req.params.id ?? '')
        if (person === null || person.isOwner) return adminPage(req, got.account, 404, null, 'There is no such person, or the owner cannot be changed here.')
        const action = req.params.action
        if (action === 'reset') {
          const link = await store.createResetLink(person.id)
          return adminPage(req, got.account, 200, { what: `A password reset link for ${person.name}, valid for 24 hours and once.`, url: `${deps.publicUrl}/reset?link=${link}` })
        }
        if (action !== 'disable' && action !== 'enable') return adminPage(req, got.account, 404, null, 'There is no such action.')
        await store.setDisabled(person.id, action === 'disable')
        return redirect(303, '/admin')
      },
    },
    {
      method: 'GET',
      path: '/reset',
      handler: async (req) => {
        const link = req.query.get('link') ?? ''
        const account = await store.resetLinkAccount(link)
        if (account === null) return message(req, 404, 'Reset your password', TEXT.resetUnknown, { href: '/login', text: 'Sign in' })
        return page(req, 200, 'Reset your password', (csrf) => resetContent(link, csrf, account, null))
      },
    },
    {
      method: 'POST',
      path: '/reset',
      rateLimit: 'signin',
      handler: async (req) => {
        const form = await readForm(req)
        if (form === null || !binding.check(req, form.get('csrf'))) return message(req, 403, 'Form expired', TEXT.formExpired)
        const link = form.get('link') ?? ''
        const account = await store.resetLinkAccount(link)
        if (account === null) return message(req, 404, 'Reset your password', TEXT.resetUnknown)
        const password = form.get('password') ?? ''
        const weak = passwordDefect(password)
        if (weak !== null) return page(req, 400, 'Reset your password', (csrf) => resetContent(link, csrf, account, weak))
        const reset = await store.resetPassword(link, await hashPassword(password))
        if (reset === null) return message(req, 404, 'Reset your password', TEXT.resetUnknown)
        return finish(req, reset, { key: '', returnTo: '' })
      },
    },
    { method: 'POST', path: '/api/exchange', handler: exchange, rateLimit: 'signin' },
  ]
  if (deps.assets) routes.push({ method: 'GET', path: '/assets/:file', handler: deps.assets.handler })

  // POST /api/exchange (decisions, section 3)
  async function exchange(req: Request): Promise<Response> {
    const parsed = parseJsonBody(await req.body())
    if (!parsed.ok) return jsonError(400, parsed.error)
    const body = parsed.value as Record<string, unknown> | null
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return jsonError(400, 'the body must be a JSON object')
    if (body.key !== deps.apiKey || body.secret !== deps.apiSecret) return jsonError(401, 'unknown app key or wrong secret')
    const account = await store.takeCode(typeof body.code === 'string' ? body.code : '')
    if (account === null) return jsonError(400, 'login code unknown, used or expired')
    return json(200, { id: account.id, name: account.displayName }, { 'cache-control': 'no-store' })
  }

  return { routes, store }
}

/** A form body (`application/x-www-form-urlencoded`, UTF-8, at most 64 KiB, no U+0000 or lone surrogate), or null. */
export async function readForm(req: Request): Promise<URLSearchParams | null> {
  const bytes = await req.body()
  if (bytes.length > 65_536) return null
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return null
  }
  const form = new URLSearchParams(text)
  for (const [name, value] of form) if (textDefect(name) !== null || textDefect(value) !== null) return null
  return form
}

function wholeNumber(text: string | null, min: number, max: number): number | null {
  if (text === null || !/^[0-9]{1,4}$/.test(text.trim())) return null
  const n = Number(text.trim())
  return n >= min && n <= max ? n : null
}

function cookiesOf(headers: Headers): string[] {
  const value = headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

function expired(name: string, secure: boolean): string {
  return serializeCookie(name, '', { httpOnly: true, secure, sameSite: 'Lax', path: '/', maxAgeSeconds: 0 })
}
