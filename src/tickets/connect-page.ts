/**
 * The connect page `/connect/<nonce>` (decisions.md section 6 "Connect:"): server-rendered, every
 * value escaped, no build step. It shows the app's label and name and the `return` address the
 * person will be sent to. A signed-out person gets a sign-in link that comes back here; a
 * signed-in one picks a project they administer or names a new one, and a small inline script
 * confirms through `POST /api/connect/<nonce>/confirm` (the session's tag, rendered into the
 * page, goes in `x-tag`) and then sends the browser to the answered `location`.
 */
import { createHash } from 'node:crypto'
import { escapeHtml, type Response } from '../http.ts'
import type { ConnectRequest } from './connect.ts'
import { page } from './pages.ts'
import { CONNECT } from './texts.ts'

/** A project the person administers, as the page offers it. */
export interface PageProject {
  id: string
  slug: string
  title: string
}

export type PageInput =
  | { request: ConnectRequest; signIn: string }
  | { request: ConnectRequest; person: { name: string; tag: string; projects: PageProject[] }; confirmPath: string }

// The script reads everything it needs from the form's attributes, so no value is ever written
// into script text (where HTML escaping would not be enough).
const SCRIPT = `
const form = document.getElementById('connect')
const out = document.getElementById('connect-error')
const fresh = document.getElementById('connect-new')
form.elements.title.addEventListener('input', () => { fresh.checked = true })
form.addEventListener('submit', async (event) => {
  event.preventDefault()
  const choice = form.querySelector('input[name=project]:checked')
  const body = choice && choice.value !== '' ? { project: choice.value } : { title: form.elements.title.value }
  out.textContent = ''
  form.elements.go.disabled = true
  try {
    const res = await fetch(form.dataset.confirm, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tag': form.dataset.tag },
      body: JSON.stringify(body),
    })
    const answer = await res.json()
    if (res.ok && typeof answer.location === 'string') return window.location.assign(answer.location)
    out.textContent = answer.error || 'could not connect'
  } catch {
    out.textContent = 'could not reach the service: try again'
  }
  form.elements.go.disabled = false
})
`

const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64')

/**
 * The page's headers: never stored, never framed (a confirm button under someone else's page is
 * clickjacking), no address sent on as a referrer (it holds the nonce), and a script policy that
 * allows only the page's own inline script.
 */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; connect-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
} as const

/** The connect page for a waiting request. */
export function connectPage(input: PageInput): Response {
  const { app, label, returnUrl } = input.request
  const asks = `<p>The app <strong>${escapeHtml(label)}</strong> (${escapeHtml(app)}) asks to connect to a project here.</p>`
  const target = `<p>When you confirm, you are sent back to:<br><code>${escapeHtml(returnUrl)}</code></p>`
  if ('signIn' in input) {
    const body = [asks, target, `<p><a href="${escapeHtml(input.signIn)}">Sign in</a> to choose the project.</p>`].join('\n')
    return page(200, CONNECT, body, PAGE_HEADERS)
  }
  const { person, confirmPath } = input
  const options = person.projects.map((p, i) =>
    `<label><input type="radio" name="project" value="${escapeHtml(p.id)}"${i === 0 ? ' checked' : ''}> ${escapeHtml(p.title)} (${escapeHtml(p.slug)})</label><br>`,
  )
  const body = [
    asks,
    `<p>It will create tickets, comment and change states in that project as you, <strong>${escapeHtml(person.name)}</strong>, while you are a member of it. An admin of the project can disconnect it at any time.</p>`,
    target,
    `<form id="connect" data-confirm="${escapeHtml(confirmPath)}" data-tag="${escapeHtml(person.tag)}">`,
    `<fieldset><legend>Project</legend>`,
    ...options,
    `<label><input type="radio" name="project" value="" id="connect-new"${options.length === 0 ? ' checked' : ''}> A new project, titled <input name="title" maxlength="200"></label>`,
    `</fieldset>`,
    `<p><button type="submit" name="go">Connect ${escapeHtml(label)}</button></p>`,
    `<p id="connect-error" role="alert"></p>`,
    `</form>`,
    `<noscript><p>This page needs JavaScript to confirm.</p></noscript>`,
    `<p>If you did not start this, close this page: nothing is connected until you confirm.</p>`,
    `<script>${SCRIPT}</script>`,
  ].join('\n')
  return page(200, CONNECT, body, PAGE_HEADERS)
}
