/**
 * The person's settings `/settings`: API tokens (create with a label, the secret shown once with
 * a copy button, the list with last use, revoke) and their projects with their roles.
 */
import { html, type Html } from '../../http/html.ts'
import { field, formError, timeAgo } from './frame.ts'
import { mayAct, type Role } from '../rules/roles.ts'
import { ADMIN } from '../domain/projects.ts'

export interface SettingsInput {
  name: string
  tokens: readonly { id: string; label: string; created: number; lastUsed: number | null }[]
  memberships: readonly { slug: string; title: string; role: Role }[]
  now: number
}

export function settingsBody(input: SettingsInput): Html {
  const { now } = input
  return html`<div class="page-head"><div><h1>Settings</h1><p class="muted">Signed in as <b>${input.name}</b>.</p></div></div>
<div class="stack">
<section class="card" aria-labelledby="notify-title">
<h2 id="notify-title">Notifications</h2>
<p class="muted">What you are told when you are assigned, mentioned or watch a ticket, in the app and by mail. <a href="/settings/notifications">Choose what you are told</a>.</p>
</section>
<section class="card" aria-labelledby="tokens-title">
<h2 id="tokens-title">API tokens</h2>
<p class="muted">A token lets a script or a terminal act as you: send it as <code>Authorization: Bearer …</code>. It is shown once, when you make it.</p>
<form data-api="/api/tokens" data-done="secret" data-secret="new-token">
${field({ id: 'token-label', name: 'label', label: 'Token label', hint: 'what will use it, e.g. “laptop” or “nightly build”', control: html`<input id="token-label" name="label" type="text" maxlength="80" required autocomplete="off">` })}
${formError}
<button type="submit" class="primary">Create token</button>
</form>
<div id="new-token" class="notice" role="status" hidden>
<label for="new-token-value">Your new token: copy it now, it is not shown again</label>
<div class="secret"><input id="new-token-value" type="text" readonly><button type="button" data-copy="new-token-value">Copy</button></div>
</div>
<div data-live="tokens">
${
  input.tokens.length
    ? html`<div class="table-wrap"><table class="list" aria-label="Your tokens"><thead><tr><th>Label</th><th>Created</th><th>Last used</th><th><span class="visually-hidden">Revoke</span></th></tr></thead><tbody>
${input.tokens.map(
  (
    t,
  ) => html`<tr data-key="${t.id}"><td>${t.label}</td><td>${timeAgo(t.created, now)}</td><td>${t.lastUsed === null ? html`<span class="muted">never</span>` : timeAgo(t.lastUsed, now)}</td>
<td><form data-api="/api/tokens/revoke" data-done="reload"><button type="submit" class="danger" name="id" value="${t.id}" data-confirm="Revoke the token “${t.label}”? Whatever uses it stops working." aria-label="Revoke ${t.label}">Revoke</button>${formError}</form></td></tr>`,
)}
</tbody></table></div>`
    : html`<p class="muted">You have no tokens.</p>`
}
</div>
</section>
<section class="card" aria-labelledby="projects-title">
<h2 id="projects-title">Your projects</h2>
${
  input.memberships.length
    ? html`<div class="table-wrap"><table class="list"><thead><tr><th>Project</th><th>Your role</th><th><span class="visually-hidden">Settings</span></th></tr></thead><tbody>
${input.memberships.map((m) => html`<tr><td><a href="/${m.slug}">${m.title}</a></td><td>${m.role}</td><td>${mayAct(m.role, ADMIN) ? html`<a href="/${m.slug}/settings">Project settings</a>` : ''}</td></tr>`)}
</tbody></table></div>`
    : html`<p class="muted">You are not a member of any project yet. <a href="/">Start one</a>, or ask an admin for an invite link.</p>`
}
<p class="small muted">Roles: <b>use</b> writes tickets, comments and changes states; <b>edit</b> also assigns, edits and relates tickets; <b>admin</b> also manages the project, its members, invites and connected apps.</p>
</section>
</div>`
}
