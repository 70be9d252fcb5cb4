/**
 * The project page `/<slug>`: state tabs with counts, the search (in the bar on top, scoped to
 * the project), sorting, pages of 50, "New ticket" for members, and the list of tickets.
 */
import { SUBJECT_BLANK, youJoined } from '../text/page-words.ts'
import { html, rawHtml, type Html } from '../../http/html.ts'
import { SUBJECT_MAX, SUMMARY_MAX } from '../rules/lengths.ts'
import { markdownToHtml } from '../app/markdown-html.ts'
import type { Project } from '../store/projects.ts'
import { withSort, type Sort } from '../rules/query.ts'
import { formError, field, markdownField, searchHelp, ticketList } from './frame.ts'
import { PAGE_SIZE, type TicketList, type Viewer } from './page-data.ts'
import type { Member } from '../store/projects.ts'
import { mayAct, type Role } from '../rules/roles.ts'
import { ADMIN } from '../domain/projects.ts'
import { EDIT } from '../domain/tickets.ts'
import type { StoredLabel } from '../store/labels.ts'
import { labelPickerInput } from './organise-parts.ts'
import { bulkBar, viewsAside } from './views-aside.ts'
import type { ViewShown } from './page-data.ts'

/** The state tabs: the default (open, doing, review), each state, and all. */
export const TABS = [
  { state: '', label: 'Active', states: ['open', 'doing', 'review'] },
  { state: 'open', label: 'Open', states: ['open'] },
  { state: 'doing', label: 'Doing', states: ['doing'] },
  { state: 'review', label: 'Review', states: ['review'] },
  { state: 'done', label: 'Done', states: ['done'] },
  { state: 'dropped', label: 'Dropped', states: ['dropped'] },
  { state: 'all', label: 'All', states: ['open', 'doing', 'review', 'done', 'dropped'] },
] as const

const SORT_LABELS: [Sort, string][] = [
  ['created-desc', 'Newest'],
  ['created-asc', 'Oldest'],
  ['updated-desc', 'Recently updated'],
  ['updated-asc', 'Least recently updated'],
  ['due', 'Due soonest'],
]

export interface ProjectPageInput {
  project: Project
  viewer: Viewer | null
  role: Role | null
  /** Whether the signed-in viewer watches every ticket of the project (docs/notifications.md). */
  watchingAll?: boolean
  /** The person has just joined through an invite: the page welcomes them. */
  joined?: boolean
  list: TicketList | null
  /** The search as typed, and its refusal when it did not parse. */
  q: string
  queryError: string | null
  /** The tab's state parameter ('' for the default). */
  state: string
  sort: Sort | null
  page: number
  members: readonly Member[]
  loginUrl: string
  now: number
  /** `UPLOAD_MAX_MB`, shown beside Attach files. */
  uploadMaxMb: number
  /** The project's labels, for the new ticket's label picker (members only). */
  labels: readonly StoredLabel[]
  /** The saved views beside the list, with their counts. */
  views: readonly ViewShown[]
  /**
   * What the bulk bar changes: the search with its tab's states, and how many it finds (null
   * when the list has more pages: the bar asks when a person ticks a whole page); null for no bar.
   */
  bulk: {
    q: string
    matching: { count: number; more: boolean } | null
    labels: readonly string[]
    milestones: readonly string[]
  } | null
}

/** The address of this list with some parameters changed. */
function listUrl(slug: string, params: { q?: string; state?: string; page?: number }): string {
  const query = new URLSearchParams()
  if (params.state) query.set('state', params.state)
  if (params.q) query.set('q', params.q)
  if (params.page && params.page > 1) query.set('page', String(params.page))
  const text = query.toString()
  return text ? `/${slug}?${text}` : `/${slug}`
}

