/**
 * What the ticket tracker does when the sign-in provider (src/accounts) changes a person: the
 * tracker's side of the boundary between them, so the provider never reads or writes a tracker
 * table itself. The provider calls these inside its own transaction, so a change and what it
 * ends are one.
 *
 * - **Disabled** ({@link TrackerHooks.personDisabled}): the person's tracker sessions and user
 *   tokens end, the project keys of the apps they connected stop (their rows go) and the webhooks
 *   those keys made are removed with them (`webhooks.connection_id ... on delete cascade`). A key
 *   acts as the person who confirmed it, so it cannot outlive them (docs/connect-apps.md).
 * - **Password changed or reset** ({@link TrackerHooks.sessionsEnded}): the person's tracker
 *   sessions end; a reset also ends their user tokens.
 * - **Sign-up through a project invite** ({@link TrackerHooks.takeInviteSignup}): an invite makes at
 *   most as many accounts as it has uses.
 */
import type { Query, Sql } from '../db/client.ts'
import { hashSecret } from '../base/random.ts'

/** A live project invite, as the provider's sign-in page tells of it. */
export interface InviteContext {
  project: string
  inviter: string
  role: string
}

export interface TrackerHooks {
  /** The live invite `returnTo` names, or null (no invite, not the tracker's callback, unknown, used up or expired). */
  inviteContext(returnTo: string, now: number): Promise<InviteContext | null>
  /**
   * Takes one sign-up place of the invite `returnTo` names, in `tx` (the transaction that makes
   * the account): false when it names none or its places are taken.
   */
  takeInviteSignup(tx: Query, returnTo: string, now: number): Promise<boolean>
  /** Ends what the person holds at the tracker: sessions, user tokens, the project keys they confirmed and those keys' webhooks. */
  personDisabled(tx: Query, accountId: string): Promise<void>
  /** Ends the person's tracker sessions, and with `tokens` their user tokens too. */
  sessionsEnded(tx: Query, accountId: string, options: { tokens: boolean }): Promise<void>
}

/** The invite id in a tracker callback address, or null. */
function inviteIdOf(ticketsUrl: string, returnTo: string): string | null {
  if (returnTo === '') return null
  let url: URL
  try {
    url = new URL(returnTo)
  } catch {
    return null
  }
  if (url.origin !== new URL(ticketsUrl).origin || !url.pathname.endsWith('/login/callback')) return null
  const id = url.searchParams.get('invite') ?? ''
  return id === '' || id.length > 100 ? null : id
}

/** The tracker's hooks on `sql`, for the tracker at `ticketsUrl` (null: no tracker runs, no invites). */
export function createTrackerHooks(sql: Sql, ticketsUrl: string | null): TrackerHooks {
  const users = (q: Query, accountId: string) => q`select id from users where idp_id = ${accountId}`
  return {
    async inviteContext(returnTo, now) {
      const id = ticketsUrl === null ? null : inviteIdOf(ticketsUrl, returnTo)
      if (id === null) return null
      // An invite is stored under its hash (sql/0015_hashed_ids.sql).
      const [row] = await sql<{ title: string; role: string; inviter: string }[]>`
        select p.title, i.role, u.name as inviter
        from invites i join projects p on p.id = i.project_id join users u on u.id = i.created_by
        where i.id = ${hashSecret(id)} and i.uses_left > 0 and i.expires > ${now}`
      return row ? { project: row.title, inviter: row.inviter, role: row.role } : null
    },
    async takeInviteSignup(tx, returnTo, now) {
      const id = ticketsUrl === null ? null : inviteIdOf(ticketsUrl, returnTo)
      if (id === null) return false
      // `signups_left` is null until the first sign-up through an invite made before it existed.
      const rows = await tx`
        update invites set signups_left = coalesce(signups_left, uses_left) - 1
        where id = ${hashSecret(id)} and uses_left > 0 and coalesce(signups_left, uses_left) > 0 and expires > ${now}
        returning 1`
      return rows.length === 1
    },
    async personDisabled(tx, accountId) {
      await tx`delete from sessions where service = 'tickets' and user_id in (${users(tx, accountId)})`
      await tx`delete from tokens where user_id in (${users(tx, accountId)})`
      // The keys' webhooks go with them (on delete cascade); unused connect codes go too.
      await tx`delete from connections where user_id in (${users(tx, accountId)})`
      await tx`delete from connect_codes where user_id in (${users(tx, accountId)}) and used is null`
    },
    async sessionsEnded(tx, accountId, options) {
      await tx`delete from sessions where service = 'tickets' and user_id in (${users(tx, accountId)})`
      if (options.tokens) await tx`delete from tokens where user_id in (${users(tx, accountId)})`
    },
  }
}

/** Hooks for a provider with no tracker beside it: nothing to end, no invites. */
export const NO_TRACKER: TrackerHooks = {
  inviteContext: async () => null,
  takeInviteSignup: async () => false,
  personDisabled: async () => {},
  sessionsEnded: async () => {},
}
