/** The notes service's two small HTML pages: the start page and the login failure page. */
import { escapeHtml, htmlDocument } from '../http.ts'

/** The start page: who is signed in, or a sign-in link. */
export function homePage(user: string | null): string {
  const body = user === null
    ? `<p>Notes sync: your notes, kept in step between your devices.</p>
<p><a href="/login">Sign in</a> to sync your notes.</p>`
    : `<p>Signed in as <strong>${escapeHtml(user)}</strong>.</p>
<p>Your devices sync through <code>/api/notes</code>; <code>/api/me</code> tells them who is signed in.</p>`
  return htmlDocument('Notes', body)
}

/** The login failure page: the stored reason, escaped, and a link to try again. */
export function loginFailedPage(reason: string | null): string {
  const what = reason === null
    ? '<p>No failed sign-in is recorded for this browser.</p>'
    : `<p>The sign-in failed: <strong class="reason">${escapeHtml(reason)}</strong></p>`
  return htmlDocument('Sign-in failed', `${what}\n<p><a href="/login">Sign in again</a></p>`)
}
