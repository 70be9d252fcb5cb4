/**
 * The connect page `/connect/<nonce>` (docs/connect-apps.md): server-rendered, every
 * value escaped, no build step. It shows the app's label and name and the `return` address the
 * person will be sent to. A signed-out person gets a sign-in link that comes back here; a
 * signed-in one picks a project they administer or names a new one, and a small bundled script
 * (src/tickets/app/connect.ts) confirms through `POST /api/connect/<nonce>/confirm` (the session's tag, rendered into the
 * page, goes in `x-tag`) and then sends the browser to the answered `location`.
 */
import { html, htmlPage, htmlResponse, joinHtml, type Html } from '../../http/html.ts'
import type { Response } from '../../http/response.ts'
import { CONNECT } from '../rules/messages.ts'

/** A project the person administers, as the page offers it. */
export interface PageProject {
  id: string
  slug: string
  title: string
}

/** What the page shows of a waiting connect request. */
export interface PageRequest {
  app: string
  label: string
  /** The normalised absolute `return` address. */
  returnUrl: string
  /** The app's `state`, handed back with a refusal too. */
  state: string
}

export type PageInput =
  | { request: PageRequest; signIn: string; stylesheet: string }
  | {
      request: PageRequest
      person: { name: string; tag: string; projects: PageProject[] }
      confirmPath: string
      stylesheet: string
      script: string
    }

/**
 * Where Cancel goes: back to the app with `error=access_denied` and its `state` (the answer of
 * OAuth 2.0, RFC 6749 section 4.1.2.1, which apps already handle). Nothing is connected.
 */
export function cancelAddress(returnUrl: string, state: string): string {
  const url = new URL(returnUrl)
  url.searchParams.set('error', 'access_denied')
  url.searchParams.set('state', state)
  return url.toString()
}

/**
 * The page's headers: never stored, never framed (a confirm button under someone else's page is
 * clickjacking), no address sent on as a referrer (it holds the nonce), and a script policy that
 * allows only the service's own bundled files (src/tickets/app/connect.ts), no inline script.
 */
export const PAGE_HEADERS = {
  'cache-control': 'private, no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': `default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
  'x-content-type-options': 'nosniff',
} as const

/** The page in the web app's look: its stylesheet, a card in the middle, the service's name. */
function connectDocument(stylesheet: string, body: Html): Html {
  const head = stylesheet ? html`<link rel="stylesheet" href="${stylesheet}">` : undefined
  return htmlPage(
    { title: CONNECT, head, bodyClass: 'connect' },
    html`<header class="top"><div class="top-inner"><span class="brand">Tickets</span></div></header>
<main class="page narrow"><div class="card">
<h1>${CONNECT}</h1>
${body}
</div></main>`,
  )
}

/** The connect page for a waiting request. */
export function connectPage(input: PageInput): Response {
  const { app, label, returnUrl } = input.request
  const asks = html`<p>The app <strong>${label}</strong> (${app}) asks to connect to a project here.</p>`
  const target = html`<p>When you confirm, you are sent back to:<br><code>${returnUrl}</code></p>`
  const cancel = html`<a class="button" href="${cancelAddress(returnUrl, input.request.state)}">Cancel</a>`
  if ('signIn' in input) {
    const body = html`${asks}
${target}
<p><a href="${input.signIn}">Sign in</a> to choose the project.</p>
<p class="actions">${cancel}</p>`
    return htmlResponse(200, connectDocument(input.stylesheet, body), PAGE_HEADERS)
  }
  const { person, confirmPath } = input
  const options = person.projects.map(
    (p, i) =>
      html`<label class="choice"><input type="radio" name="project" value="${p.id}"${i === 0 ? html` checked` : ''}> ${p.title} <span class="muted">(${p.slug})</span></label>`,
  )
  const body = joinHtml(
    [
      asks,
      html`<p>It will create tickets, comment and change states in that project as you, <strong>${person.name}</strong>, while you are a member of it. An admin of the project can disconnect it at any time.</p>`,
      target,
      html`<form id="connect" data-confirm="${confirmPath}" data-tag="${person.tag}">`,
      html`<fieldset><legend>Project</legend>`,
      ...options,
      html`<label class="choice"><input type="radio" name="project" value="" id="connect-new"${options.length === 0 ? html` checked` : ''}> A new project</label>`,
      html`<div class="field"><label for="connect-title">Title</label><input id="connect-title" name="title" type="text" maxlength="200" autocomplete="off"></div>`,
      html`</fieldset>`,
      html`<p class="actions"><button type="submit" name="go" class="primary">Connect ${label}</button>${cancel}</p>`,
      html`<p id="connect-error" class="form-error" role="alert"></p>`,
      html`</form>`,
      html`<noscript><p>This page needs JavaScript to confirm.</p></noscript>`,
      html`<p>If you did not start this, close this page: nothing is connected until you confirm.</p>`,
      html`<script type="module" src="${input.script}"></script>`,
    ],
    '\n',
  )
  return htmlResponse(200, connectDocument(input.stylesheet, body), PAGE_HEADERS)
}
