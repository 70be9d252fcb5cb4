/**
 * The ticket page `/<slug>/<number>`: subject and summary as Markdown, the state control, the
 * assignee picker, editing, parent and blocked-by with add and remove, children and the tickets
 * it blocks, the history in words with relative times, and the comment box with its preview.
 * Controls follow the viewer's role: `use` members may comment and change the state, `edit` and
 * `admin` also assign, edit and relate; others see no control at all.
 */
import { COMMENT_BLANK, SUBJECT_BLANK } from '../text/page-words.ts'
import { html, rawHtml, type Html } from '../../http/html.ts'
import { COMMENT_MAX, SUBJECT_MAX, SUMMARY_MAX } from '../rules/lengths.ts'
import { markdownToHtml } from '../app/markdown-html.ts'
import { eventWords } from '../text/history-words.ts'
import { lineParts } from '../text/text-diff.ts'
import { STATES } from '../rules/states.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import type { Ticket } from '../store/ticket-row.ts'
import { field, formError, markdownField, stateBadge, subjectHtml, timeAgo } from './frame.ts'
import type { Row, TicketDetail, Viewer } from './page-data.ts'
import { assigneeSelect } from './project-page.ts'
import { filePath, formatSize } from '../rules/files.ts'
import type { StoredFile } from '../store/files.ts'
import { mayAct, type Role } from '../rules/roles.ts'
import { EDIT } from '../domain/tickets.ts'
import { dueBox, labelsBox, milestoneBox } from './organise-parts.ts'
import { colorsOf, dueText, labelChip } from './chips.ts'

export interface TicketPageInput {
  ticket: Ticket
  /** The ticket's `ETag` (its JSON answer's), the version the edit form starts from. */
  etag: string
  projectTitle: string
  detail: TicketDetail
  viewer: Viewer | null
  role: Role | null
  loginUrl: string
  now: number
  /** `UPLOAD_MAX_MB`, shown beside Attach files. */
  uploadMaxMb: number
  /** Whether the signed-in viewer watches the ticket (docs/notifications.md); false when signed out. */
  watching: boolean
}

const mayEdit = (role: Role | null) => mayAct(role, EDIT)

export function ticketBody(input: TicketPageInput): Html {
  const { ticket: t, detail, role, now } = input
  const api = `/api/projects/${t.slug}/tickets/${t.number}`
  return html`<p class="crumbs"><a href="/${t.slug}">${input.projectTitle}</a> / #${t.number}</p>
<div data-live="head">
<h1 class="ticket-title"><span>${subjectHtml(t.subject)}</span> <span class="ref">${t.ref}</span></h1>
<p class="byline"><span class="in-details">${stateBadge(t.state)}</span><span>opened by ${t.author?.name ?? 'someone'} ${timeAgo(t.created, now)}</span><span class="in-details">·</span><span class="in-details">${t.assignee ? html`assigned to <b>${t.assignee.name}</b>` : 'unassigned'}</span>${detail.blockers.some((b) => !['done', 'dropped'].includes(b.ticket.state)) ? html`<span class="blocked in-details">blocked</span>` : ''}</p>
</div>
<div class="columns">
<details class="side-details">
<summary><span class="visually-hidden">Ticket details: </span><span data-live="side-summary">${sideSummary(t, detail, role, now)}</span></summary>
<aside aria-label="Ticket details">
${stateBox(t, role, api)}
${assigneeBox(t, detail, role, api)}
${labelsBox({ t, api, labels: detail.labels, mayEdit: mayEdit(role), mayCreate: mayAct(role, 'admin') })}
${milestoneBox({ t, api, milestones: detail.milestones, mayEdit: mayEdit(role) })}
${dueBox({ t, api, mayEdit: mayEdit(role), now })}
${parentBox(t, role, api)}
${blockersBox(t, detail.blockers, role, api)}
${relatedBox('Children', 'children', detail.children)}
${relatedBox('Blocks', 'blocks', detail.blocks)}
${filesBox(detail.files, now)}
${watchBox(input, api)}
</aside>
</details>
<div class="ticket-main">
<div class="card summary markdown" data-live="summary">${t.summary.trim() ? rawHtml(markdownToHtml(t.summary)) : html`<p class="muted">No summary.</p>`}</div>
${mayEdit(role) ? editForm(t, input.etag, api, input.uploadMaxMb) : ''}
<h2 id="history-title">History</h2>
<ol class="history" aria-labelledby="history-title" aria-label="History" data-live="history">
<li data-key="opened"><span class="avatar" aria-hidden="true">${initial(t.author?.name ?? '?')}</span><div class="what"><b>${t.author?.name ?? 'someone'}</b> opened this ticket · ${timeAgo(t.created, now)}</div></li>
${detail.events.map((e) => historyItem(e, now))}
</ol>
${commentBox(input, api)}
</div>
</div>`
}

