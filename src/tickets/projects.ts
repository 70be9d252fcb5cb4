/**
 * Projects and members (tickets-interface.md 4.8): a project answers to its id, its slug and
 * every old slug alike; any logged-in user may create one and becomes its first admin; admins
 * update it and set or remove members; the last admin cannot be removed or demoted.
 */
import type { TransactionSql } from '../db.ts'
import { json, type Handler, type Request } from '../http.ts'
import type { Context, Query } from './context.ts'
import { answerDenied, deny, type Denied } from './denied.ts'
import { isLookupText, recordId } from './ids.ts'
import { isRole, refuseRole, roleOf, ROLES, type Role } from './roles.ts'
import { claimSlug } from './slugs.ts'
import { STATES } from './states.ts'
import { NO_SUCH_PROJECT, unknownRole } from './texts.ts'
import { resolveUser, type User } from './users.ts'
import { acceptWrite } from './write.ts'

const TITLE_MAX = 200
const DESCRIPTION_MAX = 10_000

/** A project as the API shows it. */
export interface Project {
  id: string
  slug: string
  title: string
  description: string
  created: number
  /** The project's page. */
  url: string
}

export interface Member {
  user: User
  role: Role
}

/** The project a slug, old slug or id names, or null. */
export async function findProject(q: Query, ref: string, publicUrl: string): Promise<Project | null> {
  if (!isLookupText(ref)) return null
  const [row] = await q`
    select p.id, p.slug, p.title, p.description, p.created
    from project_names n join projects p on p.id = n.project_id
    where n.name = ${ref}`
  return row ? projectView(row, publicUrl) : null
}

export function projectView(row: Record<string, unknown>, publicUrl: string): Project {
  const slug = row.slug as string
  return {
    id: row.id as string,
    slug,
    title: row.title as string,
    description: row.description as string,
    created: row.created as number,
    url: `${publicUrl}/${slug}`,
  }
}

/** The members of a project, admins first, then by name. */
export async function membersOf(q: Query, projectId: string): Promise<Member[]> {
  const rows = await q`
    select u.id, u.name, m.role from members m join users u on u.id = m.user_id
    where m.project_id = ${projectId}
    order by array_position(array['admin', 'edit', 'use'], m.role), u.name, u.id`
  return rows.map((r) => ({ user: { id: r.id as string, name: r.name as string }, role: r.role as Role }))
}

/** Creates a project with `user` as its first admin. */
export async function createProject(
  tx: TransactionSql,
  input: { title: string; slug: string | null; description: string; user: User; now: number; publicUrl: string },
): Promise<{ ok: true; project: Project } | Denied> {
  const checked = checkTexts(input)
  if (checked) return checked
  let id = recordId()
  // An id is also a name the project answers to; a clash with a slug is a retry, not an error.
  while (!(await claimFresh(tx, id))) id = recordId()
  const slug = await claimSlug(tx, id, input.slug, input.title)
  if (!slug.ok) return slug
  const [row] = await tx`
    insert into projects (id, slug, title, description, created)
    values (${id}, ${slug.slug}, ${input.title}, ${input.description}, ${input.now})
    returning id, slug, title, description, created`
  await tx`insert into members (project_id, user_id, role) values (${id}, ${input.user.id}, 'admin')`
  return { ok: true, project: projectView(row!, input.publicUrl) }
}

async function claimFresh(tx: TransactionSql, id: string): Promise<boolean> {
  const rows = await tx`insert into project_names (name, project_id) values (${id}, ${id}) on conflict (name) do nothing returning name`
  return rows.length === 1
}

