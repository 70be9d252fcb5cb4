/**
 * A project's settings `/<slug>/settings`, for its admins: title, slug (the old one keeps
 * working) and description; members with their roles (add by name, change, remove); invite
 * links (role, uses, days, optional email; the link shown to copy); connected apps (remove);
 * labels (`labels-section.ts`); webhooks (`webhooks-section.ts`).
 * The page follows its project's events (`projectChanged`, `membersChanged`,
 * `connectionsChanged`, `invitesChanged`, `labelsChanged`): the parts marked `data-live` redraw, sparing a form in use.
 */
import { TITLE_BLANK } from '../text/page-words.ts'
import { html, type Html } from '../../http/html.ts'
import type { Connection } from '../store/connections.ts'
import type { OpenInvite } from '../store/invites.ts'
import type { Member, Project } from '../store/projects.ts'
import { ROLES, type Role } from '../rules/roles.ts'
import { field, formError, timeAgo } from './frame.ts'

export interface AdminInput {
  project: Project
  members: readonly Member[]
  connections: readonly Connection[]
  /** The invites that still let someone in. */
  invites: readonly OpenInvite[]
  /** The Webhooks section (`webhooks-section.ts`). */
  webhooks: Html
  /** The Labels section (`labels-section.ts`). */
  labels: Html
  viewerId: string
  now: number
}

function roleSelect(id: string, current: Role | null): Html {
  return html`<select id="${id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === current ? html` selected` : ''}>${r}</option>`)}</select>`
}

export function adminBody(input: AdminInput): Html {
  const { project: p, now } = input
  const api = `/api/projects/${p.slug}`
  return html`<div data-live="settings-head"><p class="crumbs"><a href="/${p.slug}">${p.title}</a> / settings</p>
<div class="page-head"><div><h1>Project settings</h1><p class="muted">Only admins of ${p.title} see this page.</p></div></div></div>
<div class="stack">
<section class="card" aria-labelledby="about-title">
<h2 id="about-title">About the project</h2>
<div data-live="about">
<form data-api="${api}" data-done="go" data-then="/settings" data-key="about">
<div class="grid-2">
${field({ id: 'admin-title', name: 'title', label: 'Title', control: html`<input id="admin-title" name="title" type="text" value="${p.title}" maxlength="200" aria-required="true" data-not-blank="${TITLE_BLANK}">` })}
${field({ id: 'admin-slug', name: 'slug', label: 'Slug', hint: 'old addresses keep working', control: html`<input id="admin-slug" name="slug" type="text" value="${p.slug}" maxlength="40" required>` })}
</div>
${field({ id: 'admin-description', name: 'description', label: 'Description', control: html`<textarea id="admin-description" name="description" rows="3">${p.description}</textarea>` })}
${formError}
<button type="submit" class="primary">Save</button>
</form>
</div>
</section>

<section class="card" aria-labelledby="members-title">
<h2 id="members-title">Members</h2>
<div data-live="members" class="table-wrap"><table class="list" aria-label="Members"><thead><tr><th>Person</th><th>Role</th><th><span class="visually-hidden">Remove</span></th></tr></thead><tbody>
${input.members.map(
  (
    m,
  ) => html`<tr data-key="${m.user.id}"><td>${m.user.name}${m.user.id === input.viewerId ? html` <span class="muted">(you)</span>` : ''}</td>
<td><form data-api="${api}/members" data-done="reload" class="inline"><input type="hidden" name="user" value="${m.user.id}"><label class="visually-hidden" for="role-${m.user.id}">Role of ${m.user.name}</label>${roleSelect(`role-${m.user.id}`, m.role)}<button type="submit">Save</button>${formError}</form></td>
<td><form data-api="${api}/members/remove" data-done="reload"><button type="submit" class="danger" name="user" value="${m.user.id}" data-confirm="Remove ${m.user.name} from ${p.title}?" aria-label="Remove ${m.user.name}">Remove</button>${formError}</form></td></tr>`,
)}
</tbody></table></div>
<h3>Add a member</h3>
<form data-api="${api}/members" data-done="reset">
<div class="grid-2">
${field({ id: 'member-user', name: 'user', label: 'Person', hint: 'their name or user id; they must have signed in here once', control: html`<input id="member-user" name="user" type="text" required autocomplete="off">` })}
${field({ id: 'member-role', name: 'role', label: 'Role', control: roleSelect('member-role', 'use') })}
</div>
${formError}
<button type="submit">Add member</button>
</form>
</section>

