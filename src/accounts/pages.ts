/**
 * The built-in provider's page contents (src/accounts/provider.ts answers with them inside
 * {@link providerPage}'s frame). Names as docs/core.md, "Identity provider", lists them: fields
 * "Name" and "Password"; buttons "Create account", "Sign in", "Sign in with a passkey", "Add a
 * passkey", "Change password", "Sign out everywhere".
 */
import { html, type Html } from '../http/html.ts'
import type { Account } from './store.ts'
import type { InviteContext } from './service-hooks.ts'
import { PASSWORD_MIN } from './password.ts'

/** Where a sign-in goes back to: an app's return address with its key, or the provider itself (both empty). */
export interface LoginRequest {
  key: string
  returnTo: string
}

/** The hidden fields that carry the sign-in's request and the form's token. */
export function hiddenFields(request: LoginRequest, csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">${
    request.returnTo === ''
      ? ''
      : html`
<input type="hidden" name="return" value="${request.returnTo}">`
  }`
}

/** `?return=…` for a link that keeps the sign-in's request (no key: see loginRequest), or '' for the provider's own. */
export function requestQuery(request: LoginRequest, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(extra)
  if (request.returnTo !== '') params.set('return', request.returnTo)
  const query = params.toString()
  return query === '' ? '' : `?${query}`
}

function errorLine(id: string, error: string | null): Html {
  return error === null ? html`` : html`<p class="error" id="${id}" role="alert">${error}</p>`
}

function nameField(
  value: string,
  error: string | null,
  autocomplete: 'username' | 'off' = 'username',
  focus = true,
): Html {
  return html`<div class="field"><label for="name">Name</label>
<input id="name" name="name" required maxlength="100" autocomplete="${autocomplete}" value="${value}"${focus ? html` autofocus` : ''}${error ? html` aria-invalid="true" aria-describedby="name-error"` : ''}>
${errorLine('name-error', error)}</div>`
}

function passwordField(
  label: string,
  name: string,
  autocomplete: 'current-password' | 'new-password',
  error: string | null,
  hint = true,
): Html {
  return html`<div class="field"><label for="${name}">${label}${hint && autocomplete === 'new-password' ? html` <span class="hint">At least ${PASSWORD_MIN} characters.</span>` : ''}</label>
<input id="${name}" name="${name}" type="password" required autocomplete="${autocomplete}"${autocomplete === 'new-password' ? html` minlength="${PASSWORD_MIN}"` : ''}${error ? html` aria-invalid="true" aria-describedby="${name}-error"` : ''}>
${errorLine(`${name}-error`, error)}</div>`
}

export function invitedNotice(invite: InviteContext): Html {
  return html`<div class="notice"><p><strong>${invite.inviter}</strong> invites you to the project <strong>${invite.project}</strong> with the role <strong>${invite.role}</strong>.</p></div>`
}

/** First run: the first person makes the owner account. */
export function setupContent(
  request: LoginRequest,
  csrf: string,
  values: { name: string },
  errors: { name?: string; password?: string } = {},
  sso: Html | null = null,
): Html {
  return html`<div class="notice"><p>Welcome. Nobody has an account here yet: the account you create now is the <strong>owner</strong>, who can invite other people and manage their accounts.</p></div>
${ssoBlock(sso)}<form method="post" action="/setup" class="card stack">
${hiddenFields(request, csrf)}
${nameField(values.name, errors.name ?? null)}
${passwordField('Password', 'password', 'new-password', errors.password ?? null)}
<button type="submit" class="primary">Create account</button>
</form>`
}

/** The sign-in form, with the invite's context and the way to sign up when there is one. */
export function signInContent(
  request: LoginRequest,
  csrf: string,
  options: {
    name: string
    error: string | null
    invite: InviteContext | null
    canSignUp: boolean
    passkeys: boolean
    sso?: Html | null
  },
): Html {
  // Someone following an invite most likely has no account yet: the page leads with making one,
  // and signing in comes second.
  const inviteFirst = options.invite !== null && options.canSignUp
  return html`${options.invite ? invitedNotice(options.invite) : ''}