export function projectBody(input: ProjectPageInput): Html {
  const { project: p, list, q, state, page } = input
  const counts = list?.counts
  const tabs = TABS.map((tab) => {
    const n = counts ? tab.states.reduce((sum, s) => sum + counts[s], 0) : null
    return html`<a href="${listUrl(p.slug, { q, state: tab.state })}"${tab.state === state ? html` aria-current="page"` : ''}>${tab.label}${n === null ? '' : html`<span class="n">${n}</span>`}</a>`
  })
  const sorts = SORT_LABELS.map(([sort, label]) => {
    const current = (input.sort ?? 'created-desc') === sort
    return html`<a href="${listUrl(p.slug, { q: withSort(q, sort === 'created-desc' ? null : sort), state })}"${current ? html` aria-current="true"` : ''}>${label}</a>`
  })
  const total = list?.total ?? 0
  // A search counts up to a cap: past it the number of pages is not known, only whether one follows.
  const more = list?.more ?? false
  const pages = more ? null : Math.max(1, Math.ceil(total / PAGE_SIZE))
  const hasNext = list?.hasNext ?? false
  const first = total === 0 ? 0 : (page - 1) * PAGE_SIZE + 1
  const last = more
    ? (page - 1) * PAGE_SIZE + (list?.rows.length ?? 0)
    : Math.min(total, page * PAGE_SIZE)
  const of = more ? `more than ${counted(last)}` : counted(total)
  const empty = q
    ? html`<h2>No tickets match</h2><p>Nothing in ${p.title} matches <code>${q}</code> here. Try another tab, fewer words, or <a href="${listUrl(p.slug, { state })}">clear the search</a>.</p>`
    : state === '' && total === 0 && counts && Object.values(counts).every((n) => n === 0)
      ? html`<h2>No tickets yet</h2><p>${input.role ? 'Write the first one with “New ticket”.' : 'When members write tickets, they appear here.'}</p>`
      : html`<h2>Nothing here</h2><p>No ticket is in this state. <a href="${listUrl(p.slug, { state: 'all' })}">See all tickets</a>.</p>`
  return html`<div class="page-head">
<div><h1>${p.title}</h1>${p.description.trim() ? html`<div class="muted markdown description">${rawHtml(markdownToHtml(p.description))}</div>` : ''}</div>
<div class="actions">${watchAll(input)}<a class="button" href="${boardUrl(p.slug, q)}">Board</a><a class="button" href="/${p.slug}/milestones">Milestones</a>${mayAct(input.role, ADMIN) ? html`<a class="button" href="/${p.slug}/settings">Project settings</a>` : ''}</div>
</div>
${input.joined && input.role ? html`<p class="notice welcome" role="status">${youJoined(p.title, input.role)}</p>` : ''}
${newTicket(input)}
<div class="with-views">
<div class="list-column">
<nav class="tabs" aria-label="States" data-live="tabs">${tabs}</nav>
${
  input.queryError
    ? searchHelp(input.queryError)
    : html`<div class="tools">
<span data-live="range">${total === 0 ? 'No tickets' : html`${counted(first)}–${counted(last)} of ${of}`}${q ? html` matching <code>${q}</code>` : ''}</span>
<span class="sorts"><span>Sort:</span> ${sorts}</span>
</div>
${input.bulk && list && list.rows.length > 0 ? html`<div data-live="bulk">${bulkBar({ slug: p.slug, ...input.bulk, role: input.role, members: input.members })}</div>` : ''}
${list ? ticketList(list.rows, input.now, empty, { pick: input.bulk !== null && mayAct(input.role, 'use') }) : ''}
${searchHelp(null)}`
}
<div data-live="pager">${
    (page > 1 || hasNext) && !input.queryError
      ? html`<nav class="pager" aria-label="Pages">
${page > 1 ? html`<a href="${listUrl(p.slug, { q, state, page: page - 1 })}" rel="prev">← Previous</a>` : html`<span></span>`}
<span>${pages === null ? `Page ${page}` : `Page ${page} of ${pages}`}</span>
${hasNext ? html`<a href="${listUrl(p.slug, { q, state, page: page + 1 })}" rel="next">Next →</a>` : html`<span></span>`}
</nav>`
      : ''
  }</div>
</div>
${viewsAside({ slug: p.slug, views: input.views, q, signedIn: input.viewer !== null, role: input.role })}
</div>`
}

/**
 * The search `q` with the states of the tab it is shown on, when it names none itself: what the
 * list shows as one search (the default tab's states are the API's default).
 */
