/**
 * Projects and members (docs/tickets-api.md, 4.8): a project answers to its id, its slug and
 * every old slug alike; any logged-in user may create one and becomes its first admin; admins
 * update it and set or remove members; the last admin cannot be removed or demoted.
 */
import type { TransactionSql } from '../db.ts'
import { json } from '../response.ts'
import type { Handler } from '../handler.ts'
import type { Request } from '../request.ts'
import type { Context } from './context.ts'
import { answerRefusal, refuse, type Refusal } from './refusal.ts'
import { recordId } from '../random.ts'
import { projectAnswer, type ProjectAnswer } from './answers.ts'
import { isRole, refuseRole, ROLES, type Role } from './roles.ts'
import {
  adminCount, allProjects, claimFreshId, findProject, insertProject, lockProject, membersOf, removeMember, roleOf, setMember, updateProject, type Member,
} from './store/projects.ts'
import { claimSlug } from './slugs.ts'
import { STATES } from './states.ts'
import { NO_SUCH_PROJECT, unknownRole, fieldTooLong, fieldRequired, LAST_ADMIN_DEMOTED, LAST_ADMIN_REMOVED } from './messages.ts'
import { resolveUser, type User } from './store/users.ts'
import { acceptWrite } from './write.ts'

const TITLE_MAX = 200
const DESCRIPTION_MAX = 10_000

/** Creates a project with `user` as its first admin. */
export async function createProject(
  tx: TransactionSql,
  input: { title: string; slug: string | null; description: string; user: User; now: number; publicUrl: string },
): Promise<{ ok: true; project: ProjectAnswer } | Refusal> {
  const checked = checkTexts(input)
  if (checked) return checked
  let id = recordId()
  // An id is also a name the project answers to; a clash with a slug is a retry, not an error.
  while (!(await claimFreshId(tx, id))) id = recordId()
  const slug = await claimSlug(tx, id, input.slug, input.title)
  if (!slug.ok) return slug
  const project = await insertProject(tx, { id, slug: slug.slug, title: input.title, description: input.description, created: input.now }, input.user.id)
  return { ok: true, project: projectAnswer(input.publicUrl, project) }
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

export function projectHandlers(ctx: Context): ProjectHandlers {
  const { sql, publicUrl, clock } = ctx

  /** The front checks of a write on the path's project, then the project (404). */
  async function projectWrite(req: Request, shape: Record<string, 'required' | 'optional'>) {
    const w = await acceptWrite(ctx, req, 'user', shape)
    if (!w.ok) return w
    const project = await findProject(sql, req.params.slug!)
    if (!project) return { ok: false as const, response: answerRefusal(refuse(404, NO_SUCH_PROJECT)) }
    return { ...w, project }
  }

  return {
    async list() {
      const details = (await allProjects(sql)).map((p) => projectAnswer(publicUrl, p))
      return json(200, { projects: details.map((p) => p.slug), details, states: STATES, roles: ROLES })
    },

    async create(req) {
      const w = await acceptWrite(ctx, req, 'user', { title: 'required', slug: 'optional', description: 'optional' })
      if (!w.ok) return w.response
      const { title, slug, description } = w.body
      const result = await ctx.transact(async (tx) => {
        const made = await createProject(tx, {
          title: title!,
          slug: slug ? slug : null,
          description: description ?? '',
          user: w.caller.user,
          now: clock(),
          publicUrl,
        })
        return made.ok ? { ok: true as const, project: made.project, members: await membersOf(tx, made.project.id) } : made
      })
      if (!result.ok) return answerRefusal(result)
      return json(201, { project: result.project, members: result.members })
    },

    async show(req) {
      const project = await findProject(sql, req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return json(200, { project: projectAnswer(publicUrl, project), members: await membersOf(sql, project.id) })
    },

    async update(req) {
      const w = await projectWrite(req, { title: 'optional', slug: 'optional', description: 'optional' })
      if (!w.ok) return w.response
      const { title, slug, description } = w.body
      const result = await ctx.transact(async (tx): Promise<{ ok: true; project: ProjectAnswer } | Refusal> => {
        const refused = refuseRole(await lockedRole(tx, w.project.id, w.caller.user.id), 'admin', 'project') ?? checkTexts({ title, description })
        if (refused) return refused
        if (slug !== undefined && slug !== w.project.slug) {
          const claimed = await claimSlug(tx, w.project.id, slug, '')
          if (!claimed.ok) return claimed
        }
        const project = await updateProject(tx, w.project.id, { title, slug, description })
        return { ok: true, project: projectAnswer(publicUrl, project) }
      })
      return result.ok ? json(200, { project: result.project }) : answerRefusal(result)
    },

    async setMember(req) {
      const w = await projectWrite(req, { user: 'required', role: 'required' })
      if (!w.ok) return w.response
      const { user: ref, role } = w.body as { user: string; role: string }
      const result = await ctx.transact(async (tx): Promise<{ ok: true; member: Member; members: Member[] } | Refusal> => {
        const refused = refuseRole(await lockedRole(tx, w.project.id, w.caller.user.id), 'admin', 'project')
        if (refused) return refused
        if (!isRole(role)) return refuse(400, unknownRole(role), 'role')
        const found = await resolveUser(tx, ref, 'user')
        if (!found.ok) return found
        const current = await roleOf(tx, w.project.id, found.user.id)
        if (current === 'admin' && role !== 'admin' && (await adminCount(tx, w.project.id)) === 1) {
          return refuse(400, LAST_ADMIN_DEMOTED, 'role')
        }
        await setMember(tx, w.project.id, found.user.id, role)
        return { ok: true, member: { user: found.user, role }, members: await membersOf(tx, w.project.id) }
      })
      return result.ok ? json(200, { member: result.member, members: result.members }) : answerRefusal(result)
    },

    async removeMember(req) {
      const w = await projectWrite(req, { user: 'required' })
      if (!w.ok) return w.response
      const result = await ctx.transact(async (tx): Promise<{ ok: true; removed: User; members: Member[] } | Refusal> => {
        const refused = refuseRole(await lockedRole(tx, w.project.id, w.caller.user.id), 'admin', 'project')
        if (refused) return refused
        const found = await resolveUser(tx, w.body.user!, 'user', w.project.id)
        if (!found.ok) return found
        if ((await roleOf(tx, w.project.id, found.user.id)) === 'admin' && (await adminCount(tx, w.project.id)) === 1) {
          return refuse(400, LAST_ADMIN_REMOVED, 'user')
        }
        await removeMember(tx, w.project.id, found.user.id)
        return { ok: true, removed: found.user, members: await membersOf(tx, w.project.id) }
      })
      return result.ok ? json(200, { removed: result.removed, members: result.members }) : answerRefusal(result)
    },
  }
}

/**
 * The caller's role, taken with the project row locked: member changes of one project then run
 * one after another, so two admins demoting each other cannot leave the project without one.
 */
export async function lockedRole(tx: TransactionSql, projectId: string, userId: string): Promise<Role | null> {
  await lockProject(tx, projectId)
  return roleOf(tx, projectId, userId)
}
