/** The inbox `/inbox`: tickets assigned to the signed-in person, pending and in review. */
import { html, type Html } from '../../http/html.ts'
import { ticketList } from './frame.ts'
import type { Row } from './page-data.ts'

export function inboxBody(input: { pending: readonly Row[]; review: readonly Row[]; now: number }): Html {
  return html`<div class="page-head"><div><h1>Inbox</h1><p class="muted">Tickets assigned to you, latest change first.</p></div></div>
<h2>Waiting for you <span class="muted" data-live="pending-count">(${input.pending.length})</span></h2>
${ticketList(input.pending, input.now, html`<p>Nothing open or in progress is assigned to you.</p>`, { showProject: true, live: 'pending', label: 'Waiting for you' })}
<h2>In review <span class="muted" data-live="review-count">(${input.review.length})</span></h2>
${ticketList(input.review, input.now, html`<p>No ticket of yours is in review.</p>`, { showProject: true, live: 'review', label: 'In review' })}`
}

/** What a signed-out person sees where a page needs them signed in. */
export function signInBody(title: string, loginUrl: string, why: string): Html {
  return html`<div class="card empty"><h1>${title}</h1><p>${why}</p><p><a class="button primary" href="${loginUrl}">Sign in</a></p></div>`
}
