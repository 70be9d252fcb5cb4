/**
 * Invites (docs/tickets-api.md, 4.8): an admin makes a link with a role, a number of uses (1 to
 * 1000, default 1) and a lifetime in days (1 to 90, default 7). Joining takes one use by one
 * statement, so N uses hold under concurrent joins; a member keeps the higher of the old and the
 * invited role. Called by the invite route and by the login return that carries an invite.
 */
import { randomToken } from '../../base/random.ts'
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import { isLookupText } from '../rules/ids.ts'
import {
  BAD_DAYS,
  BAD_EMAIL,
  BAD_USES,
  INVITE_EXPIRED,
  INVITE_REVOKED,
  INVITE_USED_UP,
  NO_SUCH_INVITE,
  unknownRole,
} from '../rules/messages.ts'
import type { OpenInvite } from '../store/invites.ts'
import { isRole, type Role } from '../rules/roles.ts'
import type { Project } from '../store/projects.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import { refuseUnlessAdmin } from './projects.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const EMAIL = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/

/** A decimal whole number from `min` to `max`, or null; absent means `fallback`. */
function wholeNumber(
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number | null {
  if (text === undefined) return fallback
  if (!/^[0-9]{1,4}$/.test(text.trim())) return null
  const n = Number(text.trim())
  return n >= min && n <= max ? n : null
}

export interface InviteInput {
  role: string
  uses?: string
  days?: string
  email?: string
}

export interface Invite {
  id: string
  role: Role
  uses: number
  expires: number
  email: string | null
}

/** Checks an invite's fields; the role check is the caller's. */
function checkInvite(input: InviteInput, now: number): { ok: true; invite: Invite } | Refusal {
  if (!isRole(input.role)) return refuse(400, unknownRole(input.role), 'role')
  const uses = wholeNumber(input.uses, 1, 1, 1000)
  if (uses === null) return refuse(400, BAD_USES, 'uses')
  const days = wholeNumber(input.days, 7, 1, 90)
  if (days === null) return refuse(400, BAD_DAYS, 'days')
  const email = input.email?.trim() || null
  if (email !== null && (email.length > 254 || !EMAIL.test(email)))
    return refuse(400, BAD_EMAIL, 'email')
  return {
    ok: true,
    invite: { id: randomToken(16), role: input.role, uses, expires: now + days * DAY_MS, email },
  }
}

/**
 * Joins an invite: takes one use and makes the user a member with the higher of the two roles.
 * Answers the project's slug, or the reason the invite cannot be used.
 */
export async function joinInvite(
  tx: TicketTx,
  inviteId: string,
  userId: string,
): Promise<{ ok: true; slug: string } | Refusal> {
  if (!isLookupText(inviteId)) return refuse(400, NO_SUCH_INVITE)
  const used = await tx.invites.takeUse(inviteId)
  if (!used) {
    const invite = await tx.invites.state(inviteId)
    if (!invite) return refuse(400, NO_SUCH_INVITE)
    if (invite.revoked) return refuse(400, INVITE_REVOKED)
    return refuse(400, invite.usesLeft <= 0 ? INVITE_USED_UP : INVITE_EXPIRED)
  }
  await tx.invites.joinWithRole(used.projectId, userId, used.role)
  const { slug } = (await tx.projects.byId(used.projectId))!
  await tx.emit(used.projectId, 'membersChanged', [slug])
  await tx.emit(used.projectId, 'invitesChanged', [slug])
  return { ok: true, slug }
}

/** Makes an invite to `project`, as an admin of it; answers it with its id (the link's secret). */
export async function makeInvite(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  input: InviteInput,
): Promise<{ ok: true; invite: Invite } | Refusal> {
  const refused = await refuseUnlessAdmin(tx, project.id, actor.user.id)
  if (refused) return refused
  const checked = checkInvite(input, actor.now)
  if (!checked.ok) return checked
  const { id, role, uses, expires } = checked.invite
  await tx.invites.insert(actor, { id, projectId: project.id, role, uses, expires })
  await tx.emit(project.id, 'invitesChanged', [project.slug])
  return checked
}

/** The invites of `project` that still let someone in, for an admin of it. */
export async function openInvites(
  tx: TicketTx,
  actor: Actor,
  project: Project,
): Promise<{ ok: true; invites: OpenInvite[] } | Refusal> {
  const refused = await refuseUnlessAdmin(tx, project.id, actor.user.id)
  if (refused) return refused
  return { ok: true, invites: await tx.invites.open(project.id) }
}

/**
 * Revokes one of `project`'s open invites, as an admin of it: its link lets nobody in from then
 * on. `id` is the listed id or the link's own; an invite not open is `no such invite` (404).
 */
export async function revokeInvite(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  id: string,
): Promise<{ ok: true; invites: OpenInvite[] } | Refusal> {
  const refused = await refuseUnlessAdmin(tx, project.id, actor.user.id)
  if (refused) return refused
  if (!isLookupText(id) || !(await tx.invites.revoke(project.id, id)))
    return refuse(404, NO_SUCH_INVITE)
  await tx.emit(project.id, 'invitesChanged', [project.slug])
  return { ok: true, invites: await tx.invites.open(project.id) }
}
