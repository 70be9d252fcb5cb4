/**
 * The frame of every identity provider page (the built-in accounts and the development
 * provider): the stylesheet, a top bar naming who is signed in, and the Content-Security-Policy
 * whose `form-action` allows the provider itself and exactly the services' origins, because a
 * sign-in form's answer redirects to the service (a redirect after a form counts as the form's
 * target).
 */
import { CONTENT_SECURITY_POLICY } from '../http/page-headers.ts'
import { html, htmlPage, htmlResponse, type Html } from '../http/html.ts'
import type { Headers, Response } from '../http/response.ts'

/** What a page needs to know of its provider. */
export interface PageFrame {
  /** The stylesheet's address (src/http/assets.ts), or null for none. */
  stylesheet: string | null
  /** Scripts the page loads (modules), by address. */
  scripts?: readonly string[]
  /** The Content-Security-Policy of every page of this provider ({@link providerPolicy}). */
  policy: string
}

/** The pages' policy: the project's strict one, with `form-action` also naming `serviceOrigins`. */
export function providerPolicy(serviceOrigins: readonly string[]): string {
  const origins = [...new Set(serviceOrigins.map((url) => new URL(url).origin))]
  return CONTENT_SECURITY_POLICY.replace(
    "form-action 'self'",
    ["form-action 'self'", ...origins].join(' '),
  )
}

/** A provider page: `title`, the signed-in person's name (with their links) or none, and `content`. */
export function providerPage(
  frame: PageFrame,
  status: number,
  title: string,
  content: Html,
  options: {
    signedIn?: { name: string; isOwner: boolean; csrf: string } | null
    wide?: boolean
    headers?: Headers
  } = {},
): Response {
  const who = options.signedIn
  const nav = who
    ? html`<nav aria-label="Account">
  <span class="who">Signed in as <strong>${who.name}</strong></span>
  <a href="/account">Account</a>
  ${who.isOwner ? html`<a href="/admin">Admin</a>` : ''}
  <form method="post" action="/signout"><input type="hidden" name="csrf" value="${who.csrf}"><button type="submit" class="quiet">Sign out</button></form>
</nav>`
    : ''
  const head = html`${frame.stylesheet ? html`<link rel="stylesheet" href="${frame.stylesheet}">` : ''}
${(frame.scripts ?? []).map((src) => html`<script type="module" src="${src}"></script>`)}`
  const body = htmlPage(
    { title, head },
    html`<header class="top"><a class="brand" href="/">Sign-in</a>${nav}</header>
<main class="${options.wide ? 'wide' : ''}">
<h1>${title}</h1>
${content}
</main>`,
  )
  return htmlResponse(status, body, {
    'content-security-policy': frame.policy,
    'cache-control': 'no-store',
    ...options.headers,
  })
}
