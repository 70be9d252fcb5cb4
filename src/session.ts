/**
 * Cookie sessions (docs/core.md, "Sessions and credentials"): a row per session in `sessions`,
 * and a cookie that carries the row's id sealed with tweetnacl's `secretbox` under the session secret.
 *
 * `secretbox` rather than signatures: tweetnacl verifies about 56 Ed25519 signatures a second on
 * a 2-core machine against about 158,000 `secretbox` opens, so a signature check per request
 * would be a denial of service.
 */
import nacl from 'tweetnacl'
import type { Sql } from './db.ts'
import { keepNewest } from './kept.ts'
import { randomToken } from './random.ts'
import type { Request } from './request.ts'
import { serializeCookie } from './cookie.ts'
import type { ServiceName } from './config.ts'

/** How long a session lives. */
export const SESSION_DAYS = 30
const SESSION_MS = SESSION_DAYS * 24 * 60 * 60 * 1000

export interface Session {
  id: string
  userId: string | null
  data: Record<string, unknown>
  /** True for a session made by `create()` (not loaded from a cookie): its cookie must be sent. */
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

/** Opens a sealed cookie value; null when it was not sealed with `key` or was altered. */
export function unseal(cookie: string, key: Uint8Array): string | null {
  if (cookie.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cookie)) return null
  const bytes = new Uint8Array(Buffer.from(cookie, 'base64url'))
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

/** A copy a handler may change without changing the cached session; most sessions hold no data. */
function copy(data: Record<string, unknown>): Record<string, unknown> {
  for (const _ in data) return structuredClone(data)
  return {}
}

/**
 * The session secret: `configured` when given, else the one kept in `settings`, made once
 * (the first process to start wins; the others read its secret).
 */
export async function loadSessionSecret(sql: Sql, configured: Uint8Array | null): Promise<Uint8Array> {
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
  /** Stores the session (and starts its 30 days when new). */
  save(session: Session): Promise<void>
  /** The `Set-Cookie` value for a session. */
  cookie(session: Session): string
}

/** How long a signed-in session read from the database is reused without asking it again. */
export const SESSION_CACHE_MS = 5_000
const SESSION_CACHE_SIZE = 10_000

interface Cached {
  userId: string
  data: Record<string, unknown>
  expires: number
  /** Until when the entry may be used. */
  fresh: number
}

/**
 * Sessions of one service; `secure` adds `Secure` to the cookie (an https public URL).
 *
 * Signed-in sessions are kept in memory for {@link SESSION_CACHE_MS} after they are read or
 * saved: the lookup is a database round trip on every API request, and it measured as costly as
 * the notes store's whole save. What this process saves it sees at once; a change another process
 * makes to the same session (a new sign-in with the same cookie) is seen within that time.
 * Sessions without a user are never cached, so a sign-in is seen everywhere at once.
 */
export function createSessions(deps: { sql: Sql; secret: Uint8Array; service: ServiceName; secure: boolean; clock: () => number; cacheMs?: number }): Sessions {
  const { sql, secret, service, clock } = deps
  const cacheMs = deps.cacheMs ?? SESSION_CACHE_MS
  const cookieName = `${service}_session`
  const cache = new Map<string, Cached>()
  // Cookies that opened, and the id inside: opening one (tweetnacl in JavaScript) was half of a
  // note save's time in the handler. A cookie always opens to the same id, so an entry never
  // goes stale; a cookie that did not open is never kept.
  const opened = new Map<string, string>()

  function open(sealed: string): string | null {
    const known = opened.get(sealed)
    if (known !== undefined) return known
    const id = unseal(sealed, secret)
    if (id === null) return null
    keepNewest(opened, sealed, id, SESSION_CACHE_SIZE)
    return id
  }

  function remember(id: string, userId: string | null, data: Record<string, unknown>, expires: number): void {
    cache.delete(id)
    if (userId === null || cacheMs <= 0) return
    keepNewest(cache, id, { userId, data: copy(data), expires, fresh: clock() + cacheMs }, SESSION_CACHE_SIZE)
  }

  return {
    cookieName,
    async load(req) {
      const sealed = req.cookies[cookieName]
      if (!sealed) return null
      const id = open(sealed)
      if (id === null) return null
      const now = clock()
      const hit = cache.get(id)
      if (hit && hit.fresh > now && hit.expires > now) return { id, userId: hit.userId, data: copy(hit.data), isNew: false }
      const [row] = await sql`
        select user_id, data, expires from sessions
        where id = ${id} and service = ${service} and expires > ${now}`
      if (!row) {
        cache.delete(id)
        return null
      }
      const data = (row.data ?? {}) as Record<string, unknown>
      remember(id, row.user_id as string | null, data, row.expires as number)
      return { id, userId: row.user_id as string | null, data, isNew: false }
    },
    create() {
      return { id: randomToken(24), userId: null, data: {}, isNew: true }
    },
    async save(session) {
      const now = clock()
      const [row] = await sql`
        insert into sessions (id, service, user_id, data, created, expires)
        values (${session.id}, ${service}, ${session.userId}, ${sql.json(session.data as never)}, ${now}, ${now + SESSION_MS})
        on conflict (id) do update set user_id = excluded.user_id, data = excluded.data
        returning expires`
      remember(session.id, session.userId, session.data, row!.expires as number)
    },
    cookie(session) {
      return serializeCookie(cookieName, seal(session.id, secret), {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        secure: deps.secure,
        maxAgeSeconds: SESSION_MS / 1000,
      })
    },
  }
}
