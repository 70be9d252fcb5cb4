/**
 * User tokens (docs/core.md, "Sessions and credentials"; docs/tickets-api.md,
 * "Tokens and the session"): `tt_` and 32 random bytes in base64url, shown once, stored as a
 * SHA-256 hash, revoked at once. Also `GET /api/me`, which a page's own scripts read for the user and the session's tag.
 */
import { json, PRIVATE_NO_STORE } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import { randomToken, recordId } from '../../base/random.ts'
import { TOKEN_PREFIX } from '../credentials.ts'
import { hashSecret } from '../../base/random.ts'
import type { Context } from '../context.ts'
import type { TicketStore } from '../store/ticket-store.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import { NO_SUCH_TOKEN, fieldTooLong } from '../rules/messages.ts'
import { acceptWrite } from './accept-write.ts'
import { LABEL_MAX } from '../rules/lengths.ts'

export interface IssuedToken {
  id: string
  /** The secret, shown this once. */
  token: string
  label: string
  created: number
}

/** Makes a token for a user. */
export async function issueToken(
  store: TicketStore,
  userId: string,
  label: string,
): Promise<IssuedToken> {
  const id = recordId()
  const token = TOKEN_PREFIX + randomToken(32)
  const created = await store.tokens.insert({ id, userId, hash: hashSecret(token), label })
  return { id, token, label, created }
}

export interface TokenHandlers {
  issue: Handler
  list: Handler
  revoke: Handler
  me: Handler
}

export function createTokenHandlers(ctx: Context): TokenHandlers {
  const { store } = ctx
  return {
    async issue(req) {
      const w = await acceptWrite(ctx, req, 'user', { label: 'required' })
      if (!w.ok) return answerRefusal(w)
      const label = w.body.label!
      if (label.length > LABEL_MAX)
        return answerRefusal(refuse(400, fieldTooLong('label', LABEL_MAX), 'label'))
      return json(201, await issueToken(store, w.caller.user.id, label), PRIVATE_NO_STORE)
    },
    async list(req) {
      const who = await ctx.credentials.resolve(req, 'user')
      if (!who.ok) return answerRefusal(who)
      return json(200, { tokens: await store.tokens.of(who.caller.user.id) }, PRIVATE_NO_STORE)
    },
    async revoke(req) {
      const w = await acceptWrite(ctx, req, 'user', { id: 'required' })
      if (!w.ok) return answerRefusal(w)
      if (!(await store.tokens.delete(w.caller.user.id, w.body.id!)))
        return answerRefusal(refuse(404, NO_SUCH_TOKEN, 'id'))
      return json(200, { ok: true })
    },
    async me(req) {
      const { session, user } = await ctx.credentials.session(req)
      const tag = typeof session?.data.tag === 'string' ? session.data.tag : null
      return json(200, { user, tag }, PRIVATE_NO_STORE)
    },
  }
}
