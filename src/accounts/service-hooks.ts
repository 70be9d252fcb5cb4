/**
 * What the services hand the built-in provider at start-up (src/app.ts), so that the provider
 * reads and writes none of their tables: each service implements {@link ServiceHooks}, and the
 * provider calls every one of them, in its own transaction where the account changes.
 *
 * ```ts
 * const hooks = [notesAccountHooks(), ticketsAccountHooks({ sql, clock, publicUrl })]
 * createAccountsProvider({ ...deps, hooks })
 * ```
 *
 * @module
 */
import type { Query } from '../db/client.ts'

/** A project invite as the sign-in page names it: the project, who invited and with what role. */
export interface InviteContext {
  project: string
  inviter: string
  role: string
  /** Revoked by an admin of the project: the page says the link is no longer valid. */
  revoked?: boolean
}

/** One service's part in the provider's flows. */
export interface ServiceHooks {
  /**
   * The live or revoked invite the sign-in's return address names, or null (not this service's,
   * unknown, used up or expired). A service with no invites leaves it out.
   */
  inviteContext?(returnTo: string): Promise<InviteContext | null>
  /**
   * Ends, in the provider's transaction `tx`, every session the account has at the service
   * ("Sign out everywhere", disabling, a password change or reset).
   */
  endSessions(tx: Query, accountId: string): Promise<void>
  /**
   * Ends, in the provider's transaction `tx`, the service's sessions that the provider's sign-in
   * `sid` started (the exchange handed the service `sid`; docs/core.md, "Signing out"): that
   * browser signed out at the provider or in one of the apps. The built-in provider's in-process
   * form of OpenID Connect's back-channel logout.
   */
  endSignIn(tx: Query, sid: string): Promise<void>
  /**
   * What else disabling the account revokes at the service, in the provider's transaction `tx`,
   * after its sessions have ended (the tracker: the person's tokens, the project keys they
   * confirmed and the webhooks those keys made).
   */
  onDisable?(tx: Query, accountId: string): Promise<void>
  /**
   * Takes, in the transaction `tx` that makes the account, one sign-up place of the invite the
   * return address names: true when taken, false when it is this service's invite and no place
   * is left, null when the address names none of this service's invites.
   */
  takeInviteSignup?(tx: Query, returnTo: string): Promise<boolean | null>
  /**
   * The account's confirmed mail address, in the provider's transaction `tx`: a new address
   * confirmed, the same one confirmed again, an organisation's provider's verified one, or null
   * when the person removed it. The tracker mails it from its next mail on.
   */
  onEmailChange?(tx: Query, accountId: string, email: string | null): Promise<void>
  /**
   * The account's address when a mail server refused it and the service has stopped mailing it
   * (`/account` says so, and offers to confirm it again); null otherwise.
   */
  refusedEmail?(accountId: string): Promise<string | null>
  /** What else a password reset ends at the service, after its sessions (the tracker: the person's tokens). */
  onPasswordReset?(tx: Query, accountId: string): Promise<void>
}

/** Takes a sign-up place of the invite behind `returnTo` in `tx`: false when no service has one for it. */
export async function takeInviteSignupOf(
  hooks: readonly ServiceHooks[],
  tx: Query,
  returnTo: string,
): Promise<boolean> {
  for (const h of hooks) {
    const taken = (await h.takeInviteSignup?.(tx, returnTo)) ?? null
    if (taken !== null) return taken
  }
  return false
}

/** The first invite any service finds behind `returnTo`, or null. */
export async function inviteContextOf(
  hooks: readonly ServiceHooks[],
  returnTo: string,
): Promise<InviteContext | null> {
  for (const h of hooks) {
    const found = (await h.inviteContext?.(returnTo)) ?? null
    if (found !== null) return found
  }
  return null
}

/** The first address a service stopped mailing because a server refused it, or null. */
export async function refusedEmailOf(
  hooks: readonly ServiceHooks[],
  accountId: string,
): Promise<string | null> {
  for (const h of hooks) {
    const found = (await h.refusedEmail?.(accountId)) ?? null
    if (found !== null) return found
  }
  return null
}
