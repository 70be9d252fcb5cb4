/**
 * The routes of projects and members (docs/tickets-api.md, 4.8): a project answers to its id, its
 * slug and every old slug alike. Who may change what, and what a change does, is the domain's
 * (src/tickets/domain/projects.ts).
 */
import { json } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import type { Actor } from '../rules/actor.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import { projectAnswer } from '../representations/json.ts'
import { ROLES } from '../rules/roles.ts'
import type { User } from '../store/users.ts'
import { STATES } from '../rules/states.ts'
import { NO_SUCH_PROJECT } from '../rules/messages.ts'
import { createProject, removeMember, setMember, updateProject } from '../domain/projects.ts'
import { acceptWrite } from './accept-write.ts'

export interface ProjectHandlers {
  list: Handler
  create: Handler
  show: Handler
  update: Handler
  setMember: Handler
  removeMember: Handler
}

export function createProjectHandlers(ctx: Context): ProjectHandlers {
  const { store, publicUrl, clock } = ctx
  const actorOf = (user: User): Actor => ({ user, app: null, now: clock() })

  /** The front checks of a write on the path's project, then the project (404). */
  async function projectWrite(req: Request, shape: Record<string, 'required' | 'optional'>) {
    const w = await acceptWrite(ctx, req, 'user', shape)
    if (!w.ok) return w
    const project = await store.projects.find(req.params.slug!)
    if (!project) return refuse(404, NO_SUCH_PROJECT)
    return { ...w, project }
  }

  return {
    async list() {
      const details = (await store.projects.all()).map((p) => projectAnswer(publicUrl, p))
      return json(200, {
        projects: details.map((p) => p.slug),
        details,
        states: STATES,
        roles: ROLES,
      })
    },

    async create(req) {
      const w = await acceptWrite(ctx, req, 'user', {
        title: 'required',
        slug: 'optional',
        description: 'optional',
      })
      if (!w.ok) return answerRefusal(w)
      const { title, slug, description } = w.body
      const actor: Actor = { user: w.caller.user, app: null, now: clock() }
      const result = await store.transact(async (tx) => {
        const made = await createProject(tx, actor, {
          title: title!.trim(),
          slug: slug ? slug : null,
          description: description ?? '',
        })
        return made.ok
          ? {
              ok: true as const,
              project: made.project,
              members: await tx.projects.members(made.project.id),
            }
          : made
      })
      if (!result.ok) return answerRefusal(result)
      return json(201, {
        project: projectAnswer(publicUrl, result.project),
        members: result.members,
      })
    },

    async show(req) {
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return json(200, {
        project: projectAnswer(publicUrl, project),
        members: await store.projects.members(project.id),
      })
    },

    async update(req) {
      const w = await projectWrite(req, {
        title: 'optional',
        slug: 'optional',
        description: 'optional',
      })
      if (!w.ok) return answerRefusal(w)
      const { title, slug, description } = w.body
      const result = await store.transact((tx) =>
        updateProject(tx, actorOf(w.caller.user), w.project, { title, slug, description }),
      )
      return result.ok
        ? json(200, { project: projectAnswer(publicUrl, result.project) })
        : answerRefusal(result)
    },

    async setMember(req) {
      const w = await projectWrite(req, { user: 'required', role: 'required' })
      if (!w.ok) return answerRefusal(w)
      const { user: ref, role } = w.body as { user: string; role: string }
      const result = await store.transact((tx) =>
        setMember(tx, actorOf(w.caller.user), w.project, ref, role),
      )
      return result.ok
        ? json(200, { member: result.member, members: result.members })
        : answerRefusal(result)
    },

    async removeMember(req) {
      const w = await projectWrite(req, { user: 'required' })
      if (!w.ok) return answerRefusal(w)
      const result = await store.transact((tx) =>
        removeMember(tx, actorOf(w.caller.user), w.project, w.body.user!),
      )
      return result.ok
        ? json(200, { removed: result.removed, members: result.members })
        : answerRefusal(result)
    },
  }
}