/**
 * The one line that stands for the ticket's details on a narrow screen, where they sit under the
 * title and open from it: state, assignee, parent and blockers.
 */
function sideSummary(t: Ticket, detail: TicketDetail, role: Role | null, now: number): Html {
  const parts = [
    html`${stateBadge(t.state)}`,
    html`<span>${t.assignee ? t.assignee.name : 'unassigned'}</span>`,
  ]
  const colors = colorsOf(detail.labels)
  for (const name of t.labels) parts.push(labelChip(name, colors.get(name.toLowerCase())))
  if (t.milestone) parts.push(html`<span>${t.milestone}</span>`)
  if (t.due) parts.push(dueText(t.due, t.state, now))
  if (t.parent) parts.push(html`<span>parent ${t.parent.ref}</span>`)
  if (detail.blockers.length)
    parts.push(
      html`<span>blocked by ${detail.blockers.length === 1 ? detail.blockers[0]!.ticket.ref : `${detail.blockers.length} tickets`}</span>`,
    )
  if (detail.files.length)
    parts.push(
      html`<span>${detail.files.length === 1 ? '1 file' : `${detail.files.length} files`}</span>`,
    )
  return html`${parts.map((p, i) => html`${i ? html`<span aria-hidden="true"> · </span>` : ''}${p}`)}<span class="side-open">${role ? 'Change' : 'Details'}</span>`
}

function initial(name: string): string {
  return [...name.trim()][0] ?? '?'
}

function historyItem(e: TicketEvent, now: number): Html {
  const { words, ref } = eventWords(e)
  const text =
    typeof e.text === 'string' &&
    e.text.trim() !== '' &&
    (e.kind === 'comment' || e.kind === 'state')
      ? e.text
      : null
  const refLink = ref === null ? '' : html` ${refLinkHtml(ref)}`
  return html`<li data-key="e${String(e.id)}" id="event-${String(e.id)}"><span class="avatar" aria-hidden="true">${initial(e.by)}</span>
<div class="what"><b>${e.by}</b>${e.app ? html` <span class="pill">via ${e.app}</span>` : ''} ${words}${refLink} · ${timeAgo(e.created, now)}</div>
${text === null ? '' : html`<div class="bubble markdown">${rawHtml(markdownToHtml(text))}</div>`}
${e.kind === 'edit' ? editChanges(e) : ''}
</li>`
}

/** What an edit changed, on demand: the old and new subject, the summary's lines removed and added. */
function editChanges(e: TicketEvent): Html {
  const change = (field: string) => {
    const c = e[field] as { from?: unknown; to?: unknown } | undefined
    return c && typeof c.from === 'string' && typeof c.to === 'string'
      ? { from: c.from, to: c.to }
      : null
  }
  const subject = change('subject')
  const summary = change('summary')
  if (!subject && !summary) return html``
  return html`<details class="changes"><summary>Show changes</summary>
${subject ? html`<p class="subject-change"><span class="muted">Subject:</span> <del>${subject.from}</del> <ins>${subject.to}</ins></p>` : ''}
${summary ? html`<pre class="diff" aria-label="Summary changes">${lineParts(summary.from, summary.to).map((p) => (p.kind === 'added' ? html`<ins>${p.text}</ins>` : p.kind === 'removed' ? html`<del>${p.text}</del>` : html`<span>${p.text}</span>`))}</pre>` : ''}
</details>`
}

/** `web#12` as a link to its page. */
function refLinkHtml(ref: string): Html {
  const m = /^([a-z0-9-]+)#(\d+)$/.exec(ref)
  return m ? html`<a href="/${m[1]}/${m[2]}">${ref}</a>` : html`${ref}`
}

