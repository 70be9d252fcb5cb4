/**
 * Page addresses (docs/tickets-api.md, 4.11): old addresses answer 301 to the short ones
 * `/<slug>` and `/<slug>/<number>`, which the web app answers (src/tickets/pages/web.ts); and the
 * login button's target `/login`.
 */
import { redirect } from '../../http/response.ts'
import { refusalPage } from './message-page.ts'
import type { Handler } from '../../http/handler.ts'
import { loginButtonUrl, safeNext } from '../../auth/idp.ts'
import type { Context } from '../context.ts'
import { NO_SUCH_PROJECT, NO_SUCH_TICKET } from '../rules/messages.ts'
import { refuse, type Reason } from '../../http/refusal.ts'

const notFound = (why: Reason) => refusalPage('Not found', refuse(404, why))

export interface AddressHandlers {
  login: Handler
  oldTicket: Handler
  oldProject: Handler
  oldProjectTicket: Handler
}

export function createAddressHandlers(ctx: Context): AddressHandlers {
  const { store, publicUrl } = ctx
  const moved = (to: string) => redirect(301, to)

  return {
    /** `/login?next=<path>`: the login button's target (docs/core.md, "Identity provider"), for links and people typing it. */
    login(req) {
      const next = safeNext(req.query.get('next'))
      return redirect(
        302,
        loginButtonUrl(ctx.idp, publicUrl, next === '/' ? undefined : next),
        'continue at the identity provider',
        { 'cache-control': 'no-store' },
      )
    },
    async oldTicket(req) {
      const t = await store.tickets.byRef(req.params.ref!)
      return t ? moved(`/${t.slug}/${t.number}`) : notFound(NO_SUCH_TICKET)
    },
    async oldProject(req) {
      const p = await store.projects.find(req.params.slug!)
      return p ? moved(`/${p.slug}`) : notFound(NO_SUCH_PROJECT)
    },
    async oldProjectTicket(req) {
      const t = await store.tickets.byNumber(req.params.slug!, req.params.number!)
      return t ? moved(`/${t.slug}/${t.number}`) : notFound(NO_SUCH_TICKET)
    },
  }
}
