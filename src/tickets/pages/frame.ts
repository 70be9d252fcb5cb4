/**
 * The frame of every ticket page: the bar on top (service name, project switcher, search, Inbox
 * with its count, the person with Settings and Sign out, or Sign in), the shortcuts dialog, the
 * polite live region that announces changes, and the parts several pages share (ticket rows,
 * state badges, times, form fields). Pure functions of their input, written with the
 * auto-escaping template (src/http/html.ts).
 */
import { menuLinks } from '../../auth/person-menu.ts'
import type { Places } from '../../service.ts'
import { escapeHtml, html, htmlPage, rawHtml, type Html, type HtmlValue } from '../../http/html.ts'
import { markdownSubject } from '../app/markdown-html.ts'
import { exactTime, isoTime, relativeTime } from '../app/relative-time.ts'
import { SHORTCUTS } from '../app/shortcuts.ts'
import { SEARCH_HELP } from '../rules/query.ts'
import type { Row, Viewer } from './page-data.ts'
import { switchSentence } from '../../auth/shown-name.ts'
import { dueText, labelChip } from './chips.ts'

/** The bundled files a page loads. */
export interface PageAssets {
  script: string
  style: string
}

/** What the live script follows (docs/live-events.md). */
export interface LiveTarget {
  /** A project's slug, or null for every project. */
  project: string | null
  ticket: string | null
  cursor: number
  /** The only event names the page follows; every name when absent. */
  events?: readonly string[]
}

export interface FrameInput {
  title: string
  viewer: Viewer | null
  /** The projects of the switcher. */
  projects: readonly { slug: string; title: string }[]
  /** The project the page is about: the switcher names it and search stays inside it. */
  project?: { slug: string; title: string } | null
  /** The search box's text. */
  q?: string
  /** Where the search box sends its search: the project's list (or the board), else every project's. */
  searchAction?: string
  /** Where "Sign in" comes back to. */
  loginUrl: string
  /** Where the person's menu leads. */
  places?: Places | undefined
  assets: PageAssets
  live?: LiveTarget | null
  body: Html
  now: number
}

/**
 * The tab's icon, the bar's mark (an amber square with a tick), inline so no page asks for a
 * `/favicon.ico` the service does not have (the pages' `img-src` allows `data:`).
 */
const FAVICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#e8a33d"/><path d="M9 16.5l4.5 4.5L23 11.5" fill="none" stroke="#1f1405" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/></svg>')}`

/** A whole page. */
export function framePage(input: FrameInput): Html {
  const { viewer, project, live } = input
  const searchAction = input.searchAction ?? (project ? `/${project.slug}` : '/tickets')
  const others = input.projects.map(
    (p) =>
      html`<li><a href="/${p.slug}"${p.slug === project?.slug ? rawHtml(' aria-current="page"') : ''}>${p.title}</a></li>`,
  )
  const inbox = viewer
    ? html`<a href="/inbox" aria-describedby="inbox-count-text">Inbox<span aria-hidden="true" data-live="inbox-count"><span class="count"${viewer.inboxCount === 0 ? rawHtml(' data-zero') : ''}>${viewer.inboxCount}</span></span></a>
<span id="inbox-count-text" hidden data-live="inbox-count-text">${viewer.inboxCount === 1 ? '1 ticket waits for you' : `${viewer.inboxCount} tickets wait for you`}</span>`
    : ''
  const account = viewer
    ? html`${bell(viewer.unreadCount)}
${inbox}
<a href="/settings">Settings</a>
<details class="switcher person-menu"><summary class="who" title="Signed in as ${viewer.name}">${viewer.name}</summary>
<ul class="menu">${menuLinks(input.places, viewer.owner, 'tickets').map((l) => html`<li><a href="${l.href}">${l.label}</a></li>`)}
<li><form data-api="/logout" data-done="go"><button type="submit" class="quiet">Sign out</button></form></li></ul>
</details>`
    : html`<a class="button primary" href="${input.loginUrl}">Sign in</a>`
  const liveAttrs = live
    ? html` data-cursor="${String(live.cursor)}"${live.project ? html` data-project="${live.project}"` : ''}${live.ticket ? html` data-ticket="${live.ticket}"` : ''}${live.events ? html` data-events="${live.events.join(' ')}"` : ''}`
    : ''
  const head = html`<link rel="stylesheet" href="${input.assets.style}">
<link rel="icon" href="${FAVICON}">
${scriptTag(input.assets.script)}
${viewer ? html`<meta name="x-tag" content="${viewer.tag}">` : ''}`
  return htmlPage(
    { title: `${input.title} · Tickets`, head },
    html`<a class="skip" href="#main">Skip to content</a>
<header class="top">
<div class="top-inner">
<a class="brand" href="/">Tickets</a>
<nav aria-label="Projects">
<details class="switcher"><summary>${project ? project.title : 'Projects'}</summary>
<ul class="menu">${others.length ? others : html`<li class="muted small menu-note">No projects yet</li>`}<li><a href="/">All projects</a></li></ul>
</details>
</nav>
<form class="search" role="search" method="get" action="${searchAction}">
<label for="search" class="visually-hidden">Search tickets</label>
<input id="search" name="q" type="search" value="${input.q ?? ''}" placeholder="${project ? `Search ${project.title}` : 'Search tickets'}" data-shortcut="search" autocomplete="off">
</form>
<nav class="account" aria-label="Account">
${account}
</nav>
</div>
</header>
<div id="announce" class="visually-hidden" aria-live="polite"></div>
<main id="main" class="page"${liveAttrs}>
${viewer?.switchedFrom ? html`<div class="notice switched" role="alert"><p>${switchSentence(viewer.name, viewer.switchedFrom)} Not you?</p><form data-api="/logout" data-done="go"><button type="submit">Sign out</button></form></div>` : ''}
${input.body}
</main>
<footer class="foot"><span class="keys-hint">Press <kbd>?</kbd> for keyboard shortcuts. </span>The same data is in the <a href="/api/projects">JSON API</a>.</footer>
<dialog id="shortcuts" aria-labelledby="shortcuts-title">
<h2 id="shortcuts-title">Keyboard shortcuts</h2>
<dl>${SHORTCUTS.map((s) => html`<dt>${s.keys.split(' ').map((k, i) => html`${i ? ' then ' : ''}<kbd>${k}</kbd>`)}</dt><dd>${s.does}</dd>`)}
<dt><kbd>Ctrl</kbd> + <kbd>Enter</kbd></dt><dd>Send a comment or form</dd></dl>
<form method="dialog"><button type="submit">Close</button></form>
</dialog>`,
  )
}

