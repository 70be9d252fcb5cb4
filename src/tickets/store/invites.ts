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

async function insertInvite(tx: Query, i: { id: string; projectId: string; role: Role; uses: number; expires: number; createdBy: string; now: number }): Promise<void> {
  await tx`
    insert into invites (id, project_id, role, uses_left, expires, created_by, created)
    values (${hashSecret(i.id)}, ${i.projectId}, ${i.role}, ${i.uses}, ${i.expires}, ${i.createdBy}, ${i.now})`
}

/** Takes one use of a live invite; null when it is unknown, used up or expired. */
async function takeInviteUse(tx: Query, id: string, now: number): Promise<{ projectId: string; role: Role } | null> {
  const [row] = await tx<{ project_id: string; role: Role }[]>`
    update invites set uses_left = uses_left - 1
    where id = ${hashSecret(id)} and uses_left > 0 and expires > ${now}
    returning project_id, role`
  return row ? { projectId: row.project_id, role: row.role } : null
}

/** What is left of an invite, to say why it cannot be used; null when there is none. */
async function inviteState(tx: Query, id: string): Promise<{ usesLeft: number; expires: number } | null> {
  const [row] = await tx<{ uses_left: number; expires: number }[]>`select uses_left, expires from invites where id = ${hashSecret(id)}`
  return row ? { usesLeft: row.uses_left, expires: row.expires } : null
}

/** An invite's words for the provider's sign-in page: live invites only, else null. */
async function inviteContext(q: Query, id: string, now: number): Promise<{ project: string; inviter: string; role: Role } | null> {
  const [row] = await q<{ title: string; role: Role; inviter: string }[]>`
    select p.title, i.role, u.name as inviter
    from invites i join projects p on p.id = i.project_id join users u on u.id = i.created_by
    where i.id = ${hashSecret(id)} and i.uses_left > 0 and i.expires > ${now}`
  return row ? { project: row.title, inviter: row.inviter, role: row.role } : null
}

/** Makes the user a member with the higher of `role` and the role they have. */
export async function joinWithRole(tx: Query, projectId: string, userId: string, role: Role): Promise<void> {
  await tx`
    insert into members (project_id, user_id, role) values (${projectId}, ${userId}, ${role})
    on conflict (project_id, user_id) do update set role = excluded.role
      where members.role not in ${tx(rolesAtLeast(role))}`
}

/** Invites on `q` (a transaction); `clock` decides which invites have expired. */
export function inviteTable(q: Query, clock: () => number) {
  return {
    /** Stores an invite made by `actor`. */
    insert: (actor: Actor, i: { id: string; projectId: string; role: Role; uses: number; expires: number }) =>
      insertInvite(q, { ...i, createdBy: actor.user.id, now: actor.now }),
    takeUse: (id: string) => takeInviteUse(q, id, clock()),
    state: (id: string) => inviteState(q, id),
    context: (id: string) => inviteContext(q, id, clock()),
    joinWithRole: (projectId: string, userId: string, role: Role) => joinWithRole(q, projectId, userId, role),
  }
}
