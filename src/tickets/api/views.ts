/**
 * Saved views of a project (docs/tickets-api.md, "Saved views"): the list with each view's count
 * of tickets now, save, change (rename, another search) and remove. Checks in the interface's
 * order: 405 (the router's), credential (401), body (400: its shape, the search, the scope), the
 * project (404), then the domain (src/tickets/domain/views.ts): the view (404), the role (403)
 * and the rules (400).
 */
import type { Handler } from '../../http/handler.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import type { Request } from '../../http/request.ts'
import { json } from '../../http/response.ts'
import type { Context } from '../context.ts'
import { changeView, removeView, saveView } from '../domain/views.ts'
import type { Actor } from '../rules/actor.ts'
import { BAD_SCOPE, NAME_OR_Q, NO_SUCH_PROJECT } from '../rules/messages.ts'
import { parseQuery } from '../rules/query.ts'
import type { Shape } from '../rules/body.ts'
import type { SavedView, ViewCount } from '../store/views.ts'
import { acceptWrite } from './accept-write.ts'

export interface ViewHandlers {
  list: Handler
  save: Handler
  change: Handler
  remove: Handler
}

/** A view as the API answers it: with its list's address and, in the list, its count. */
export function viewAnswer(publicUrl: string, slug: string, view: SavedView, count?: ViewCount) {
  const api = `${publicUrl}/api/projects/${encodeURIComponent(slug)}/tickets?q=${encodeURIComponent(view.q)}`
  const page = `${publicUrl}/${slug}${view.q ? `?q=${encodeURIComponent(view.q)}` : ''}`
  return { ...view, url: page, api, ...(count ? { count: count.count, more: count.more } : {}) }
}

export function createViewHandlers(ctx: Context): ViewHandlers {
  const { store, publicUrl, clock } = ctx

  /** The front checks of a write: credential, body (with `q` parsed when given), then the project. */
  async function viewWrite(req: Request, shape: Shape) {
    const w = await acceptWrite(ctx, req, 'user', shape)
    if (!w.ok) return w
    if (w.body.q !== undefined) {
      const parsed = parseQuery(w.body.q)
      if (!parsed.ok) return parsed
    }
    const project = await store.projects.find(req.params.slug!)
    if (!project) return refuse(404, NO_SUCH_PROJECT)
    const actor: Actor = { user: w.caller.user, app: null, now: clock() }
    return { ok: true as const, body: w.body, project, actor }
  }

  return {
    async list(req) {
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      const me = await ctx.credentials.reader(req)
      const views = await store.views.of(project.id, me)
      const counts = await store.views.countsOf(project.id, views, me)
      return json(
        200,
        {
          views: views.map((v, i) =>
            viewAnswer(publicUrl, project.slug, v, counts[i] ?? undefined),
          ),
        },
        { 'cache-control': 'private, no-cache', vary: 'Authorization, Cookie' },
      )
    },

    async save(req) {
      const w = await viewWrite(req, { name: 'required', q: 'present', scope: 'optional' })
      if (!w.ok) return answerRefusal(w)
      const scope = w.body.scope ?? 'mine'
      if (scope !== 'mine' && scope !== 'shared')
        return answerRefusal(refuse(400, BAD_SCOPE, 'scope'))
      const result = await store.transact((tx) =>
        saveView(tx, w.actor, w.project.id, {
          name: w.body.name!,
          q: w.body.q!,
          shared: scope === 'shared',
        }),
      )
      if (!result.ok) return answerRefusal(result)
      return json(201, { view: viewAnswer(publicUrl, w.project.slug, result.view) })
    },

    async change(req) {
      const w = await viewWrite(req, { name: 'optional', q: 'optional' })
      if (!w.ok) return answerRefusal(w)
      if (w.body.name === undefined && w.body.q === undefined)
        return answerRefusal(refuse(400, NAME_OR_Q, 'name'))
      const result = await store.transact((tx) =>
        changeView(tx, w.actor, w.project.id, req.params.id!, {
          ...(w.body.name !== undefined ? { name: w.body.name } : {}),
          ...(w.body.q !== undefined ? { q: w.body.q } : {}),
        }),
      )
      if (!result.ok) return answerRefusal(result)
      return json(200, { view: viewAnswer(publicUrl, w.project.slug, result.view) })
    },

    async remove(req) {
      const w = await viewWrite(req, {})
      if (!w.ok) return answerRefusal(w)
      const result = await store.transact((tx) =>
        removeView(tx, w.actor, w.project.id, req.params.id!),
      )
      if (!result.ok) return answerRefusal(result)
      return json(200, { removed: result.removed })
    },
  }
}
