/** The inbox `/inbox`: tickets assigned to the signed-in person, pending and in review, in pages of 50. */
import { html, type Html } from '../../http/html.ts'
import { listCursors } from '../rules/list-cursors.ts'
import type { ListPosition } from '../store/tickets.ts'
import { ticketList } from './frame.ts'
import type { InboxSection } from './page-data.ts'
import { counted } from './project-page.ts'

/** Where each list of the inbox starts: after a position of a `next` link, or at the top. */
export interface InboxFrom {
  pending: ListPosition | null
  review: ListPosition | null
}

/** The address of the inbox with its lists starting at `from`. */
function inboxUrl(from: InboxFrom): string {
  const query = new URLSearchParams()
  if (from.pending) query.set('pending', listCursors.write(from.pending))
  if (from.review) query.set('review', listCursors.write(from.review))
  const text = query.toString()
  return text ? `/inbox?${text}` : '/inbox'
}

export function inboxBody(input: {
  pending: InboxSection
  review: InboxSection
  from: InboxFrom
  now: number
}): Html {
  const { pending, review, from } = input
  return html`<div class="page-head"><div><h1>Inbox</h1><p class="muted">Tickets assigned to you, latest change first.</p></div></div>
<h2>Waiting for you <span class="muted" data-live="pending-count">(${counted(pending.total)})</span></h2>
${ticketList(pending.rows, input.now, html`<p>Nothing open or in progress is assigned to you.</p>`, { showProject: true, live: 'pending', label: 'Waiting for you' })}
${pager('pending', 'Waiting for you', pending, { ...from, pending: pending.next }, { ...from, pending: null })}
<h2>In review <span class="muted" data-live="review-count">(${counted(review.total)})</span></h2>
${ticketList(review.rows, input.now, html`<p>No ticket of yours is in review.</p>`, { showProject: true, live: 'review', label: 'In review' })}
${pager('review', 'In review', review, { ...from, review: review.next }, { ...from, review: null })}`
}

/** A list's links to its first and next pages, when it has more than one. */
function pager(
  live: string,
  label: string,
  section: InboxSection,
  next: InboxFrom,
  first: InboxFrom,
): Html {
  const shown = section.later || section.next !== null
  return html`<div data-live="${live}-pages">${
    shown
      ? html`<nav class="pager" aria-label="Pages of ${label}">
${section.later ? html`<a href="${inboxUrl(first)}">← First page</a>` : html`<span></span>`}
<span>${counted(section.rows.length)} of ${counted(section.total)} shown</span>
${section.next !== null ? html`<a href="${inboxUrl(next)}" rel="next">Next →</a>` : html`<span></span>`}
</nav>`
      : ''
  }</div>`
}

/** What a signed-out person sees where a page needs them signed in. */
export function signInBody(title: string, loginUrl: string, why: string): Html {
  return html`<div class="card empty"><h1>${title}</h1><p>${why}</p><p><a class="button primary" href="${loginUrl}">Sign in</a></p></div>`
}
