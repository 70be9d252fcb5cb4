/**
 * The invite route (docs/tickets-api.md, 4.8, "POST /api/projects/<slug>/invites"): the invite is
 * the domain's (src/tickets/domain/invites.ts); the link is the identity provider's login address
 * returning to the login callback with the invite's id (128 random bits), mailed when asked.
 */
import { json } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import { NO_SUCH_PROJECT } from '../rules/messages.ts'
import { makeInvite, openInvites, revokeInvite } from '../domain/invites.ts'
import type { OpenInvite } from '../store/invites.ts'
import { acceptWrite } from './accept-write.ts'

export function createInviteHandler(ctx: Context): Handler {
  const { store, publicUrl } = ctx
  return async (req) => {
    const w = await acceptWrite(ctx, req, 'user', {
      role: 'required',
      uses: 'optional',
      days: 'optional',
      email: 'optional',
    })
    if (!w.ok) return answerRefusal(w)
    const project = await store.projects.find(req.params.slug!)
    if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
    const actor: Actor = { user: w.caller.user, app: null, now: ctx.clock() }
    const input = { role: w.body.role!, uses: w.body.uses, days: w.body.days, email: w.body.email }
    const made = await store.transact((tx) => makeInvite(tx, actor, project, input))
    if (!made.ok) return answerRefusal(made)
    const { id, email, role, uses, expires } = made.invite
    const url = ctx.idp.loginUrl(`${publicUrl}/login/callback?invite=${id}`)
    let mailed = false
    if (email !== null && ctx.mailer !== null) {
      mailed = await ctx.mailer.send({
        to: email,
        subject: `Invitation to ${project.title}`,
        text: [
          `${w.caller.user.name} invites you to the project "${project.title}" as ${role}.`,
          '',
          `Join here: ${url}`,
          '',
          `The link works ${uses === 1 ? 'once' : `${uses} times`} until ${new Date(expires).toUTCString()}.`,
        ].join('\n'),
      })
    }
    return json(201, { url, id, expires, mailed })
  }
}

/** An open invite as the API answers it (docs/tickets-api.md, "GET /api/projects/<slug>/invites"). */
export function inviteAnswer(i: OpenInvite) {
  return {
    id: i.id,
    role: i.role,
    uses: i.uses,
    usesLeft: i.usesLeft,
    expires: i.expires,
    by: i.by,
  }
}

export interface InviteListHandlers {
  /** `GET /api/projects/<slug>/invites`: the open invites, for the project's admins. */
  list: Handler
  /** `POST /api/projects/<slug>/invites/<id>/revoke`: the invite lets nobody in any more. */
  revoke: Handler
}

const NO_STORE = { 'cache-control': 'no-store' } as const

/**
 * The project's open invites and their revoking (the rules: src/tickets/domain/invites.ts), in
 * the order of checks of every project route: 405 (the router), 401, 400 body, 404 `no such
 * project`, then the domain's 403 and 404 `no such invite`.
 */
export function createInviteListHandlers(ctx: Context): InviteListHandlers {
  const { store } = ctx
  return {
    async list(req) {
      const who = await ctx.credentials.resolve(req, 'user')
      if (!who.ok) return answerRefusal(who)
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      const actor: Actor = { user: who.caller.user, app: null, now: ctx.clock() }
      const listed = await store.transact((tx) => openInvites(tx, actor, project))
      return listed.ok
        ? json(200, { invites: listed.invites.map(inviteAnswer) }, NO_STORE)
        : answerRefusal(listed)
    },

    async revoke(req) {
      const w = await acceptWrite(ctx, req, 'user', {})
      if (!w.ok) return answerRefusal(w)
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      const actor: Actor = { user: w.caller.user, app: null, now: ctx.clock() }
      const done = await store.transact((tx) => revokeInvite(tx, actor, project, req.params.id!))
      return done.ok
        ? json(200, { revoked: req.params.id!, invites: done.invites.map(inviteAnswer) }, NO_STORE)
        : answerRefusal(done)
    },
  }
}
