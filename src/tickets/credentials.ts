/**
 * Who is calling (docs/tickets-api.md, "Conventions", Credentials; docs/core.md,
 * "Sessions and credentials"): a user token sent as `Authorization: Bearer tt_...`, the session
 * cookie with the session's tag in `x-tag`, or, on routes that take a user or a key (create
 * ticket, comment, state change), a connected app's project key `Bearer tk_...`. Routes for users
 * only refuse keys with `a user token is needed`.
 *
 * A key acts as the person who confirmed its connection, only in its project and only while
 * that person is a member of it ({@link Credentials.actingUser}); the events it makes carry the
 * connection's label as `app`.
 */
import { hashSecret } from '../base/random.ts'
import type { Request } from '../http/request.ts'
import { refuseCrossSite, refuseTag } from '../http/guards.ts'
import type { Session, Sessions } from '../auth/session.ts'
import { refuse, type Reason, type Refusal } from '../http/refusal.ts'
import {
  BAD_TOKEN,
  KEY_OTHER_PROJECT,
  KEY_PERSON_GONE,
  TOKEN_NEEDED,
  USER_TOKEN_NEEDED,
} from './rules/messages.ts'
import type { TicketStore } from './store/ticket-store.ts'
import type { User } from './store/users.ts'

export const TOKEN_PREFIX = 'tt_'
export const KEY_PREFIX = 'tk_'

/** Who a route takes: a user (token or session) or a connected app's project key, or a user only. */
export type Callers = 'user-or-key' | 'user'

/** A person, by token or by session cookie. */
export type UserCaller = { kind: 'user'; user: User; via: 'token' | 'session' }

/** A connected app, by its project key. */
export type KeyCaller = { kind: 'key'; via: 'key'; connection: KeyConnection }

/** What a project key stands for. */
export interface KeyConnection {
  id: string
  projectId: string
  /** The person who confirmed the connection. */
  userId: string
  /** The app's label, recorded on the events the key makes. */
  label: string
}

/** An authenticated caller. */
export type Caller = UserCaller | KeyCaller

export type CallerResult<C extends Caller = Caller> = { ok: true; caller: C } | Refusal

/** The person a write acts as in a project; `app` is a connected app's label, else null. */
export type ActingResult = { ok: true; user: User; app: string | null } | Refusal

export interface Credentials {
  /** Resolves the credential of a write (or a read that needs one), before its body is read. */
  resolve(req: Request, callers: 'user'): Promise<CallerResult<UserCaller>>
  resolve(req: Request, callers: Callers): Promise<CallerResult>
  /**
   * The person the caller acts as inside `projectId`: a user as themselves; a key as its
   * confirming person, when `projectId` is the key's project and that person is still a member
   * of it (else 403 `{ error, field: 'project' }`).
   */
  actingUser(caller: Caller, projectId: string): Promise<ActingResult>
  /**
   * Who the credential the rate limiter counts the request by belongs to (`user:<id>`,
   * `key:<id>`), or null when it is no known one: the `Authorization` header when sent
   * (`Bearer ` and a live token or key, written exactly so, so that one secret is one
   * credential), else the cookie of a signed-in session.
   */
  owner(req: Request): Promise<string | null>
  /** The request's session and its logged-in user, if any (for `GET /api/me`). */
  session(req: Request): Promise<{ session: Session | null; user: User | null }>
  /** Clears the session's note of a switch of person, once a page has said it. */
  forgetSwitch(session: Session): Promise<void>
  /**
   * Who reads, for a public read that can say "me" (a search's `assignee:me`): the user of a
   * user token, else of the session; null for nobody, a key or a bad token. A read changes
   * nothing, so the session needs no `x-tag`.
   */
  reader(req: Request): Promise<string | null>
}

// `last_used` is written at most once a minute per token or key, so reads with one stay reads.
const LAST_USED_STEP_MS = 60_000

const BEARER = /^Bearer +(\S+) *$/i

/**
 * True when `secret` is spelled as the service makes them: `tt_` or `tk_` and 32 bytes in
 * canonical base64url (43 characters, the last one's unused bits zero). Any other spelling is
 * no credential, so one secret is one string.
 */
