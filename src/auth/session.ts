/**
 * Cookie sessions (docs/core.md, "Sessions and credentials"): a row per session in `sessions`,
 * and a cookie that carries the row's id sealed with tweetnacl's `secretbox` under the session secret.
 *
 * `secretbox` rather than signatures: tweetnacl verifies about 56 Ed25519 signatures a second on
 * a 2-core machine against about 158,000 `secretbox` opens, so a signature check per request
 * would be a denial of service.
 */
import nacl from 'tweetnacl'
import type { Query, Sql } from '../db/client.ts'
import { hashSecret, randomToken } from '../base/random.ts'
import type { Request } from '../http/request.ts'
import { serializeCookie } from '../http/cookie.ts'

/** How long a session lives. */
export const SESSION_DAYS = 30
const SESSION_MS = SESSION_DAYS * 24 * 60 * 60 * 1000
/** A session id: 24 random bytes in base64url. */
const SESSION_ID_BYTES = 24
const SESSION_ID = /^[A-Za-z0-9_-]{32}$/
/** The length of a session cookie's value: base64url of nonce (24) ‖ id (32) ‖ MAC (16). */
const SEALED_LENGTH = ((24 + 32 + 16) / 3) * 4

export interface Session {
  /** The id the cookie carries; the row is stored under its hash ({@link hashSecret}). */
  id: string
  userId: string | null
  data: Record<string, unknown>
  /** True for a session made by `create()` or `renew()` (not loaded from a cookie): its cookie must be sent. */
  isNew: boolean
}

/** Seals a session id for a cookie: base64url(nonce ‖ secretbox(id)). */
export function seal(id: string, key: Uint8Array): string {
  const nonce = nacl.randomBytes(nacl.secretbox.nonceLength)
  const box = nacl.secretbox(new TextEncoder().encode(id), nonce, key)
  const out = new Uint8Array(nonce.length + box.length)
  out.set(nonce)
  out.set(box, nonce.length)
  return Buffer.from(out).toString('base64url')
}

/**
 * Opens a sealed cookie value; null when it was not sealed with `key`, was altered, or is not
 * written in canonical base64url (so one sealed value has one spelling: a character added at the
 * end, or unused low bits set in the last one, make no credential).
 */
export function unseal(cookie: string, key: Uint8Array): string | null {
  if (cookie.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cookie)) return null
  const decoded = Buffer.from(cookie, 'base64url')
  if (decoded.toString('base64url') !== cookie) return null
  const bytes = new Uint8Array(decoded)
  const n = nacl.secretbox.nonceLength
  if (bytes.length <= n + nacl.secretbox.overheadLength) return null
  const opened = nacl.secretbox.open(bytes.subarray(n), bytes.subarray(0, n), key)
  if (!opened) return null
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(opened)
  } catch {
    return null
  }
}

/**
 * The session secret: `configured` when given, else the one kept in `settings`, made once
 * (the first process to start wins; the others read its secret).
 */
export async function loadSessionSecret(
  sql: Sql,
  configured: Uint8Array | null,
): Promise<Uint8Array> {
  if (configured) return configured
  const fresh = Buffer.from(nacl.randomBytes(nacl.secretbox.keyLength)).toString('base64')
  await sql`insert into settings (key, value) values ('session_secret', ${fresh}) on conflict (key) do nothing`
  const [row] = await sql`select value from settings where key = 'session_secret'`
  return new Uint8Array(Buffer.from(row!.value as string, 'base64'))
}

export interface Sessions {
  readonly cookieName: string
  /** The request's session, or null for no cookie, a cookie that does not open, an expired or unknown session. */
  load(req: Request): Promise<Session | null>
  /** A new, unsaved session. */
  create(): Session
  /**
   * The session under a fresh id, its user and data carried over, unsaved: saving it removes
   * the old row, so the old cookie names nothing. Every sign-in takes one (docs/core.md).
   */
  renew(session: Session): Session
  /** Stores the session (and starts its 30 days when new). */
  save(session: Session): Promise<void>
  /** Removes the session's row: its cookie names nothing from then on, in every process. */
  remove(session: Session): Promise<void>
  /** The `Set-Cookie` value for a session. */
  cookie(session: Session): string
  /** The `Set-Cookie` value that makes the browser forget its session cookie. */
  clearCookie(): string
}

