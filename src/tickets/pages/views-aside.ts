/**
 * Beside a project's list: its saved views (the person's own and the project's shared ones) with
 * how many tickets each lists now, **Save this search**, and the bulk change bar the list's
 * checkboxes fill (docs/tickets-app.md, "Saved views", "Bulk changes"). Writes go through the
 * JSON API: the save form as every form does (src/tickets/app/form.ts), the bulk bar by
 * src/tickets/app/bulk.ts.
 */
import { html, type Html } from '../../http/html.ts'
import { STATES } from '../rules/states.ts'
import { mayAct, type Role } from '../rules/roles.ts'
import type { Member } from '../store/projects.ts'
import type { ViewCount } from '../store/views.ts'
import { EDIT, USE } from '../domain/tickets.ts'
import { VIEW_NAME_MAX } from '../domain/views.ts'
import { field, formError } from './frame.ts'
import { selectAllWords } from '../text/page-words.ts'
import type { ViewShown } from './page-data.ts'

/** A count as a view shows it: "12", "1,000+", or "–" for a search that no longer parses. */
export function countWords(count: ViewCount | null): string {
  if (count === null) return '–'
  return `${count.count.toLocaleString('en-US')}${count.more ? '+' : ''}`
}

/** The address of a view's list. */
function viewUrl(slug: string, q: string): string {
  return q === '' ? `/${slug}` : `/${slug}?q=${encodeURIComponent(q)}`
}

function viewList(
  slug: string,
  views: readonly ViewShown[],
  current: string,
  heading: string,
  manage: boolean,
): Html {
  if (views.length === 0) return html``
  return html`<h3>${heading}</h3>
<ul class="views">${views.map(({ view, count }) => {
    const here = view.q === current
    return html`<li data-key="view-${view.id}"><a href="${viewUrl(slug, view.q)}"${here ? html` aria-current="page"` : ''}><span class="name">${view.name}</span> <span class="n">${countWords(count)}<span class="visually-hidden"> tickets</span></span></a>${
      manage
        ? html`<details class="panel view-tools"><summary aria-label="Change ${view.name}"><span aria-hidden="true">…</span></summary>
<form data-api="/api/projects/${slug}/views/${view.id}" data-done="reload">
${field({ id: `view-name-${view.id}`, name: 'name', label: 'Name', control: html`<input id="view-name-${view.id}" name="name" type="text" value="${view.name}" maxlength="${String(VIEW_NAME_MAX)}" autocomplete="off">` })}
${formError}
<div class="actions"><button type="submit">Rename</button></div>
</form>
<form data-api="/api/projects/${slug}/views/${view.id}/remove" data-done="reset"><button type="submit" class="quiet" data-confirm="Remove the view ${view.name}?">Remove ${view.name}</button></form>
</details>`
        : ''
    }</li>`
  })}</ul>`
}

/** The views beside the list and, for a signed-in person, Save this search. */
export function viewsAside(input: {
  slug: string
  views: readonly ViewShown[]
  /** The search shown now, as typed. */
  q: string
  signedIn: boolean
  role: Role | null
}): Html {
  const { slug, views, q } = input
  const own = views.filter((v) => !v.view.shared)
  const shared = views.filter((v) => v.view.shared)
  const editor = mayAct(input.role, EDIT)
  const save = input.signedIn
    ? html`<details class="panel save-view"><summary class="button">Save this search</summary>
<form data-api="/api/projects/${slug}/views" data-done="reload">
<input type="hidden" name="q" value="${q}">
${field({ id: 'view-name', name: 'name', label: 'View name', hint: q === '' ? 'The list as it is, without a search.' : `Saves “${q}”.`, control: html`<input id="view-name" name="name" type="text" maxlength="${String(VIEW_NAME_MAX)}" aria-required="true" data-not-blank="Give the view a name." autocomplete="off">` })}
${editor ? field({ id: 'view-scope', name: 'scope', label: 'Who sees it', control: html`<select id="view-scope" name="scope"><option value="mine" selected>Only me</option><option value="shared">Everyone in the project</option></select>` }) : ''}
${formError}
<div class="actions"><button type="submit" class="primary">Save view</button></div>
</form>
</details>`
    : ''
  return html`<aside class="views-aside" aria-labelledby="views-title">
<h2 id="views-title">Views</h2>
<div data-live="views">${
    views.length === 0
      ? html`<p class="muted small">${input.signedIn ? 'Search, then save the search to come back to it.' : 'No shared views yet.'}</p>`
      : html`${viewList(slug, own, q, 'Yours', true)}${viewList(slug, shared, q, 'Shared', editor)}`
  }</div>
${save}
</aside>`
}

/**
 * The bulk change bar over a list whose rows have checkboxes: how many are selected, **Select all
 * N matching**, the change and **Apply**. Hidden until a ticket is selected (a page without its
 * script cannot select). A list of more than one page is not counted here: the bar names the
 * count's address (`data-count`), which the script asks once every row of the page is ticked.
 */
export function bulkBar(input: {
  slug: string
  /** The search the list shows, with its tab's states: what "all matching" changes. */
  q: string
  /** Tickets the search finds (up to the cap), and whether more than that; null: not counted yet. */
  matching: { count: number; more: boolean } | null
  role: Role | null
  members: readonly Member[]
  /** The project's label names and its open milestones' titles. */
  labels: readonly string[]
  milestones: readonly string[]
}): Html {
  if (!mayAct(input.role, USE)) return html``
  const editor = mayAct(input.role, EDIT)
  const counted =
    input.matching === null
      ? html` data-count="/api/projects/${input.slug}/tickets/count?q=${encodeURIComponent(input.q)}"`
      : html` data-matching="${String(input.matching.count)}"`
  return html`<form class="bulk-bar" data-bulk="/api/projects/${input.slug}/tickets/bulk" data-q="${input.q}"${counted} aria-label="Change the selected tickets" hidden>
<span class="bulk-count" data-bulk-count>0 selected</span>
${input.matching === null ? html`<button type="button" class="link" data-select-all hidden>Select all matching</button>` : selectAll(input.matching)}
<label for="bulk-change">Change to</label>
<select id="bulk-change" name="change">
<optgroup label="Set state">${STATES.map((s) => html`<option value="state:${s}">${s}</option>`)}</optgroup>
${editor ? html`<optgroup label="Assign to"><option value="assignee:">Nobody</option>${input.members.map((m) => html`<option value="assignee:${m.user.id}">${m.user.name}</option>`)}</optgroup>` : ''}
${editor && input.labels.length > 0 ? html`<optgroup label="Add label">${input.labels.map((l) => html`<option value="addLabel:${l}">+ ${l}</option>`)}</optgroup><optgroup label="Remove label">${input.labels.map((l) => html`<option value="removeLabel:${l}">− ${l}</option>`)}</optgroup>` : ''}
${editor && input.milestones.length > 0 ? html`<optgroup label="Milestone"><option value="milestone:">No milestone</option>${input.milestones.map((m) => html`<option value="milestone:${m}">${m}</option>`)}</optgroup>` : ''}
</select>
<button type="submit" class="primary">Apply</button>
<button type="button" class="quiet" data-bulk-clear>Clear</button>
<p class="form-error" data-error role="alert" hidden></p>
</form>`
}

/** **Select all N matching**, or, past what one change may change, why not. */
function selectAll(matching: { count: number; more: boolean }): Html {
  const { text, tooMany } = selectAllWords(matching)
  return html`<button type="button" class="link" data-select-all hidden${tooMany ? html` disabled` : ''}>${text}</button>`
}
