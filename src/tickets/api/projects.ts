/**
 * Projects and members (docs/tickets-api.md, 4.8): a project answers to its id, its slug and
 * every old slug alike; any logged-in user may create one and becomes its first admin; admins
 * update it and set or remove members; the last admin cannot be removed or demoted.
 */
import { json } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import type { Actor } from '../rules/actor.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse, type Refusal } from '../../http/refusal.ts'
import { recordId } from '../../base/random.ts'
import { projectAnswer, type ProjectAnswer } from '../representations/json.ts'
import { isRole, refuseRole, ROLES } from '../rules/roles.ts'
import type { Member, Project } from '../store/projects.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { User } from '../store/users.ts'
import { claimSlug } from '../rules/slugs.ts'
import { STATES } from '../rules/states.ts'
import { NO_SUCH_PROJECT, unknownRole, fieldTooLong, fieldRequired, LAST_ADMIN_DEMOTED, LAST_ADMIN_REMOVED } from '../rules/messages.ts'
import { acceptWrite } from './accept-write.ts'

const TITLE_MAX = 200
const DESCRIPTION_MAX = 10_000

/** Creates a project with `actor` as its first admin. */
export async function createProject(
  tx: TicketTx,
  actor: Actor,
  input: { title: string; slug: string | null; description: string },
): Promise<{ ok: true; project: Project } | Refusal> {
  const checked = checkTexts(input)
  if (checked) return checked
  let id = recordId()
  // An id is also a name the project answers to; a clash with a slug is a retry, not an error.
  while (!(await tx.projects.claimFreshId(id))) id = recordId()
  const slug = await claimSlug((name) => tx.projects.claimName(id, name), input.slug, input.title)
  if (!slug.ok) return slug
  const project = await tx.projects.insert({ id, slug: slug.slug, title: input.title, description: input.description, created: actor.now }, actor.user.id)
  return { ok: true, project }
}

function checkTexts(input: { title?: string; description?: string }): Refusal | null {
  if (input.title !== undefined && input.title.trim() === '') return refuse(400, fieldRequired('title'), 'title')
  if (input.title !== undefined && input.title.length > TITLE_MAX) return refuse(400, fieldTooLong('title', TITLE_MAX), 'title')
  if (input.description !== undefined && input.description.length > DESCRIPTION_MAX) {
    return refuse(400, fieldTooLong('description', DESCRIPTION_MAX), 'description')
  }
  return null
}

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
      return json(200, { projects: details.map((p) => p.slug), details, states: STATES, roles: ROLES })
    },

    async create(req) {
      const w = await acceptWrite(ctx, req, 'user', { title: 'required', slug: 'optional', description: 'optional' })
      if (!w.ok) return answerRefusal(w)
      const { title, slug, description } = w.body
      const actor: Actor = { user: w.caller.user, app: null, now: clock() }
      const result = await store.transact(async (tx) => {
        const made = await createProject(tx, actor, { title: title!.trim(), slug: slug ? slug : null, description: description ?? '' })
        return made.ok ? { ok: true as const, project: made.project, members: await tx.projects.members(made.project.id) } : made
      })
      if (!result.ok) return answerRefusal(result)
      return json(201, { project: projectAnswer(publicUrl, result.project), members: result.members })
    },

    async show(req) {
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return json(200, { project: projectAnswer(publicUrl, project), members: await store.projects.members(project.id) })
    },

    async update(req) {
      const w = await projectWrite(req, { title: 'optional', slug: 'optional', description: 'optional' })
      if (!w.ok) return answerRefusal(w)
      const { title, slug, description } = w.body
      const result = await store.transact(async (tx): Promise<{ ok: true; project: ProjectAnswer } | Refusal> => {
        const refused = refuseRole(await tx.projects.lockedRole(w.project.id, w.caller.user.id), 'admin', 'project') ?? checkTexts({ title, description })
        if (refused) return refused
        if (slug !== undefined && slug !== w.project.slug) {
          const claimed = await claimSlug((name) => tx.projects.claimName(w.project.id, name), slug, '')
          if (!claimed.ok) return claimed
        }
        const project = await tx.projects.update(w.project.id, { title: title?.trim(), slug, description })
        await tx.emit(project.id, 'projectChanged', [project.slug])
        return { ok: true, project: projectAnswer(publicUrl, project) }
      })
      return result.ok ? json(200, { project: result.project }) : answerRefusal(result)
    },

    async setMember(req) {
      const w = await projectWrite(req, { user: 'required', role: 'required' })
      if (!w.ok) return answerRefusal(w)
      const { user: ref, role } = w.body as { user: string; role: string }
      const result = await store.transact(async (tx): Promise<{ ok: true; member: Member; members: Member[] } | Refusal> => {
        const refused = refuseRole(await tx.projects.lockedRole(w.project.id, w.caller.user.id), 'admin', 'project')
        if (refused) return refused
        if (!isRole(role)) return refuse(400, unknownRole(role), 'role')
        const found = await tx.users.resolve(ref, 'user')
        if (!found.ok) return found
        const current = await tx.projects.roleOf(w.project.id, found.user.id)
        if (current === 'admin' && role !== 'admin' && (await tx.projects.adminCount(w.project.id)) === 1) {
          return refuse(400, LAST_ADMIN_DEMOTED, 'role')
        }
        await tx.projects.setMember(w.project.id, found.user.id, role)
        await tx.emit(w.project.id, 'membersChanged', [w.project.slug])
        return { ok: true, member: { user: found.user, role }, members: await tx.projects.members(w.project.id) }
      })
      return result.ok ? json(200, { member: result.member, members: result.members }) : answerRefusal(result)
    },

    async removeMember(req) {
      const w = await projectWrite(req, { user: 'required' })
      if (!w.ok) return answerRefusal(w)
      const result = await store.transact(async (tx): Promise<{ ok: true; removed: User; members: Member[] } | Refusal> => {
        const refused = refuseRole(await tx.projects.lockedRole(w.project.id, w.caller.user.id), 'admin', 'project')
        if (refused) return refused
        const found = await tx.users.resolve(w.body.user!, 'user', w.project.id)
        if (!found.ok) return found
        if ((await tx.projects.roleOf(w.project.id, found.user.id)) === 'admin' && (await tx.projects.adminCount(w.project.id)) === 1) {
          return refuse(400, LAST_ADMIN_REMOVED, 'user')
        }
        await tx.projects.removeMember(w.project.id, found.user.id)
        await tx.emit(w.project.id, 'membersChanged', [w.project.slug])
        return { ok: true, removed: found.user, members: await tx.projects.members(w.project.id) }
      })
      return result.ok ? json(200, { removed: result.removed, members: result.members }) : answerRefusal(result)
    },
  }
}