export function wellFormedSecret(secret: string): boolean {
  if (!/^t[tk]_[A-Za-z0-9_-]{43}$/.test(secret)) return false
  const body = secret.slice(3)
  return Buffer.from(body, 'base64url').toString('base64url') === body
}

export function createCredentials(deps: {
  store: TicketStore
  clock: () => number
  sessions: Sessions
  origin: string
}): Credentials {
  const { store, clock, sessions, origin } = deps

  function due(lastUsed: number | null, now: number): boolean {
    return lastUsed === null || lastUsed <= now - LAST_USED_STEP_MS
  }

  async function byToken(secret: string): Promise<User | null> {
    const token = await store.tokens.byHash(hashSecret(secret))
    if (!token) return null
    if (due(token.lastUsed, clock())) await store.tokens.markUsed(token.id)
    return token.user
  }

  async function byKey(secret: string): Promise<KeyConnection | null> {
    const row = await store.connections.byHash(hashSecret(secret))
    if (!row) return null
    if (due(row.lastUsed, clock())) await store.connections.markUsed(row.id)
    return { id: row.id, projectId: row.projectId, userId: row.userId, label: row.label }
  }

  async function resolve(req: Request, callers: Callers): Promise<CallerResult> {
    const header = req.headers.authorization
    if (header !== undefined && header !== '') {
      const secret = BEARER.exec(header)?.[1]
      if (secret?.startsWith(KEY_PREFIX) && callers === 'user')
        return refused(401, USER_TOKEN_NEEDED)
      if (secret === undefined || !wellFormedSecret(secret)) return refused(401, BAD_TOKEN)
      if (secret.startsWith(KEY_PREFIX)) {
        const connection = await byKey(secret)
        return connection
          ? { ok: true, caller: { kind: 'key', via: 'key', connection } }
          : refused(401, BAD_TOKEN)
      }
      const user = await byToken(secret)
      return user
        ? { ok: true, caller: { kind: 'user', user, via: 'token' } }
        : refused(401, BAD_TOKEN)
    }
    const session = await sessions.load(req)
    const user = session?.userId ? await store.users.byId(session.userId) : null
    if (session === null || user === null) return refused(401, TOKEN_NEEDED)
    const refusal =
      refuseCrossSite(req, sessions.cookieName, origin) ?? refuseTag(req, session.data.tag)
    if (refusal) return refusal
    return { ok: true, caller: { kind: 'user', user, via: 'session' } }
  }

  return {
    resolve: resolve as Credentials['resolve'],
    async actingUser(caller, projectId) {
      if (caller.kind === 'user') return { ok: true, user: caller.user, app: null }
      const { connection } = caller
      if (connection.projectId !== projectId) return refuse(403, KEY_OTHER_PROJECT, 'project')
      const user = await store.users.memberById(projectId, connection.userId)
      if (!user) return refuse(403, KEY_PERSON_GONE, 'project')
      return { ok: true, user, app: connection.label }
    },
    async owner(req) {
      const header = req.headers.authorization
      if (header === undefined || header === '') {
        const userId = (await sessions.load(req))?.userId ?? null
        return userId === null ? null : `user:${userId}`
      }
      const secret = BEARER.exec(header)?.[1]
      if (secret === undefined || header !== `Bearer ${secret}` || !wellFormedSecret(secret))
        return null
      if (secret.startsWith(TOKEN_PREFIX)) {
        const token = await store.tokens.byHash(hashSecret(secret))
        return token ? `user:${token.user.id}` : null
      }
      const key = await store.connections.byHash(hashSecret(secret))
      return key ? `key:${key.id}` : null
    },
    async forgetSwitch(session) {
      session.data = { ...session.data, switchedFrom: null }
      await sessions.save(session)
    },
    async session(req) {
      const session = await sessions.load(req)
      const user = session?.userId ? await store.users.byId(session.userId) : null
      return { session, user }
    },
    async reader(req) {
      const secret = BEARER.exec(req.headers.authorization ?? '')?.[1]
      if (secret !== undefined)
        return secret.startsWith(TOKEN_PREFIX) && wellFormedSecret(secret)
          ? ((await byToken(secret))?.id ?? null)
          : null
      const session = await sessions.load(req)
      return session?.userId ?? null
    },
  }
}

function refused(status: 401, why: Reason): Refusal {
  return refuse(status, why)
}