${
  inviteFirst
    ? html`<div class="card stack"><h2>New here?</h2><a class="button primary sso" href="/signup${requestQuery(request)}">Create an account</a></div>
<h2>Already have an account?</h2>`
    : ''
}
${ssoBlock(options.sso ?? null)}<form method="post" action="/login" class="card stack">
${hiddenFields(request, csrf)}
${errorLine('signin-error', options.error)}
${nameField(options.name, null, 'username', !inviteFirst)}
${passwordField('Password', 'password', 'current-password', null)}
<p class="muted"><a href="/forgot${requestQuery(request)}">Forgot password?</a></p>
<button type="submit" class="${inviteFirst ? 'wide-button' : 'primary'}">Sign in</button>
${
  options.passkeys
    ? html`<div class="or">or</div>
<button type="button" class="wide-button" id="passkey-signin" data-csrf="${csrf}" data-key="${request.key}" data-return="${request.returnTo}">Sign in with a passkey</button>
<p class="error" id="passkey-error" role="alert" hidden></p>`
    : ''
}
</form>
${options.canSignUp && !inviteFirst ? html`<p class="muted">New here? <a href="/signup${requestQuery(request)}">Create an account</a>.</p>` : ''}`
}

/** Sign-up: through a link from the owner, a project invite, or open sign-up. */
export function signUpContent(
  request: LoginRequest,
  csrf: string,
  link: string,
  invite: InviteContext | null,
  values: { name: string },
  errors: { name?: string; password?: string } = {},
  sso: Html | null = null,
): Html {
  return html`${invite ? invitedNotice(invite) : ''}
${ssoBlock(sso)}<form method="post" action="/signup" class="card stack">
${hiddenFields(request, csrf)}
${link === '' ? '' : html`<input type="hidden" name="link" value="${link}">`}
${nameField(values.name, errors.name ?? null)}
${passwordField('Password', 'password', 'new-password', errors.password ?? null)}
<button type="submit" class="primary">Create account</button>
</form>
<p class="muted">Have an account? <a href="/login${requestQuery(request)}">Sign in</a>.</p>`
}

/** The organisation's sign-in button above the password form, or nothing. */
function ssoBlock(sso: Html | null): Html {
  return sso === null
    ? html``
    : html`<div class="card stack sso-card">${sso}</div>
<div class="or">or with a password</div>`
}

/** A page with one message, and where to go next. */
export function messageContent(message: string, next?: { href: string; text: string }): Html {
  return html`<div class="card"><p>${message}</p>${next ? html`<p><a href="${next.href}">${next.text}</a></p>` : ''}</div>`
}

export interface AccountView {
  account: Account
  csrf: string
  apps: { name: string; url: string }[]
  passkeys: { id: string; name: string; created: number; lastUsed: number | null }[]
  notice: string | null
  errors: {
    displayName?: string
    current?: string
    password?: string
    passkey?: string
    email?: string
  }
  /**
   * The address waiting for its link, whether this site sends mail at all, and the confirmed
   * address when a mail server refused it (no mail goes there until it is confirmed again).
   */
  email: { pending: string | null; mail: boolean; refused: string | null }
}

/** `/account`: the apps, display name, password, passkeys, sign out everywhere. */
export function accountContent(view: AccountView): Html {
  const { account, csrf, errors } = view
  const token = html`<input type="hidden" name="csrf" value="${csrf}">`
  return html`${view.notice ? html`<div class="notice done" role="status"><p>${view.notice}</p></div>` : ''}
