/**
 * Invites: the `invites` table. A use is taken by one statement
 * (`UPDATE ... WHERE uses_left > 0 ... RETURNING`), so "N uses" holds under concurrency.
 * An invite is stored under the SHA-256 of its id, as tokens are: the link keeps the id, and a
 * copy of the database holds no link that works.
 */
import { hashSecret } from '../../base/random.ts'
import type { Query } from '../../db/client.ts'
import type { Actor } from '../rules/actor.ts'
import { rolesAtLeast, type Role } from '../rules/roles.ts'

async function insertInvite(
  tx: Query,
  i: {
    id: string
    projectId: string
    role: Role
    uses: number
    expires: number
    createdBy: string
    now: number
  },
): Promise<void> {
  await tx`
    insert into invites (id, project_id, role, uses, uses_left, signups_left, expires, created_by, created)
    values (${hashSecret(i.id)}, ${i.projectId}, ${i.role}, ${i.uses}, ${i.uses}, ${i.uses}, ${i.expires}, ${i.createdBy}, ${i.now})`
}

/** Takes one use of a live invite; null when it is unknown, used up or expired. */
async function takeInviteUse(
  tx: Query,
  id: string,
  now: number,
): Promise<{ projectId: string; role: Role } | null> {
  const [row] = await tx<{ project_id: string; role: Role }[]>`
    update invites set uses_left = uses_left - 1
    where id = ${hashSecret(id)} and uses_left > 0 and expires > ${now} and revoked is null
    returning project_id, role`
  return row ? { projectId: row.project_id, role: row.role } : null
}

/**
 * Takes one of a live invite's sign-up places (sql/0023_invite_signups.sql): a sign-up through an
 * invite makes at most as many accounts as it has uses. False when none is left. `signups_left`
 * is null for invites made before it, and counts as `uses_left` then.
 */
async function takeSignupPlace(tx: Query, id: string, now: number): Promise<boolean> {
  const rows = await tx`
    update invites set signups_left = coalesce(signups_left, uses_left) - 1
    where id = ${hashSecret(id)} and uses_left > 0 and coalesce(signups_left, uses_left) > 0 and expires > ${now} and revoked is null
    returning 1`
  return rows.length === 1
}

/** What is left of an invite, to say why it cannot be used; null when there is none. */
async function inviteState(
  tx: Query,
  id: string,
): Promise<{ usesLeft: number; expires: number; revoked: boolean } | null> {
  const [row] = await tx<
    { uses_left: number; expires: number; revoked: number | null }[]
  >`select uses_left, expires, revoked from invites where id = ${hashSecret(id)}`
  return row
    ? { usesLeft: row.uses_left, expires: Number(row.expires), revoked: row.revoked !== null }
    : null
}

/**
 * An invite as its project's admins see it. `id` is the stored id (the SHA-256 of the link's
 * id): it names the invite without being a link that works.
 */
export interface OpenInvite {
  id: string
  role: Role
  uses: number
  usesLeft: number
  expires: number
  by: { id: string; name: string }
}

/** The project's invites that still let someone in (uses left, not expired, not revoked), newest first. */
async function openInvites(tx: Query, projectId: string, now: number): Promise<OpenInvite[]> {
  const rows = await tx<
    {
      id: string
      role: Role
      uses: number
      uses_left: number
      expires: string | number
      by_id: string
      by_name: string
    }[]
  >`
    select i.id, i.role, i.uses, i.uses_left, i.expires, u.id as by_id, u.name as by_name
    from invites i join users u on u.id = i.created_by
    where i.project_id = ${projectId} and i.uses_left > 0 and i.expires > ${now} and i.revoked is null
    order by i.created desc, i.id`
  return rows.map((r) => ({
    id: r.id,
    role: r.role,
    uses: r.uses,
    usesLeft: r.uses_left,
    expires: Number(r.expires),
    by: { id: r.by_id, name: r.by_name },
  }))
}

/**
 * Revokes one of the project's invites, named by its stored id or by the link's own id (what
 * the creation answered); false when the project has no such invite still open.
 */
async function revokeInvite(
  tx: Query,
  projectId: string,
  id: string,
  now: number,
): Promise<boolean> {
  const rows = await tx`
    update invites set revoked = ${now}
    where project_id = ${projectId} and id in (${id}, ${hashSecret(id)}) and revoked is null and uses_left > 0 and expires > ${now}
    returning id`
  return rows.length > 0
}

/** An invite's words for the provider's sign-in page: live or revoked invites only, else null. */
async function inviteContext(
  q: Query,
  id: string,
  now: number,
): Promise<{ project: string; inviter: string; role: Role; revoked?: boolean } | null> {
  const [row] = await q<{ title: string; role: Role; inviter: string; revoked: string | null }[]>`
    select p.title, i.role, u.name as inviter, i.revoked
    from invites i join projects p on p.id = i.project_id join users u on u.id = i.created_by
    where i.id = ${hashSecret(id)} and (i.revoked is not null or (i.uses_left > 0 and i.expires > ${now}))`
  if (!row) return null
  return {
    project: row.title,
    inviter: row.inviter,
    role: row.role,
    ...(row.revoked !== null ? { revoked: true } : {}),
  }
}

/** Makes the user a member with the higher of `role` and the role they have. */
export async function joinWithRole(
  tx: Query,
  projectId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await tx`
    insert into members (project_id, user_id, role) values (${projectId}, ${userId}, ${role})
    on conflict (project_id, user_id) do update set role = excluded.role
      where members.role not in ${tx(rolesAtLeast(role))}`
}

/** Invites on `q` (a transaction); `clock` decides which invites have expired. */
export function inviteTable(q: Query, clock: () => number) {
  return {
    /** Stores an invite made by `actor`. */
    insert: (
      actor: Actor,
      i: { id: string; projectId: string; role: Role; uses: number; expires: number },
    ) => insertInvite(q, { ...i, createdBy: actor.user.id, now: actor.now }),
    takeUse: (id: string) => takeInviteUse(q, id, clock()),
    state: (id: string) => inviteState(q, id),
    open: (projectId: string) => openInvites(q, projectId, clock()),
    revoke: (projectId: string, id: string) => revokeInvite(q, projectId, id, clock()),
    context: (id: string) => inviteContext(q, id, clock()),
    takeSignupPlace: (id: string) => takeSignupPlace(q, id, clock()),
    joinWithRole: (projectId: string, userId: string, role: Role) =>
      joinWithRole(q, projectId, userId, role),
  }
}
