/**
 * Passkeys at the built-in provider (WebAuthn through `@simplewebauthn/server`): a signed-in
 * person adds, renames and removes them on `/account`; anyone signs in with one on the sign-in
 * page, without a name or password (discoverable credentials). Each ceremony's challenge
 * travels in a short-lived HttpOnly cookie of the browser that asked for it, so a response
 * verifies only in that browser, and is cleared once used.
 *
 * The relying party is the provider's public address (`IDP_URL`): its host is the RP ID and
 * its origin the expected origin.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'
import { serializeCookie } from '../http/cookie.ts'
import type { Sql } from '../db/client.ts'
import type { HttpRoute } from '../http/handler.ts'
import { NOT_AN_OBJECT, parseJsonObject } from '../http/json-validate.ts'
import { answerRefusal, reason, refuse, type Refusal } from '../http/refusal.ts'
import type { Request } from '../http/request.ts'
import { json, jsonError, redirect, type Response } from '../http/response.ts'
import type { BrowserBinding } from './browser-binding.ts'
import type { Checked, ProviderCore } from './provider-core.ts'
import { SESSION_COOKIE, type Account, type AccountStore } from './store.ts'
import { cookieName } from './cookies.ts'

/**
 * The WebAuthn library, loaded at the first ceremony rather than at start: loading it costs
 * about 0.5 s of CPU (its ASN.1 and COSE parsers), half of what loading the whole application
 * costs, which every start of a process paid whether anyone used a passkey or not.
 */
const webauthn = () => import('@simplewebauthn/server')

const PAGE_EXPIRED = reason('form_expired', 'This page has expired. Reload it and try again.')
const CHALLENGE_COOKIE = 'idp_challenge'
const CHALLENGE_SECONDS = 300
/** How many passkeys one account may have. */
export const MOST_PASSKEYS = 20

export const PASSKEY_TEXT = {
  notVerified: 'The passkey could not be verified. Try again.',
  unknown:
    'This passkey is not known here. Sign in with your name and password, then add it on your account page.',
  tooMany: `An account has at most ${MOST_PASSKEYS} passkeys. Remove one first.`,
} as const

export interface PasskeyItem {
  id: string
  name: string
  created: number
  lastUsed: number | null
}

interface PageTools {
  memberForm(
    req: Request,
    owner: boolean,
  ): Promise<Checked<{ account: Account; form: URLSearchParams }>>
  refused(req: Request, refusal: Refusal): Response
  accountPage(
    req: Request,
    account: Account,
    status?: number,
    notice?: string | null,
    errors?: { passkey?: string },
  ): Promise<Response>
}

