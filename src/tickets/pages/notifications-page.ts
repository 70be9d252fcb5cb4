/**
 * The person's notifications `/notifications` (grouped by ticket, newest first, each group
 * linking to the ticket at its first unread event; Mark all read) and their choices
 * `/settings/notifications` (app and mail per kind; the owner's default for new people).
 * docs/notifications.md.
 */
import { html, type Html } from '../../http/html.ts'
import { KINDS, type Kind } from '../rules/notification-reasons.ts'
import type { NotificationGroup, Prefs } from '../store/notifications.ts'
import { readSentence, REASON_WORDS, unreadSentence } from '../text/notification-words.ts'
import { formError, subjectHtml, timeAgo } from './frame.ts'
import { counted } from './project-page.ts'

/** Groups (tickets) a page of `/notifications` shows. */
export const GROUPS_SHOWN = 50

export interface NotificationsPageInput {
  groups: readonly NotificationGroup[]
  /** Whether a later page follows, and where it starts (`?before=`). */
  next: number | null
  /** Whether this is a later page than the first. */
  later: boolean
  unread: number
  now: number
}

/** The address a group links to: the ticket, at its first unread event when there is one. */
export function groupHref(g: NotificationGroup): string {
  const page = `/${g.ticket.slug}/${g.ticket.number}`
  return g.unreadCount > 0 && g.firstUnreadEvent !== null
    ? `${page}#event-${g.firstUnreadEvent}`
    : page
}

export function notificationsBody(input: NotificationsPageInput): Html {
  const { groups, now, unread } = input
  const items = groups.map((g) => {
    const ref = `${g.ticket.slug}#${g.ticket.number}`
    const fresh = g.unreadCount > 0
    const sentence = fresh ? unreadSentence(ref, g.unreadKinds, g.last) : readSentence(ref, g.last)
    // A reminder has no actor (its name is empty).
    const who = (fresh ? g.actors : [g.last.actor]).filter((a) => a !== '')
    const reasons = fresh ? g.reasons : [g.last.reason]
    return html`<li data-key="${g.ticket.id}" class="${fresh ? 'unread' : 'read'}">
<a class="subject" href="${groupHref(g)}"><b>${sentence}</b><span class="ticket-subject">${subjectHtml(g.ticket.subject)}</span></a>
<span class="meta">${reasons.map((r) => html`<span class="pill reason-${r}">${REASON_WORDS[r]}</span>`)}${who.length > 0 ? html`<span>by ${who.join(', ')}</span>` : ''}<span>${timeAgo(g.last.at, now)}</span>${fresh ? html`<span class="visually-hidden">unread</span>` : ''}</span>
</li>`
  })
  const pager =
    input.later || input.next !== null
      ? html`<nav class="pager" aria-label="Pages of notifications">
${input.later ? html`<a href="/notifications">← Newest</a>` : html`<span></span>`}
<span></span>
${input.next !== null ? html`<a href="${`/notifications?before=${input.next}`}" rel="next">Older →</a>` : html`<span></span>`}
</nav>`
      : ''
  return html`<div class="page-head"><div><h1>Notifications</h1><p class="muted">What happened on tickets you are assigned, mentioned in or watch, newest first. Opening a ticket marks its notifications read. <a href="/settings/notifications">Choose what you are told</a>.</p></div>
<div class="actions" data-live="mark-all">${unread > 0 ? html`<form data-api="/api/notifications/read" data-done="reload"><button type="submit" name="all" value="true">Mark all read</button>${formError}</form>` : ''}</div></div>
<p class="muted" data-live="unread-line">${unread === 0 ? 'Nothing unread.' : unread === 1 ? '1 unread notification.' : `${counted(unread)} unread notifications.`}</p>
<div data-live="notifications">${
    groups.length === 0
      ? html`<div class="card empty"><h2>No notifications</h2><p>You are told here when a ticket is assigned to you, when someone mentions you with <code>@</code> and your name, and when something happens on a ticket you watch.</p></div>`
      : html`<ul class="notifications" aria-label="Notifications by ticket">
${items}
</ul>`
  }</div>
${pager}`
}

const KIND_LABELS: Record<Kind, { label: string; hint: string }> = {
  assigned: {
    label: 'Assigned',
    hint: 'a ticket is assigned to you, or taken from you',
  },
  mentioned: { label: 'Mentioned', hint: 'someone writes @ and your name' },
  watching: {
    label: 'Watched activity',
    hint: 'comments, state changes, edits and relations on tickets you watch',
  },
  due: {
    label: 'Due dates',
    hint: 'a ticket assigned to you is due tomorrow, and on the day',
  },
}

/** The table of choices: a row per kind, a check box for the app and one for mail. */
function prefsTable(id: string, prefs: Prefs, caption: string): Html {
  return html`<div class="table-wrap"><table class="list prefs"><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Tell me when</th><th scope="col">In the app</th><th scope="col">By mail</th></tr></thead>
<tbody>${KINDS.map((k) => {
    const { label, hint } = KIND_LABELS[k]
    return html`<tr><th scope="row">${label}<span class="hint">${hint}</span></th>
<td><input type="checkbox" id="${id}-${k}-app" name="${k}_app" data-bool aria-label="${label}: in the app"${prefs[k].app ? html` checked` : ''}></td>
<td><input type="checkbox" id="${id}-${k}-mail" name="${k}_mail" data-bool aria-label="${label}: by mail"${prefs[k].mail ? html` checked` : ''}></td></tr>`
  })}</tbody></table></div>`
}

export interface NotificationSettingsInput {
  prefs: Prefs
  defaults: Prefs
  /** `SMTP_URL` is set. */
  mail: boolean
  /** The provider's owner: they may change the default for new people. */
  owner: boolean
}

export function notificationSettingsBody(input: NotificationSettingsInput): Html {
  const mailNote = input.mail
    ? html`<p class="small muted">Mail goes to the address confirmed on your account. Each mail has a link that turns that kind of mail off.</p>`
    : html`<p class="notice" role="note">Mail is off: this site has no mail server (<code>SMTP_URL</code> is not set), so nothing is mailed whatever you choose here.</p>`
  return html`<p class="crumbs"><a href="/settings">Settings</a> / Notifications</p>
<div class="page-head"><div><h1>Notifications</h1><p class="muted">Choose what you are told, and how. You are never told of what you do yourself.</p></div></div>
<div class="stack">
<section class="card" aria-labelledby="prefs-title">
<h2 id="prefs-title">Tell me</h2>
${mailNote}
<form data-api="/api/notifications/settings" data-done="reload" aria-labelledby="prefs-title">
${prefsTable('mine', input.prefs, 'What you are told, in the app and by mail')}
${formError}
<div class="actions"><button type="submit" class="primary">Save</button></div>
</form>
</section>
${
  input.owner
    ? html`<section class="card" aria-labelledby="defaults-title">
<h2 id="defaults-title">Default for new people</h2>
<p class="muted">People who have not saved their own choices follow this. Only you, the owner, see it.</p>
<form data-api="/api/notifications/defaults" data-done="reload" aria-labelledby="defaults-title">
${prefsTable('default', input.defaults, 'The default for new people')}
${formError}
<div class="actions"><button type="submit">Save default</button></div>
</form>
</section>`
    : ''
}
</div>`
}
