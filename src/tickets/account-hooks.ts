/**
 * The tracker's part in the built-in provider's flows (src/accounts/service-hooks.ts), wired by
 * src/app.ts: the words of the project invite a sign-in returns to, and what an account that signs
 * out everywhere or is disabled loses here. Whatever it reads or writes goes through the store.
 */
import type { ServiceHooks } from '../accounts/service-hooks.ts'
import { endSessionsOf, endSignInSessions } from '../auth/session.ts'
import type { Sql } from '../db/client.ts'
import { connectionTable } from './store/connections.ts'
import { inviteTable } from './store/invites.ts'
import { tokenTable } from './store/tokens.ts'
import { userTable } from './store/users.ts'

/**
 * The invite id in a return address to the tracker's `/login/callback?invite=<id>`
 * (docs/tickets-api.md 4.8) under `publicUrl`; null for any other address.
 */
export function inviteIdOf(publicUrl: string, returnTo: string): string | null {
  let url: URL
  try {
    url = new URL(returnTo)
  } catch {
    return null
  }
  if (url.origin !== new URL(publicUrl).origin || !url.pathname.endsWith('/login/callback'))
    return null
  const id = url.searchParams.get('invite') ?? ''
  return id === '' || id.length > 100 ? null : id
}

/**
 * The tracker's hooks on `sql`. `publicUrl` is the tracker's address when this process serves it,
 * or null: then no return address is its, but its sessions and tokens still end, since another
 * process may serve it on the same database.
 */
export function ticketsAccountHooks(deps: {
  sql: Sql
  clock: () => number
  publicUrl: string | null
}): ServiceHooks {
  const { sql, clock, publicUrl } = deps
  return {
    async inviteContext(returnTo) {
      const id = publicUrl === null ? null : inviteIdOf(publicUrl, returnTo)
      return id === null ? null : inviteTable(sql, clock).context(id)
    },
    // The tracker's sessions name its own user of the account.
    async endSessions(tx, accountId) {
      const user = await userTable(tx, clock).byIdentity(accountId)
      if (user !== null) await endSessionsOf(tx, 'tickets', user.id)
    },
    endSignIn: (tx, sid) => endSignInSessions(tx, 'tickets', sid),
    async takeInviteSignup(tx, returnTo) {
      const id = publicUrl === null ? null : inviteIdOf(publicUrl, returnTo)
      return id === null ? null : inviteTable(tx, clock).takeSignupPlace(id)
    },
    // A project key acts as the person who confirmed it, so it ends with them, and the webhooks
    // it made go with it (docs/connect-apps.md). A disabled person gets no more mail; the exchange
    // gives the address back when they are enabled and sign in again.
    async onDisable(tx, accountId) {
      await userTable(tx, clock).setEmail(accountId, null)
      await tokenTable(tx, clock).deleteOfIdentity(accountId)
      await connectionTable(tx, clock).deleteOfIdentity(accountId)
    },
    // The confirmed address: the sender reads it at each mail, so no sign-in is needed. Confirmed
    // again, an address a mail server refused gets mail again.
    async onEmailChange(tx, accountId, email) {
      await userTable(tx, clock).setEmail(accountId, email)
    },
    async refusedEmail(accountId) {
      return userTable(sql, clock).refusedEmail(accountId)
    },
    // A reset may follow a stolen password: the person's user tokens end with their sessions.
    async onPasswordReset(tx, accountId) {
      await tokenTable(tx, clock).deleteOfIdentity(accountId)
    },
  }
}