function checkTexts(input: { title?: string; description?: string }): Denied | null {
  if (input.title !== undefined && input.title.trim() === '') return deny(400, "'title' is required", 'title')
  if (input.title !== undefined && input.title.length > TITLE_MAX) return deny(400, `'title' is at most ${TITLE_MAX} characters`, 'title')
  if (input.description !== undefined && input.description.length > DESCRIPTION_MAX) {
    return deny(400, `'description' is at most ${DESCRIPTION_MAX} characters`, 'description')
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
    const w = await acceptWrite(ctx, req, 'B', shape)
    if (!w.ok) return w
    const project = await findProject(sql, req.params.slug!, publicUrl)
    if (!project) return { ok: false as const, response: answerDenied(deny(404, NO_SUCH_PROJECT)) }
    return { ...w, project }
  }

  return {
    async list() {
      const rows = await sql`select id, slug, title, description, created from projects order by slug`
      const details = rows.map((r) => projectView(r, publicUrl))
      return json(200, { projects: details.map((p) => p.slug), details, states: STATES, roles: ROLES })
    },

    async create(req) {
      const w = await acceptWrite(ctx, req, 'B', { title: 'required', slug: 'optional', description: 'optional' })
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
      if (!result.ok) return answerDenied(result)
      return json(201, { project: result.project, members: result.members })
    },

    async show(req) {
      const project = await findProject(sql, req.params.slug!, publicUrl)
      if (!project) return answerDenied(deny(404, NO_SUCH_PROJECT))
      return json(200, { project, members: await membersOf(sql, project.id) })
    },

    async update(req) {
      const w = await projectWrite(req, { title: 'optional', slug: 'optional', description: 'optional' })
      if (!w.ok) return w.response
      const { title, slug, description } = w.body
      const result = await ctx.transact(async (tx): Promise<{ ok: true; project: Project } | Denied> => {
        const denied = refuseRole(await lockedRole(tx, w.project.id, w.caller.user.id), 'admin', 'project') ?? checkTexts({ title, description })
        if (denied) return denied
        if (slug !== undefined && slug !== w.project.slug) {
          const claimed = await claimSlug(tx, w.project.id, slug, '')
          if (!claimed.ok) return claimed
        }
        const [row] = await tx`
          update projects set
            title = coalesce(${title ?? null}, title),
            slug = coalesce(${slug ?? null}, slug),
            description = coalesce(${description ?? null}, description)
          where id = ${w.project.id}
          returning id, slug, title, description, created`
        return { ok: true, project: projectView(row!, publicUrl) }
      })
      return result.ok ? json(200, { project: result.project }) : answerDenied(result)
    },

    async setMember(req) {
      const w = await projectWrite(req, { user: 'required', role: 'required' })
      if (!w.ok) return w.response
      const { user: ref, role } = w.body as { user: string; role: string }
      const result = await ctx.transact(async (tx): Promise<{ ok: true; member: Member; members: Member[] } | Denied> => {
        const denied = refuseRole(await lockedRole(tx, w.project.id, w.caller.user.id), 'admin', 'project')
        if (denied) return denied
        if (!isRole(role)) return deny(400, unknownRole(role), 'role')
        const found = await resolveUser(tx, ref, 'user')
        if (!found.ok) return found
        const current = await roleOf(tx, w.project.id, found.user.id)
        if (current === 'admin' && role !== 'admin' && (await adminCount(tx, w.project.id)) === 1) {
          return deny(400, 'the last admin cannot be demoted', 'role')
        }
        await tx`
          insert into members (project_id, user_id, role) values (${w.project.id}, ${found.user.id}, ${role})
          on conflict (project_id, user_id) do update set role = excluded.role`
        return { ok: true, member: { user: found.user, role }, members: await membersOf(tx, w.project.id) }
      })
      return result.ok ? json(200, { member: result.member, members: result.members }) : answerDenied(result)
    },

    async removeMember(req) {
      const w = await projectWrite(req, { user: 'required' })
      if (!w.ok) return w.response
      const result = await ctx.transact(async (tx): Promise<{ ok: true; removed: User; members: Member[] } | Denied> => {
        const denied = refuseRole(await lockedRole(tx, w.project.id, w.caller.user.id), 'admin', 'project')
        if (denied) return denied
        const found = await resolveUser(tx, w.body.user!, 'user', w.project.id)
        if (!found.ok) return found
        if ((await roleOf(tx, w.project.id, found.user.id)) === 'admin' && (await adminCount(tx, w.project.id)) === 1) {
          return deny(400, 'the last admin cannot be removed', 'user')
        }
        await tx`delete from members where project_id = ${w.project.id} and user_id = ${found.user.id}`
        return { ok: true, removed: found.user, members: await membersOf(tx, w.project.id) }
      })
      return result.ok ? json(200, { removed: result.removed, members: result.members }) : answerDenied(result)
    },
  }
}

/**
 * The caller's role, taken with the project row locked: member changes of one project then run
 * one after another, so two admins demoting each other cannot leave the project without one.
 */
export async function lockedRole(tx: TransactionSql, projectId: string, userId: string): Promise<Role | null> {
  await tx`select id from projects where id = ${projectId} for update`
  return roleOf(tx, projectId, userId)
}

async function adminCount(tx: TransactionSql, projectId: string): Promise<number> {
  const [row] = await tx`select count(*)::int as n from members where project_id = ${projectId} and role = 'admin'`
  return row!.n as number
}
