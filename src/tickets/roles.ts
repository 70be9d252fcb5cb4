/**
 * Project roles (tickets-interface.md section 5 rule 7, decisions.md section 6): `use` creates
 * tickets, comments and changes state; `edit` also assigns, edits and relates; `admin` also
 * updates the project, its members, invites and connections. Non-members write nothing.
 */
import { deny, type Denied } from './denied.ts'
import type { Query } from './context.ts'
import { NEEDS_ADMIN, NEEDS_EDIT, NOT_MEMBER } from './texts.ts'

export const ROLES = ['use', 'edit', 'admin'] as const
export type Role = (typeof ROLES)[number]

export function isRole(text: string): text is Role {
  return (ROLES as readonly string[]).includes(text)
}

/** The higher of two roles. */
export function higherRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b
}

/** The user's role in the project, or null when not a member. */
export async function roleOf(q: Query, projectId: string, userId: string): Promise<Role | null> {
  const [row] = await q`select role from members where project_id = ${projectId} and user_id = ${userId}`
  return row ? (row.role as Role) : null
}

/**
 * Refuses a `role` below `needed` with 403. `field` names the field of the answer: the interface
 * gives `{ error, field }` on most routes and `{ error }` on edit and relations (field omitted).
 */
export function refuseRole(role: Role | null, needed: Role, field?: string): Denied | null {
  if (role === null) return deny(403, NOT_MEMBER, field)
  if (ROLES.indexOf(role) >= ROLES.indexOf(needed)) return null
  return deny(403, needed === 'admin' ? NEEDS_ADMIN : NEEDS_EDIT, field)
}
