/**
 * Project roles (docs/tickets-api.md, "Roles"): `use` creates
 * tickets, comments and changes state; `edit` also assigns, edits and relates; `admin` also
 * updates the project, its members, invites and connections. Non-members write nothing.
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import { NEEDS_ADMIN, NEEDS_EDIT, NOT_MEMBER } from './messages.ts'

export const ROLES = ['use', 'edit', 'admin'] as const
export type Role = (typeof ROLES)[number]

export function isRole(text: string): text is Role {
  return (ROLES as readonly string[]).includes(text)
}

/**
 * The membership rule: the roles that may do what `needed` may, lowest first. The store's
 * one-statement writes check membership with this same list, so the rule is written once.
 */
export function rolesAtLeast(needed: Role): Role[] {
  return ROLES.slice(ROLES.indexOf(needed))
}

/** Whether a member with `role` (null: not a member) may do what `needed` may. */
export function mayAct(role: Role | null, needed: Role): boolean {
  return role !== null && rolesAtLeast(needed).includes(role)
}

/**
 * Refuses a `role` below `needed` with 403. `field` names the field of the answer: the interface
 * gives `{ error, field }` on most routes and `{ error }` on edit and relations (field omitted).
 */
export function refuseRole(role: Role | null, needed: Role, field?: string): Refusal | null {
  if (role === null) return refuse(403, NOT_MEMBER, field)
  if (mayAct(role, needed)) return null
  return refuse(403, needed === 'admin' ? NEEDS_ADMIN : NEEDS_EDIT, field)
}
