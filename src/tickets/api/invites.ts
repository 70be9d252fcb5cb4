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
import { makeInvite } from '../domain/invites.ts'
import { acceptWrite } from './accept-write.ts'

export function createInviteHandler(ctx: Context): Handler {
  const { store, publicUrl } = ctx
  return async (req) => {
    const w = await acceptWrite(ctx, req, 'user', { role: 'required', uses: 'optional', days: 'optional', email: 'optional' })
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