${
  view.apps.length > 0
    ? html`<section class="card" aria-labelledby="apps-h"><h2 id="apps-h">Your apps</h2>
<p>Press <strong>Sign in</strong> in an app: you are signed in there at once.</p>
<div class="actions">${view.apps.map((app) => html`<a class="button" href="${app.url}">${app.name}</a>`)}</div></section>`
    : ''
}
<section class="card" aria-labelledby="name-h"><h2 id="name-h">Profile</h2>
<form method="post" action="/account/name">${token}
<div class="field"><label for="display-name">Display name <span class="hint">What the apps show. You sign in as <strong>${account.name}</strong>.</span></label>
<input id="display-name" name="display_name" required maxlength="100" value="${account.displayName}"${errors.displayName ? html` aria-invalid="true"` : ''}>
${errorLine('display-name-error', errors.displayName ?? null)}</div>
<button type="submit">Save name</button></form></section>
${emailSection(view, token)}
<section class="card" aria-labelledby="password-h"><h2 id="password-h">Password</h2>
${
  account.passwordHash === ''
    ? html`<p class="muted">This account has no password: you sign in through your organisation's provider.</p>`
    : html`<form method="post" action="/account/password">${token}
<input type="text" name="username" value="${account.name}" autocomplete="username" hidden>
${passwordField('Current password', 'current', 'current-password', errors.current ?? null)}
${passwordField('New password', 'password', 'new-password', errors.password ?? null)}
<button type="submit">Change password</button></form>`
}</section>
<section class="card" aria-labelledby="passkeys-h"><h2 id="passkeys-h">Passkeys</h2>
<p class="muted">A passkey signs you in with this device's screen lock or a security key, without a password.</p>
${
  view.passkeys.length > 0
    ? html`<ul class="plain">${view.passkeys.map(
        (
          key,
        ) => html`<li><span><strong>${key.name}</strong> <span class="muted small">added ${day(key.created)}${key.lastUsed ? `, last used ${day(key.lastUsed)}` : ''}</span></span>
<span class="actions"><form method="post" action="/account/passkeys/rename">${token}<input type="hidden" name="id" value="${key.id}"><label class="visually-hidden" for="rename-${key.id}">New name for ${key.name}</label><input id="rename-${key.id}" name="name" maxlength="60" value="${key.name}"> <button type="submit">Rename</button></form>
<form method="post" action="/account/passkeys/remove">${token}<input type="hidden" name="id" value="${key.id}"><button type="submit" class="danger" aria-label="Remove ${key.name}">Remove</button></form></span></li>`,
      )}</ul>`
    : html`<p>No passkey yet.</p>`
}
<div class="actions"><button type="button" id="passkey-add" data-csrf="${csrf}">Add a passkey</button></div>
<p class="error" id="passkey-error" role="alert"${errors.passkey ? '' : html` hidden`}>${errors.passkey ?? ''}</p></section>
<section class="card" aria-labelledby="everywhere-h"><h2 id="everywhere-h">Sessions</h2>
<p>Signs you out of this page and of both apps, on every device.</p>
<form method="post" action="/account/signout-everywhere">${token}<button type="submit" class="danger">Sign out everywhere</button></form></section>`
}

/** `/account`'s Email: the confirmed address, the one waiting for its link, and the form. */
function emailSection(view: AccountView, token: Html): Html {
  const { account, errors } = view
  const { pending, mail, refused } = view.email
  const status = html`<p id="email-status">${
    refused !== null && refused === account.email
      ? html`A mail server refused mail to <strong>${refused}</strong>, so none goes there. Check the address, then press <strong>Confirm again</strong>, or give another.`
      : account.email !== null
        ? html`Mail goes to <strong>${account.email}</strong>, a confirmed address.`
        : html`No confirmed address: the apps send you no mail.`
  }${pending !== null ? html` A link to confirm <strong>${pending}</strong> is on its way there; open it within 24 hours.` : ''}</p>`
  if (!mail)
    return html`<section class="card" aria-labelledby="email-h"><h2 id="email-h">Email</h2>${status}
<p class="muted">This site sends no mail yet: its owner has not set up a mail server (<code>SMTP_URL</code>).</p></section>`
  return html`<section class="card" aria-labelledby="email-h"><h2 id="email-h">Email</h2>${status}
<form method="post" action="/account/email">${token}
<div class="field"><label for="email">Email</label> <span class="hint" id="email-hint">A new address gets a link to confirm it. Only a confirmed address gets mail.</span>
<input id="email" name="email" type="email" maxlength="254" autocomplete="email" required value="${pending ?? account.email ?? ''}" aria-describedby="email-hint${errors.email ? ' email-error' : ''}"${errors.email ? html` aria-invalid="true"` : ''}>
${errorLine('email-error', errors.email ?? null)}</div>
<div class="actions"><button type="submit">${account.email !== null && pending === null ? 'Confirm again' : 'Save email'}</button>${account.email !== null || pending !== null ? html`<button type="submit" class="danger" formaction="/account/email/remove" formnovalidate>Remove email</button>` : ''}</div></form></section>`
}

/** The page a confirmation link opens: the address and one button. */
export function confirmEmailContent(link: string, csrf: string, email: string): Html {
  return html`<div class="card"><p>Confirm <strong>${email}</strong> as the address the apps mail you.</p>
<form method="post" action="/account/email/confirm"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="link" value="${link}">
<button type="submit" class="primary">Confirm the address</button></form></div>`
}

/** `/forgot` when mail is set up: a name or address, and the button that mails the link. */
export function forgotContent(request: LoginRequest, csrf: string): Html {
  return html`<div class="card"><p>Enter your sign-in name or your confirmed email address. If your account has a confirmed address, a reset link goes there.</p>
<form method="post" action="/forgot">${hiddenFields(request, csrf)}
<div class="field"><label for="who">Name or email</label><input id="who" name="who" required maxlength="254" autocomplete="username"></div>
<button type="submit" class="primary">Mail me a reset link</button></form>
<p class="muted small"><a href="/login${requestQuery(request)}">Back to sign in</a></p></div>`
}

export interface AdminView {
  csrf: string
  people: Account[]
  openSignup: boolean
  links: { id: string; created: number; usesLeft: number; expires: number }[]
  /** A link just made, shown once. */
  made: { what: string; url: string } | null
  error: string | null
  /** With an organisation's provider: its name and the accounts linked to it. */
  sso?: { name: string; linked: Set<string> } | null
}

/** `/admin`: people, sign-up links, open sign-up. */
export function adminContent(view: AdminView): Html {
  const token = html`<input type="hidden" name="csrf" value="${view.csrf}">`
  return html`${view.made ? html`<div class="notice done" role="status"><p>${view.made.what} Copy it now: it is shown only once.</p><code class="secret" id="made-link">${view.made.url}</code></div>` : ''}