function commentBox(input: TicketPageInput, api: string): Html {
  if (!input.viewer)
    return html`<p class="notice"><a href="${input.loginUrl}">Sign in</a> to comment.</p>`
  if (!input.role)
    return html`<p class="notice">Only members of this project can comment. An admin of the project can invite you.</p>`
  return html`<form class="card" data-api="${api}/comments" data-done="reset">
${markdownField({ id: 'comment-text', name: 'text', label: 'Comment', placeholder: 'Write a comment', rows: 4, notBlank: COMMENT_BLANK, max: COMMENT_MAX, what: 'the comment', attach: { slug: input.ticket.slug, maxMb: input.uploadMaxMb } })}
${formError}
<div class="actions"><button type="submit" class="primary">Comment</button><span class="muted small keys-hint"><kbd>Ctrl</kbd> + <kbd>Enter</kbd> sends</span></div>
</form>`
}

/**
 * The edit form carries the version it started from (`data-if-match`); a save on an older
 * version is refused (412) and the script fills the conflict part: both texts side by side,
 * "Keep mine", "Keep theirs" and an editable merge (src/tickets/app/edit-conflict.ts).
 */
function editForm(t: Ticket, etag: string, api: string, uploadMaxMb: number): Html {
  return html`<details class="panel" data-live="edit"><summary class="button">Edit</summary>
<form class="card" data-api="${api}/edit" data-read="${api}" data-if-match="${etag}" data-done="reload" aria-label="Edit ticket">
${field({ id: 'edit-subject', name: 'subject', label: 'Subject', control: html`<input id="edit-subject" name="subject" type="text" data-max="${String(SUBJECT_MAX)}" data-what="the subject" value="${t.subject}" aria-required="true" data-not-blank="${SUBJECT_BLANK}">` })}
${markdownField({ id: 'edit-summary', name: 'summary', label: 'Summary', value: t.summary, rows: 8, max: SUMMARY_MAX, what: 'the summary', attach: { slug: t.slug, maxMb: uploadMaxMb } })}
<section class="conflict" data-conflict hidden aria-labelledby="conflict-title">
<h3 id="conflict-title">Someone else saved this ticket while you were editing</h3>
<p>Nothing is lost: their version is saved, yours is below. Keep one, or edit the merge and save it.</p>
<div class="side-by-side">
<section aria-labelledby="theirs-title"><h4 id="theirs-title">Theirs<span data-theirs-by></span></h4><p class="conflict-subject" data-theirs-subject></p><pre class="conflict-text" data-theirs-summary></pre></section>
<section aria-labelledby="mine-title"><h4 id="mine-title">Yours</h4><p class="conflict-subject" data-mine-subject></p><pre class="conflict-text" data-mine-summary></pre></section>
</div>
<div class="field"><label for="edit-merge">Merged summary</label><p class="hint" id="edit-merge-hint">Both versions' lines, theirs first where they differ. The subject is the one in the Subject field above.</p><textarea id="edit-merge" rows="8" aria-describedby="edit-merge-hint"></textarea></div>
<div class="actions"><button type="button" data-resolve="mine">Keep mine</button><button type="button" data-resolve="theirs">Keep theirs</button><button type="button" class="primary" data-resolve="merge">Save merge</button></div>
</section>
${formError}
<button type="submit" class="primary" data-edit-save>Save</button>
</form></details>`
}

function stateBox(t: Ticket, role: Role | null, api: string): Html {
  const control = role
    ? html`<form data-api="${api}/state" data-read="${api}" data-done="applied">
<label for="state-select" class="visually-hidden">State</label>
<select id="state-select" name="state" data-submit>${STATES.map((s) => html`<option value="${s}"${s === t.state ? html` selected` : ''}>${s}</option>`)}</select>
<p class="field-error" data-error-for="state" hidden></p>${formError}
</form>`
    : stateBadge(t.state)
  return html`<section class="side-box" data-live="state-box"><h2 id="state-title">State</h2>${control}</section>`
}

function assigneeBox(t: Ticket, detail: TicketDetail, role: Role | null, api: string): Html {
  const control = mayEdit(role)
    ? html`<form data-api="${api}/assign" data-read="${api}" data-done="applied">
<label for="assignee-select" class="visually-hidden">Assignee</label>
${assigneeSelect('assignee-select', detail.members, t.assignee?.id ?? null, true)}
<p class="field-error" data-error-for="assignee" hidden></p>${formError}
</form>`
    : html`<p>${t.assignee ? t.assignee.name : html`<span class="muted">Nobody</span>`}</p>`
  return html`<section class="side-box" data-live="assignee-box"><h2 id="assignee-title">Assignee</h2>${control}</section>`
}