<section class="card" aria-labelledby="invite-title">
<h2 id="invite-title">Invite links</h2>
<p class="muted">A link lets people who have not signed in here yet join with a role. Send it yourself, or give an email address to mail it.</p>
<form data-api="${api}/invites" data-done="secret" data-secret="new-invite">
<div class="grid-2">
${field({ id: 'invite-role', name: 'role', label: 'Role', control: roleSelect('invite-role', 'use') })}
${field({ id: 'invite-uses', name: 'uses', label: 'Uses', hint: '1 to 1000', control: html`<input id="invite-uses" name="uses" type="number" min="1" max="1000" value="1" required>` })}
${field({ id: 'invite-days', name: 'days', label: 'Days', hint: 'valid for 1 to 90 days', control: html`<input id="invite-days" name="days" type="number" min="1" max="90" value="7" required>` })}
${field({ id: 'invite-email', name: 'email', label: 'Email', hint: 'optional', control: html`<input id="invite-email" name="email" type="email" data-optional autocomplete="off">` })}
</div>
${formError}
<button type="submit">Create invite link</button>
</form>
<div id="new-invite" class="notice" role="status" hidden>
<label for="new-invite-value">Invite link</label>
<div class="secret"><input id="new-invite-value" type="text" readonly><button type="button" data-copy="new-invite-value">Copy</button></div>
</div>
<h3 id="open-invites-title">Open invites</h3>
<div data-live="invites">${
    input.invites.length
      ? html`<div class="table-wrap"><table class="list" aria-labelledby="open-invites-title"><thead><tr><th>Role</th><th>Uses left</th><th>Expires</th><th>Made by</th><th><span class="visually-hidden">Revoke</span></th></tr></thead><tbody>
${input.invites.map(
  (
    i,
  ) => html`<tr data-key="${i.id}"><td>${i.role}</td><td>${String(i.usesLeft)} of ${String(i.uses)}</td><td>${timeAgo(i.expires, now)}</td><td>${i.by.name}</td>
<td><form data-api="${api}/invites/${i.id}/revoke" data-done="reload"><button type="submit" class="danger" data-confirm="Revoke this ${i.role} invite? Its link stops working at once.">Revoke</button>${formError}</form></td></tr>`,
)}
</tbody></table></div>`
      : html`<p class="muted">No open invites. A link that is used up, expired or revoked lets nobody in.</p>`
  }</div>
</section>

<section class="card" aria-labelledby="apps-title">
<h2 id="apps-title">Connected apps</h2>
<div data-live="connections">
${
  input.connections.length
    ? html`<div class="table-wrap"><table class="list" aria-label="Connected apps"><thead><tr><th>App</th><th>Connected by</th><th>Last used</th><th><span class="visually-hidden">Remove</span></th></tr></thead><tbody>
${input.connections.map(
  (
    c,
  ) => html`<tr data-key="${c.id}"><td><b>${c.label}</b> <span class="muted">${c.app}</span><br><span class="small muted">connected ${timeAgo(c.created, now)}</span></td><td>${c.by.name}</td><td>${c.lastUsed === null ? html`<span class="muted">never</span>` : timeAgo(c.lastUsed, now)}</td>
<td><form data-api="${api}/connections/remove" data-done="reload"><button type="submit" class="danger" name="id" value="${c.id}" data-confirm="Remove ${c.label}? Its key stops working at once." aria-label="Remove ${c.label}">Remove</button>${formError}</form></td></tr>`,
)}
</tbody></table></div>`
    : html`<p class="muted">No app is connected. An app connects by sending you to this tracker's connect page, where you pick the project.</p>`
}
</div>
</section>
${input.labels}
${input.webhooks}
</div>`
}