${view.error ? html`<div class="notice warn" role="alert"><p>${view.error}</p></div>` : ''}
<section class="card" aria-labelledby="people-h"><h2 id="people-h">People</h2>
<table class="people"><thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last sign-in</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${view.people.map(
    (
      p,
    ) => html`<tr><td><strong>${p.displayName}</strong>${p.displayName !== p.name ? html` <span class="muted">(${p.name})</span>` : ''} ${p.isOwner ? html`<span class="tag">owner</span>` : ''}${p.disabled ? html`<span class="tag">disabled</span>` : ''}${view.sso?.linked.has(p.id) ? html` <span class="tag">${view.sso.name}</span>` : ''}</td>
<td><span class="phone-label">Created </span>${day(p.created)}</td><td><span class="phone-label">Last sign-in </span>${p.lastSignIn ? day(p.lastSignIn) : 'never'}</td>
<td><span class="actions">${ssoControl(view, p)}${
      p.isOwner
        ? ''
        : html`<form method="post" action="/admin/people/${p.id}/reset">${token}<button type="submit" aria-label="Reset link for ${p.name}">Reset link</button></form>
<form method="post" action="/admin/people/${p.id}/${p.disabled ? 'enable' : 'disable'}">${token}<button type="submit" class="${p.disabled ? '' : 'danger'}" aria-label="${p.disabled ? 'Enable' : 'Disable'} ${p.name}">${p.disabled ? 'Enable' : 'Disable'}</button></form>`
    }</span></td></tr>`,
  )}</tbody></table></section>
<section class="card" aria-labelledby="links-h"><h2 id="links-h">Sign-up links</h2>
<p class="muted">A link lets people create an account here. Send it to them yourself.</p>
<form method="post" action="/admin/signup-links">${token}
<div class="row"><div class="field"><label for="uses">Uses <span class="hint">1 to 1000</span></label><input id="uses" name="uses" type="number" min="1" max="1000" value="1" required></div>
<div class="field"><label for="days">Valid for days <span class="hint">1 to 90</span></label><input id="days" name="days" type="number" min="1" max="90" value="7" required></div></div>
<button type="submit" class="primary">Make a sign-up link</button></form>
${
  view.links.length > 0
    ? html`<h3 class="small muted" id="live-links-h">Open sign-up links</h3><ul class="plain" aria-labelledby="live-links-h">${view.links.map((l) => html`<li><span>Made ${day(l.created)} by you</span><span class="muted small">${l.usesLeft} ${l.usesLeft === 1 ? 'use' : 'uses'} left, until ${day(l.expires)}</span><form method="post" action="/admin/signup-links/${l.id}/revoke">${token}<button type="submit" class="danger" aria-label="Revoke the link made ${day(l.created)}, ${l.usesLeft} ${l.usesLeft === 1 ? 'use' : 'uses'} left">Revoke</button></form></li>`)}</ul>`
    : html`<p class="muted small">No open sign-up links.</p>`
}</section>
<section class="card" aria-labelledby="open-h"><h2 id="open-h">Open sign-up</h2>
<p>${view.openSignup ? 'Anyone who can reach this page can create an account.' : 'Off: people join only through a sign-up link or a project invite.'}</p>
<form method="post" action="/admin/open-signup">${token}<input type="hidden" name="on" value="${view.openSignup ? '0' : '1'}"><button type="submit">${view.openSignup ? 'Turn open sign-up off' : 'Turn open sign-up on'}</button></form></section>`
}

/** The button making a person's link to the organisation's provider on `/admin`, unless they are linked (tagged by their name). */
function ssoControl(view: AdminView, p: Account): Html {
  const sso = view.sso
  if (!sso) return html``
  if (sso.linked.has(p.id)) return html``
  return html`<form method="post" action="/admin/people/${p.id}/oidc-link"><input type="hidden" name="csrf" value="${view.csrf}"><button type="submit" aria-label="Link ${p.name} to ${sso.name}">Link to ${sso.name}</button></form>`
}

/** A reset link's page: a new password. */
export function resetContent(
  link: string,
  csrf: string,
  account: Account,
  error: string | null,
): Html {
  return html`<form method="post" action="/reset" class="card stack">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="link" value="${link}">
<p>Choose a new password for <strong>${account.name}</strong>.</p>
<input type="text" name="username" value="${account.name}" autocomplete="username" hidden>
${passwordField('Password', 'password', 'new-password', error)}
<button type="submit" class="primary">Set password</button>
</form>`
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}
