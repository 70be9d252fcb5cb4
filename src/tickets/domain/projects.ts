/**
 * Projects and members (docs/tickets-api.md, 4.8): any signed-in person may create a project and
 * becomes its first admin; admins update it and set or remove members; the last admin cannot be
 * removed or demoted. Called by the API and by the connect flow (a project made for an app).
 */
import { recordId } from '../../base/random.ts'
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import { DESCRIPTION_MAX, TITLE_MAX } from '../rules/lengths.ts'
import {
  fieldRequired,
  fieldTooLong,
  LAST_ADMIN_DEMOTED,
  LAST_ADMIN_REMOVED,
  unknownRole,
} from '../rules/messages.ts'
import { isRole, refuseRole, type Role } from '../rules/roles.ts'
import { claimSlug } from '../rules/slugs.ts'
import type { Member, Project } from '../store/projects.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { User } from '../store/users.ts'

/** The role that may change a project, its members, invites, connections and webhooks. */
export const ADMIN: Role = 'admin'

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
  const project = await tx.projects.insert(
    { id, slug: slug.slug, title: input.title, description: input.description, created: actor.now },
    actor.user.id,
  )
  return { ok: true, project }
}

function checkTexts(input: { title?: string; description?: string }): Refusal | null {
  if (input.title !== undefined && input.title.trim() === '')
    return refuse(400, fieldRequired('title'), 'title')
  if (input.title !== undefined && input.title.length > TITLE_MAX)
    return refuse(400, fieldTooLong('title', TITLE_MAX), 'title')
  if (input.description !== undefined && input.description.length > DESCRIPTION_MAX) {
    return refuse(400, fieldTooLong('description', DESCRIPTION_MAX), 'description')
  }
  return null
}

/** Refuses `userId` unless an admin of the project, read with the project row locked. */
export async function refuseUnlessAdmin(
  tx: TicketTx,
  projectId: string,
  userId: string,
): Promise<Refusal | null> {
  return refuseRole(await tx.projects.lockedRole(projectId, userId), ADMIN, 'project')
}

/** Changes a project's title, slug or description, as an admin; emits `projectChanged`. */
export async function updateProject(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  change: { title?: string; slug?: string; description?: string },
): Promise<{ ok: true; project: Project } | Refusal> {
  const refused = (await refuseUnlessAdmin(tx, project.id, actor.user.id)) ?? checkTexts(change)
  if (refused) return refused
  if (change.slug !== undefined && change.slug !== project.slug) {
    const claimed = await claimSlug(
      (name) => tx.projects.claimName(project.id, name),
      change.slug,
      '',
    )
    if (!claimed.ok) return claimed
  }
  const changed = await tx.projects.update(project.id, {
    title: change.title?.trim(),
    slug: change.slug,
    description: change.description,
  })
  await tx.emit(changed.id, 'projectChanged', [changed.slug])
  return { ok: true, project: changed }
}

/** Gives a person (a user reference) a role in the project, as an admin; emits `membersChanged`. */
export async function setMember(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  ref: string,
  role: string,
): Promise<{ ok: true; member: Member; members: Member[] } | Refusal> {
  const refused = await refuseUnlessAdmin(tx, project.id, actor.user.id)
  if (refused) return refused
  if (!isRole(role)) return refuse(400, unknownRole(role), 'role')
  const found = await tx.users.resolve(ref, 'user')
  if (!found.ok) return found
  const current = await tx.projects.roleOf(project.id, found.user.id)
  if (current === 'admin' && role !== 'admin' && (await tx.projects.adminCount(project.id)) === 1)
    return refuse(400, LAST_ADMIN_DEMOTED, 'role')
  await tx.projects.setMember(project.id, found.user.id, role)
  await tx.emit(project.id, 'membersChanged', [project.slug])
  return {
    ok: true,
    member: { user: found.user, role },
    members: await tx.projects.members(project.id),
  }
}

/** Removes a member (a user reference among the project's members), as an admin; emits `membersChanged`. */
export async function removeMember(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  ref: string,
): Promise<{ ok: true; removed: User; members: Member[] } | Refusal> {
  const refused = await refuseUnlessAdmin(tx, project.id, actor.user.id)
  if (refused) return refused
  const found = await tx.users.resolve(ref, 'user', project.id)
  if (!found.ok) return found
  if (
    (await tx.projects.roleOf(project.id, found.user.id)) === 'admin' &&
    (await tx.projects.adminCount(project.id)) === 1
  ) {
    return refuse(400, LAST_ADMIN_REMOVED, 'user')
  }
  await tx.projects.removeMember(project.id, found.user.id)
  await tx.emit(project.id, 'membersChanged', [project.slug])
  return { ok: true, removed: found.user, members: await tx.projects.members(project.id) }
}