function parentBox(t: Ticket, role: Role | null, api: string): Html {
  const current = t.parent
    ? html`<ul><li>${refLinkHtml(t.parent.ref)}${mayEdit(role) ? html`<form data-api="${api}/parent" data-done="reload"><button type="submit" class="link" name="parent" value="" aria-label="Remove parent ${t.parent.ref}">Remove</button></form>` : ''}</li></ul>`
    : html`<p class="muted">None</p>`
  const form = mayEdit(role)
    ? html`<form data-api="${api}/parent" data-done="reload">
<label for="parent-input" class="visually-hidden">Parent</label>
<div class="inline">${pickerInput({ id: 'parent-input', name: 'parent', t })}<button type="submit">Save</button></div>
<p class="field-error" data-error-for="parent" hidden></p>${formError}
</form>`
    : ''
  return html`<section class="side-box" data-live="parent-box"><h2 id="parent-title">Parent</h2>${current}${form}</section>`
}

/** A relation's field: a combobox suggesting this project's tickets (src/tickets/app/ticket-picker.ts). */
function pickerInput(input: { id: string; name: string; t: Ticket }): Html {
  const { id, t } = input
  return html`<div class="picker"><input id="${id}" name="${input.name}" type="text" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="${id}-options" data-picker-search="/api/projects/${t.slug}/tickets" data-picker-self="${t.ref}" placeholder="12, ${t.slug}#12 or words" autocomplete="off" required>
<ul id="${id}-options" role="listbox" aria-label="Matching tickets" class="picker-list" hidden></ul></div>`
}

function blockersBox(t: Ticket, blockers: readonly Row[], role: Role | null, api: string): Html {
  const items = blockers.map(
    ({ ticket: b }) =>
      html`<li>${refLinkHtml(b.ref)} ${stateBadge(b.state)}${mayEdit(role) ? html`<form data-api="${api}/blocked-by" data-done="reload"><button type="submit" class="link" name="remove" value="${b.ref}" aria-label="Remove blocker ${b.ref}">Remove</button></form>` : ''}</li>`,
  )
  const form = mayEdit(role)
    ? html`<form data-api="${api}/blocked-by" data-done="reload">
<label for="blocker-input" class="visually-hidden">Blocked by</label>
<div class="inline">${pickerInput({ id: 'blocker-input', name: 'add', t })}<button type="submit">Add</button></div>
<p class="field-error" data-error-for="add" hidden></p><p class="field-error" data-error-for="remove" hidden></p>${formError}
</form>`
    : ''
  return html`<section class="side-box" data-live="blockers-box"><h2 id="blockers-title">Blocked by</h2>${items.length ? html`<ul>${items}</ul>` : html`<p class="muted">Nothing</p>`}${form}</section>`
}

function relatedBox(title: string, id: string, rows: readonly Row[]): Html {
  if (rows.length === 0) return html``
  return html`<section class="side-box" data-live="${id}-box"><h2 id="${id}-title">${title}</h2>
<ul>${rows.map(({ ticket: r }) => html`<li><span>${refLinkHtml(r.ref)} ${subjectHtml(r.subject)}</span>${stateBadge(r.state)}</li>`)}</ul></section>`
}

/**
 * The files the ticket's text and history link to: name, size, who uploaded it and when. Always
 * drawn, empty without files, so that a redraw brings the first one in.
 */
function filesBox(files: readonly StoredFile[], now: number): Html {
  return html`<div data-live="files-box">${
    files.length === 0
      ? ''
      : html`<section class="side-box" aria-labelledby="files-title"><h2 id="files-title">Files</h2>
<ul class="files">${files.map((f) => html`<li><a href="${filePath(f.id, f.name)}"${f.image === null ? html` download` : ''}>${f.name}</a><span class="muted small">${formatSize(f.size)} · ${f.by}${f.app ? ` via ${f.app}` : ''} · ${timeAgo(f.created, now)}</span></li>`)}</ul></section>`
  }</div>`
}

/**
 * Watch or Unwatch (docs/notifications.md, "Watching"): a watcher is told of every change of the
 * ticket. Signed-in people only.
 */
function watchBox(input: TicketPageInput, api: string): Html {
  if (!input.viewer) return html``
  const { watching } = input
  return html`<section class="side-box" data-live="watch-box" aria-labelledby="watch-title"><h2 id="watch-title">Notifications</h2>
<p class="small muted">${watching ? 'You watch this ticket: you are told of every change.' : 'You are told only when you are assigned or mentioned.'}</p>
<form data-api="${api}/watch" data-done="reload"><button type="submit" name="watching" value="${watching ? 'false' : 'true'}">${watching ? 'Unwatch' : 'Watch'}</button>${formError}</form>
</section>`
}
