/**
 * User tokens (decisions.md section 4): `tt_` and 32 random bytes in base64url, shown once,
 * stored as a SHA-256 hash, revoked at once. Also `GET /api/me`, which a page's own scripts
 * read for the user and the session's tag.
 */
import { json, type Handler } from '../http.ts'
import { randomToken } from '../session.ts'
import { hashSecret, TOKEN_PREFIX } from './auth.ts'
import type { Context, Query } from './context.ts'
import { answerDenied, deny } from './denied.ts'
import { recordId } from './ids.ts'
import { NO_SUCH_TOKEN } from './texts.ts'
import { acceptWrite } from './write.ts'

const LABEL_MAX = 200

export interface IssuedToken {
  id: string
  /** The secret, shown this once. */
  token: string
  label: string
  created: number
}

/** Makes a token for a user. */
export async function issueToken(q: Query, userId: string, label: string, now: number): Promise<IssuedToken> {
  const id = recordId()
  const token = TOKEN_PREFIX + randomToken(32)
  await q`
    insert into tokens (id, user_id, hash, label, created)
    values (${id}, ${userId}, ${hashSecret(token)}, ${label}, ${now})`
  return { id, token, label, created: now }
}

export interface TokenHandlers {
  issue: Handler
  list: Handler
  revoke: Handler
  me: Handler
}

export function tokenHandlers(ctx: Context): TokenHandlers {
  const { sql } = ctx
  return {
    async issue(req) {
      const w = await acceptWrite(ctx, req, 'B', { label: 'required' })
      if (!w.ok) return w.response
      const label = w.body.label!
      if (label.length > LABEL_MAX) return answerDenied(deny(400, `'label' is at most ${LABEL_MAX} characters`, 'label'))
      return json(201, await issueToken(sql, w.caller.user.id, label, ctx.clock()))
    },
    async list(req) {
      const who = await ctx.credentials.resolve(req, 'B')
      if (!who.ok) return who.response
      const rows = await sql`
        select id, label, created, last_used from tokens
        where user_id = ${who.caller.user.id} order by created, id`
      const tokens = rows.map((r) => ({ id: r.id, label: r.label, created: r.created, lastUsed: r.last_used }))
      return json(200, { tokens })
    },
    async revoke(req) {
      const w = await acceptWrite(ctx, req, 'B', { id: 'required' })
      if (!w.ok) return w.response
      const gone = await sql`delete from tokens where id = ${w.body.id!} and user_id = ${w.caller.user.id} returning id`
      if (gone.length === 0) return answerDenied(deny(404, NO_SUCH_TOKEN, 'id'))
      return json(200, { ok: true })
    },
    async me(req) {
      const { session, user } = await ctx.credentials.session(req)
      const tag = typeof session?.data.tag === 'string' ? session.data.tag : null
      return json(200, { user, tag }, { 'cache-control': 'no-store' })
    },
  }
}
