/**
 * The notes service's part in the built-in provider's flows (src/accounts/service-hooks.ts): its
 * sessions name the provider's account id, so ending them is all it has to do.
 */
import type { ServiceHooks } from '../accounts/service-hooks.ts'
import { endSessionsOf, endSignInSessions } from '../auth/session.ts'

/** The notes service's hooks. */
export function notesAccountHooks(): ServiceHooks {
  return {
    endSessions: (tx, accountId) => endSessionsOf(tx, 'notes', accountId),
    endSignIn: (tx, sid) => endSignInSessions(tx, 'notes', sid),
  }
}