/**
 * The bell (docs/notifications.md, "In the app"): a link named Notifications with the unread
 * count, redrawn live when the person's notifications change (`data-live`).
 */
function bell(unread: number): Html {
  return html`<a href="/notifications" class="bell" aria-describedby="bell-count-text"><svg class="bell-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 2.5a6.5 6.5 0 0 0-6.5 6.5v3.6L3.8 15.4a1 1 0 0 0 .9 1.6h14.6a1 1 0 0 0 .9-1.6l-1.7-2.8V9A6.5 6.5 0 0 0 12 2.5Zm-2.6 16a2.7 2.7 0 0 0 5.2 0Z"/></svg><span class="bell-label">Notifications</span><span aria-hidden="true" data-live="bell-count"><span class="count"${unread === 0 ? rawHtml(' data-zero') : ''}>${unread}</span></span></a>
<span id="bell-count-text" hidden data-live="bell-count-text">${unread === 1 ? '1 unread notification' : `${unread} unread notifications`}</span>`
}

/** A state as a coloured badge. */
export function stateBadge(state: string): Html {
  return html`<span class="state state-${state}">${state}</span>`
}

/** A time in words ("5 minutes ago") with the exact time on hover; the script keeps it fresh. */
export function timeAgo(ms: number, now: number): Html {
  return html`<time datetime="${isoTime(ms)}" title="${exactTime(ms)}" data-relative>${relativeTime(ms, now)}</time>`
}

/** A subject as inline Markdown without links (it sits inside a link or a heading). */
export function subjectHtml(subject: string): Html {
  return rawHtml(markdownSubject(subject))
}

/** The list of tickets, labelled "Tickets" unless told otherwise, or `empty` when there are none. */
export function ticketList(
  rows: readonly Row[],
  now: number,
  empty: HtmlValue,
  options: { showProject?: boolean; live?: string; label?: string; pick?: boolean } = {},
): Html {
  const live = options.live ?? 'tickets'
  if (rows.length === 0)
    return html`<div data-live="${live}"><div class="card empty">${empty}</div></div>`
  const showProject = options.showProject ?? false
  const pick = options.pick ?? false
  return html`<div data-live="${live}"><ul class="tickets${pick ? ' picking' : ''}" aria-label="${options.label ?? 'Tickets'}">
${rows.map((row) => ticketRow(row, now, showProject, pick))}
</ul></div>`
}