export function createPasskeys(deps: {
  sql: Sql
  clock: () => number
  store: AccountStore
  core: ProviderCore
  binding: BrowserBinding
  publicUrl: string
}) {
  const { sql, clock, store, core, binding } = deps
  const origin = new URL(deps.publicUrl).origin
  const rpID = new URL(deps.publicUrl).hostname
  const secure = deps.publicUrl.startsWith('https:')

  const challengeCookie = (value: string, seconds: number) =>
    serializeCookie(CHALLENGE_COOKIE, value, {
      httpOnly: true,
      secure,
      sameSite: 'Strict',
      path: '/passkeys/',
      maxAgeSeconds: seconds,
    })

  /** The JSON body of a passkey request, its browser token checked; else the 4xx. */
  async function jsonBody(
    req: Request,
  ): Promise<{ ok: true; body: Record<string, unknown> } | Refusal> {
    const parsed = parseJsonObject(await req.body())
    // The page's script sends these bodies: one that is not JSON is answered as not an object.
    if (!parsed.ok) return refuse(400, reason('bad_json', NOT_AN_OBJECT))
    const body = parsed.value
    if (!binding.check(req, typeof body.csrf === 'string' ? body.csrf : null))
      return refuse(403, PAGE_EXPIRED)
    return { ok: true, body }
  }

  /** The challenge this browser was given, or null. */
  const challengeOf = (req: Request): string | null => {
    const value = req.cookies[CHALLENGE_COOKIE]
    return value !== undefined && /^[A-Za-z0-9_-]{16,100}$/.test(value) ? value : null
  }

  /** A redirect answer as JSON for the page's script, keeping its cookies. */
  function asJson(response: Response, extraCookie: string): Response {
    const location = String(response.headers?.location ?? '/account')
    const cookies = response.headers?.['set-cookie']
    const setCookie = [
      ...(cookies === undefined ? [] : Array.isArray(cookies) ? cookies : [cookies]),
      extraCookie,
    ]
    return json(200, { location }, { 'set-cookie': setCookie, 'cache-control': 'no-store' })
  }

  async function list(accountId: string): Promise<PasskeyItem[]> {
    const rows = await sql<
      { id: string; name: string; created: number; last_used: number | null }[]
    >`
      select id, name, created, last_used from idp_passkeys where account_id = ${accountId} order by created, id`
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      created: Number(r.created),
      lastUsed: r.last_used === null ? null : Number(r.last_used),
    }))
  }

  function routes(tools: PageTools): HttpRoute[] {
    return [
      {
        method: 'POST',
        path: '/passkeys/signin/options',
        rateLimit: 'signin',
        handler: async (req) => {
          const got = await jsonBody(req)
          if (!got.ok) return answerRefusal(got)
          const options = await (
            await webauthn()
          ).generateAuthenticationOptions({
            rpID,
            userVerification: 'preferred',
          })
          return json(200, options, {
            'set-cookie': challengeCookie(options.challenge, CHALLENGE_SECONDS),
            'cache-control': 'no-store',
          })
        },
      },
      {
        method: 'POST',
        path: '/passkeys/signin',
        rateLimit: 'signin',
        handler: async (req) => {
          const got = await jsonBody(req)
          if (!got.ok) return answerRefusal(got)
          const request = core.loginRequest(stringOf(got.body.key), stringOf(got.body.return))
          if (!request.ok)
            return jsonError(
              400,
              'This sign-in cannot go on: go back to the app and press Sign in again.',
            )
          const expectedChallenge = challengeOf(req)
          const response = got.body.response as AuthenticationResponseJSON | undefined
          if (
            expectedChallenge === null ||
            typeof response !== 'object' ||
            response === null ||
            typeof response.id !== 'string'
          ) {
            return jsonError(400, PASSKEY_TEXT.notVerified)
          }
          const [row] = await sql<
            {
              id: string
              account_id: string
              public_key: Uint8Array
              counter: number
              transports: string
            }[]
          >`
            select id, account_id, public_key, counter, transports from idp_passkeys where id = ${response.id.slice(0, 1400)}`
          if (!row) return jsonError(400, PASSKEY_TEXT.unknown)
          let verified
          try {
            verified = await (
              await webauthn()
            ).verifyAuthenticationResponse({
              response,
              expectedChallenge,
              expectedOrigin: origin,
              expectedRPID: rpID,
              credential: {
                id: row.id,
                publicKey: new Uint8Array(row.public_key),
                counter: Number(row.counter),
                transports: row.transports ? row.transports.split(',') : undefined,
              },
              requireUserVerification: false,
            })
          } catch {
            return jsonError(400, PASSKEY_TEXT.notVerified)
          }
          if (!verified.verified) return jsonError(400, PASSKEY_TEXT.notVerified)
          await sql`update idp_passkeys set counter = ${verified.authenticationInfo.newCounter}, last_used = ${clock()} where id = ${row.id}`
          const account = await store.byId(row.account_id)
          if (account === null || account.disabled)
            return jsonError(403, 'This account is disabled.')
          return asJson(await core.finish(req, account, request.request), challengeCookie('', 0))
        },
      },
      {
        method: 'POST',
        path: '/passkeys/register/options',
        handler: async (req) => {
          const account = await store.sessionAccount(
            req.cookies[cookieName(SESSION_COOKIE, secure)],
          )
          if (account === null) return jsonError(401, 'Sign in first.')
          const got = await jsonBody(req)
          if (!got.ok) return answerRefusal(got)
          const existing = await sql<
            { id: string; transports: string }[]
          >`select id, transports from idp_passkeys where account_id = ${account.id}`
          if (existing.length >= MOST_PASSKEYS) return jsonError(400, PASSKEY_TEXT.tooMany)
          const options = await (
            await webauthn()
          ).generateRegistrationOptions({
            rpName: 'Notes and tickets',
            rpID,
            userName: account.name,
            userDisplayName: account.displayName,
            userID: new TextEncoder().encode(account.id),
            attestationType: 'none',
            excludeCredentials: existing.map((k) => ({
              id: k.id,
              transports: k.transports ? (k.transports.split(',') as never) : undefined,
            })),
            authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
          })
          return json(200, options, {
            'set-cookie': challengeCookie(options.challenge, CHALLENGE_SECONDS),
            'cache-control': 'no-store',
          })
        },
      },
      {
        method: 'POST',
        path: '/passkeys/register',
        handler: async (req) => {
          const account = await store.sessionAccount(
            req.cookies[cookieName(SESSION_COOKIE, secure)],
          )
          if (account === null) return jsonError(401, 'Sign in first.')
          const got = await jsonBody(req)
          if (!got.ok) return answerRefusal(got)
          const expectedChallenge = challengeOf(req)
          const response = got.body.response as RegistrationResponseJSON | undefined
          if (expectedChallenge === null || typeof response !== 'object' || response === null)
            return jsonError(400, PASSKEY_TEXT.notVerified)
          let verified
          try {
            verified = await (
              await webauthn()
            ).verifyRegistrationResponse({
              response,
              expectedChallenge,
              expectedOrigin: origin,
              expectedRPID: rpID,
              requireUserVerification: false,
            })
          } catch {
            return jsonError(400, PASSKEY_TEXT.notVerified)
          }
          if (!verified.verified) return jsonError(400, PASSKEY_TEXT.notVerified)
          const { credential } = verified.registrationInfo
          const [counted] = await sql<
            { count: number }[]
          >`select count(*)::int as count from idp_passkeys where account_id = ${account.id}`
          const count = counted?.count ?? 0
          const now = clock()
          const inserted = await sql`
            insert into idp_passkeys (id, account_id, public_key, counter, transports, name, created)
            values (${credential.id}, ${account.id}, ${Buffer.from(credential.publicKey)}, ${credential.counter}, ${(credential.transports ?? []).join(',')}, ${`Passkey ${count + 1}`}, ${now})
            on conflict (id) do nothing returning 1`
          if (inserted.length === 0) return jsonError(400, 'This passkey is added already.')
          return json(
            200,
            { location: '/account?done=passkey' },
            { 'set-cookie': challengeCookie('', 0), 'cache-control': 'no-store' },
          )
        },
      },
      {
        method: 'POST',
        path: '/account/passkeys/rename',
        handler: async (req) => {
          const got = await tools.memberForm(req, false)
          if (!got.ok) return tools.refused(req, got)
          const name = (got.form.get('name') ?? '').trim()
          if (name === '' || name.length > 60)
            return tools.accountPage(req, got.account, 400, null, {
              passkey: 'A passkey name has 1 to 60 characters.',
            })
          await sql`update idp_passkeys set name = ${name} where id = ${got.form.get('id') ?? ''} and account_id = ${got.account.id}`
          return redirect(303, '/account?done=renamed')
        },
      },
      {
        method: 'POST',
        path: '/account/passkeys/remove',
        handler: async (req) => {
          const got = await tools.memberForm(req, false)
          if (!got.ok) return tools.refused(req, got)
          await sql`delete from idp_passkeys where id = ${got.form.get('id') ?? ''} and account_id = ${got.account.id}`
          return redirect(303, '/account?done=removed')
        },
      },
    ]
  }

  return { list, routes }
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}