/**
 * Sessions of one service; `secure` adds `Secure` to the cookie (an https public URL).
 *
 * Every load reads the session's row, so a row deleted by any code path in any process (a
 * sign-out, an account disabled at the identity provider) ends the session on the next request
 * everywhere. `service` names the cookie (`<service>_session`) and the rows it owns. */
export function createSessions(deps: {
  sql: Sql
  secret: Uint8Array
  service: string
  secure: boolean
  clock: () => number
}): Sessions {
  const { sql, secret, service, clock } = deps
  const cookieName = `${service}_session`
  // A renewed session, and the id of the row its save replaces.
  const replaces = new WeakMap<Session, string>()

  function cookieWith(value: string, maxAgeSeconds: number): string {
    return serializeCookie(cookieName, value, {
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
      secure: deps.secure,
      maxAgeSeconds,
    })
  }

  return {
    cookieName,
    async load(req) {
      const sealed = req.cookies[cookieName]
      if (!sealed) return null
      const id = sealed.length === SEALED_LENGTH ? unseal(sealed, secret) : null
      if (id === null || !SESSION_ID.test(id)) return null
      const [row] = await sql`
        select user_id, data from sessions
        where id = ${hashSecret(id)} and service = ${service} and expires > ${clock()}`
      if (!row) return null
      return {
        id,
        userId: row.user_id as string | null,
        data: (row.data ?? {}) as Record<string, unknown>,
        isNew: false,
      }
    },
    create() {
      return { id: randomToken(SESSION_ID_BYTES), userId: null, data: {}, isNew: true }
    },
    renew(session) {
      const renewed: Session = {
        id: randomToken(SESSION_ID_BYTES),
        userId: session.userId,
        data: session.data,
        isNew: true,
      }
      if (!session.isNew) replaces.set(renewed, session.id)
      return renewed
    },
    async save(session) {
      const now = clock()
      const insert = sql`
        insert into sessions (id, service, user_id, data, created, expires)
        values (${hashSecret(session.id)}, ${service}, ${session.userId}, ${sql.json(session.data as never)}, ${now}, ${now + SESSION_MS})
        on conflict (id) do update set user_id = excluded.user_id, data = excluded.data`
      const old = replaces.get(session)
      if (old === undefined) await insert
      else
        await sql`with gone as (delete from sessions where id = ${hashSecret(old)} and service = ${service}) ${insert}`
      replaces.delete(session)
    },
    async remove(session) {
      await sql`delete from sessions where id = ${hashSecret(session.id)} and service = ${service}`
    },
    cookie(session) {
      return cookieWith(seal(session.id, secret), SESSION_MS / 1000)
    },
    clearCookie() {
      return cookieWith('', 0)
    },
  }
}

/**
 * Ends every session of `userId` at `service` on `q` (the provider's transaction, when it
 * disables an account, signs it out everywhere, or changes or resets its password): its cookies
 * name nothing from then on.
 */
export async function endSessionsOf(q: Query, service: string, userId: string): Promise<void> {
  await q`delete from sessions where service = ${service} and user_id = ${userId}`
}

/**
 * Ends every session at `service` that the provider's sign-in `sid` started (its data's
 * `idpSid`, kept from the exchange), on `q`: that browser signed out at the provider or in an app
 * (docs/core.md, "Signing out").
 */
export async function endSignInSessions(q: Query, service: string, sid: string): Promise<void> {
  await q`delete from sessions where service = ${service} and data ? 'idpSid' and data ->> 'idpSid' = ${sid}`
}
