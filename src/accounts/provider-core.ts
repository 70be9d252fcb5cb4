/**
 * What a sign-in method is handed by the provider (src/accounts/provider.ts): the one way to
 * end a sign-in with an account, and the reading of the login request a form or query carries.
 * Its own module, so the methods (passkeys.ts, oidc.ts) import it without importing the
 * provider that builds them.
 */
import type { Refusal } from '../http/refusal.ts'
import type { Request } from '../http/request.ts'
import type { Headers, Response } from '../http/response.ts'
import type { LoginRequest } from './pages.ts'
import type { Account } from './store.ts'

/** What a check of a request answers: what it found, or the refusal. */
export type Checked<T> = ({ ok: true } & T) | Refusal

/** What a sign-in method needs of the provider. */
export interface ProviderCore {
  /**
   * Signs `account` in at the provider, in the browser of `req`: a new session (the one its
   * cookie named before, if any, ends), and the redirect back to the app, or to `/account`.
   */
  finish(req: Request, account: Account, request: LoginRequest): Promise<Response>
  /** The login request a form or query carries, or its refusal (`bad_login_request`). */
  loginRequest(key: string | null, returnTo: string | null): Checked<{ request: LoginRequest }>
  /**
   * The page answering a refusal: its message under the page's own title (else one by its code),
   * its code in the refusal header, a link on and more headers when `shown` gives them.
   */
  refused(req: Request, refusal: Refusal, shown?: RefusalShown): Response
}

/** How a refusal's page is shown: its title, a link on, more headers (a cookie cleared). */
export interface RefusalShown {
  title?: string
  next?: { href: string; text: string }
  headers?: Headers
}

/**
 * What the provider mails through (start-up hands it the tracker's SMTP mailer when `SMTP_URL`
 * is set): true once the server took the mail.
 */
export interface AccountMailer {
  send(mail: { to: string; subject: string; text: string }): Promise<boolean>
}

const ADDRESS = /^[^\s@<>,;"()[\]]+@[^\s@<>,;"()[\]]+\.[^\s@<>,;"()[\]]+$/

/** A mail address as the provider takes one: one `@`, no space, at most 254 characters. */
export function mailAddress(text: string): string | null {
  const value = text.trim()
  return value.length <= 254 && ADDRESS.test(value) ? value : null
}