/** A ticket's row as the lists render it; with `pick`, a checkbox that selects it for a bulk change. */
function ticketRow(
  { ticket: t, blocked, labels }: Row,
  now: number,
  showProject: boolean,
  pick = false,
): Html {
  return html`<li data-key="${t.id}">
${pick ? html`<input type="checkbox" class="pick" data-pick value="${String(t.number)}" aria-label="Select ${t.ref}">` : ''}<a class="ref" href="/${t.slug}/${t.number}" tabindex="-1">${showProject ? t.ref : `#${t.number}`}</a>
<a class="subject" href="/${t.slug}/${t.number}">${subjectHtml(t.subject)}</a>
<span class="side">${stateBadge(t.state)}</span>
<span class="meta">${blocked ? html`<span class="blocked">blocked</span>` : ''}${labels.length > 0 ? html`<span class="label-chips">${labels.map((l) => labelChip(l.name, l.color))}</span>` : ''}${t.milestone ? html`<span class="milestone">${t.milestone}</span>` : ''}${t.due ? dueText(t.due, t.state, now) : ''}<span>${t.assignee ? html`assigned to ${t.assignee.name}` : 'unassigned'}</span><span>updated ${timeAgo(t.updated, now)}</span></span>
</li>`
}

/** A labelled field with a place for its error. */
export function field(input: {
  id: string
  label: string
  hint?: string
  control: Html
  name: string
}): Html {
  return html`<div class="field">
<label for="${input.id}">${input.label}</label>${input.hint ? html`<span class="hint" id="${input.id}-hint">${input.hint}</span>` : ''}
${input.control}
<p class="field-error" data-error-for="${input.name}" id="${input.id}-error" hidden></p>
</div>`
}

/**
 * What the search accepts (src/tickets/rules/query.ts), beside a list's search: open when `refusal`
 * says why the search was refused, which then stands in place of the list.
 */
export function searchHelp(refusal: string | null): Html {
  return html`${refusal ? html`<p class="notice" role="alert">${sentenceOf(refusal)}</p>` : ''}
<details class="search-help"${refusal ? html` open` : ''}><summary>Search help</summary>
<p class="small">Terms are separated by spaces and must all hold; type them in the search box at the top.</p>
<dl class="small">${SEARCH_HELP.map(([term, meaning]) => html`<dt>${term.split(', ').map((t, i) => html`${i ? ', ' : ''}<code>${t}</code>`)}</dt><dd>${meaning}</dd>`)}</dl>
</details>`
}

/** A message as a sentence: capital first letter, a full stop. */
export function sentenceOf(text: string): string {
  const t = text.trim()
  if (t === '') return t
  const first = t[0]!.toUpperCase() + t.slice(1)
  return /[.!?]$/.test(first) ? first : `${first}.`
}

/** The error line of a whole form. */
export const formError = html`<p class="form-error" data-error role="alert" hidden></p>`

/**
 * A text box for Markdown with a Preview toggle. `notBlank`: the message the page shows at the field, without sending, when it holds only white space.
 * `attach`: files may be attached to the text (dragged in, pasted, or chosen with Attach files),
 * uploaded to the project's files and linked at the cursor (src/tickets/app/attach.ts).
 */
export function markdownField(input: {
  id: string
  name: string
  label: string
  value?: string
  placeholder?: string
  required?: boolean
  rows?: number
  notBlank?: string
  max?: number
  what?: string
  attach?: Attach
}): Html {
  return html`<div class="field compose"${input.attach ? html` data-attach-to="${input.id}" data-attach-api="/api/projects/${input.attach.slug}/files" data-attach-max="${String(input.attach.maxMb)}"` : ''}>
<div class="tabbar"><label for="${input.id}">${input.label}</label><button type="button" class="quiet" data-preview-for="${input.id}" aria-pressed="false" aria-controls="${input.id}-preview">Preview</button></div>
<textarea id="${input.id}" name="${input.name}" rows="${String(input.rows ?? 6)}" placeholder="${input.placeholder ?? ''}"${input.required ? rawHtml(' required') : ''}${input.notBlank ? html` aria-required="true" data-not-blank="${input.notBlank}"` : ''}${input.max ? html` data-max="${String(input.max)}" data-what="${input.what ?? input.label.toLowerCase()}"` : ''}>${input.value ?? ''}</textarea>
<div class="preview markdown" id="${input.id}-preview" data-preview="${input.id}" hidden></div>
${input.attach ? attachControls(input.id, input.attach) : ''}<p class="hint">Markdown: <code>**bold**</code>, <code>\`code\`</code>, <code>- lists</code>, links.${input.attach ? ' Drag files in or paste an image.' : ''}</p>
<p class="field-error" data-error-for="${input.name}" hidden></p>
</div>`
}

/** Where a text's attachments go: the project's slug, and the largest file (`UPLOAD_MAX_MB`). */
export interface Attach {
  slug: string
  maxMb: number
}

/**
 * Attach files, the limit beside it, the hidden file chooser it opens and the list of uploads
 * under way (each with its progress and Cancel, drawn by the script). Without the script the
 * button does nothing and the page works as before.
 */
function attachControls(id: string, attach: Attach): Html {
  return html`<div class="attach">
<button type="button" class="quiet" data-attach-button="${id}" aria-describedby="${id}-attach-limit">Attach files</button>
<span class="muted small" id="${id}-attach-limit">up to ${String(attach.maxMb)} MB a file</span>
<input type="file" multiple hidden data-attach-input="${id}" tabindex="-1" aria-hidden="true">
</div>
<ul class="uploads" data-uploads="${id}" aria-label="Uploads" aria-live="polite"></ul>
`
}

/**
 * The module script element. The template takes nothing inside `<script`, not even an attribute;
 * the address is the program's own (a hashed asset name), escaped all the same.
 */
function scriptTag(src: string): Html {
  return rawHtml(`<script type="module" src="${escapeHtml(src)}"></script>`)
}