export function withTabStates(
  q: string,
  query: { states: readonly string[] | null },
  tab: readonly string[] | null,
): string {
  if (query.states !== null || tab === null) return q
  return `${q} state:${tab.join(',')}`.trim()
}

/** The board of a search of the project. */
export function boardUrl(slug: string, q: string): string {
  return q === '' ? `/${slug}/board` : `/${slug}/board?q=${encodeURIComponent(q)}`
}

/** A count as the pages write it: 1,000 and 200,025. */
export function counted(n: number): string {
  return n.toLocaleString('en-US')
}

function newTicket(input: ProjectPageInput): Html {
  const { project: p } = input
  if (!input.viewer)
    return html`<p class="notice"><a href="${input.loginUrl}">Sign in</a> to write a ticket.</p>`
  if (!input.role)
    return html`<p class="notice">You are not a member of ${p.title}, so you can read its tickets but not write them. An admin of the project can invite you.</p>`
  return html`<details class="panel" id="new-ticket-panel">
<summary class="button primary">New ticket</summary>
<div class="card">
<form data-api="/api/projects/${p.slug}/tickets" data-done="go">
${field({ id: 'ticket-subject', name: 'subject', label: 'Subject', control: html`<input id="ticket-subject" name="subject" type="text" data-max="${String(SUBJECT_MAX)}" data-what="the subject" aria-required="true" data-not-blank="${SUBJECT_BLANK}" autocomplete="off" data-shortcut="new-ticket">` })}
${markdownField({ id: 'ticket-summary', name: 'summary', label: 'Summary', placeholder: 'What happens, what should happen, how to see it', max: SUMMARY_MAX, what: 'the summary', attach: { slug: p.slug, maxMb: input.uploadMaxMb } })}
${field({ id: 'ticket-assignee', name: 'assignee', label: 'Assignee', control: assigneeSelect('ticket-assignee', input.members, null) })}
${mayAct(input.role, EDIT) ? newTicketLabels(input) : ''}
${formError}
<div class="actions"><button type="submit" class="primary">New ticket</button><span class="muted small keys-hint"><kbd>Ctrl</kbd> + <kbd>Enter</kbd> in the summary sends</span></div>
</form>
</div>
</details>`
}

/**
 * The new ticket's labels: a picker whose choices gather as chips; they are given to the ticket
 * once it is made (a new ticket's body takes no labels), src/tickets/app/label-picker.ts.
 */
function newTicketLabels(input: ProjectPageInput): Html {
  return html`<div class="field"><label for="new-ticket-labels">Labels</label>
<ul class="label-list" data-label-chosen aria-label="Chosen labels"></ul>
<div class="inline">${labelPickerInput({ id: 'new-ticket-labels', name: null, slug: input.project.slug, labels: input.labels, mayCreate: mayAct(input.role, ADMIN), taken: [] })}</div>
<p class="field-error" data-error-for="labels" hidden></p></div>`
}

/** The members to pick from, and "Nobody". */
export function assigneeSelect(
  id: string,
  members: readonly Member[],
  current: string | null,
  applies = false,
): Html {
  return html`<select id="${id}" name="assignee"${applies ? html` data-submit` : ''}>
<option value=""${current === null ? html` selected` : ''}>Nobody</option>
${members.map((m) => html`<option value="${m.user.id}"${m.user.id === current ? html` selected` : ''}>${m.user.name}</option>`)}
</select>`
}

/**
 * Watch all (docs/notifications.md, "Watching"): the signed-in person watches every ticket of the
 * project, new ones too. A toggle button: pressed while they do.
 */
function watchAll(input: ProjectPageInput): Html {
  if (!input.viewer || !input.role) return html``
  const on = input.watchingAll === true
  return html`<form data-api="/api/projects/${input.project.slug}/watch" data-done="reload" data-live="watch-all" class="watch-all"><button type="submit" name="all" value="${on ? 'false' : 'true'}" aria-pressed="${on ? 'true' : 'false'}" title="${on ? 'You are told of every change of every ticket here; press to stop' : 'Be told of every change of every ticket here'}">Watch all</button>${formError}</form>`
}
