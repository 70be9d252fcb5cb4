/**
 * What the pages show of labels, milestones and due dates: a label's chip (its name always
 * written, its colour set by the script from `data-color` with a text colour chosen for it,
 * src/tickets/text/label-colors.ts), a due day with "overdue" in words, and the ticket page's
 * boxes that change them (the label picker, the milestone select, the due day).
 */
import { html, type Html } from '../../http/html.ts'
import type { Ticket } from '../store/ticket-row.ts'
import type { StoredLabel } from '../store/labels.ts'
import type { MilestoneChoice } from '../store/milestones.ts'
import { formError } from './frame.ts'
import { colorsOf, dueText, labelChip, searchUrl } from './chips.ts'

/** The ticket page's Labels box: chips, a Remove button each, and the picker for editors. */
export function labelsBox(input: {
  t: Ticket
  api: string
  labels: readonly StoredLabel[]
  mayEdit: boolean
  mayCreate: boolean
}): Html {
  const { t, api, labels } = input
  const colors = colorsOf(labels)
  const items = t.labels.map(
    (n) =>
      html`<li>${labelChip(n, colors.get(n.toLowerCase()))}${input.mayEdit ? html`<form data-api="${api}/labels" data-done="reload"><button type="submit" class="link" name="remove" value="${n}" aria-label="Remove label ${n}">Remove</button></form>` : ''}</li>`,
  )
  const form = input.mayEdit
    ? html`<form data-api="${api}/labels" data-done="reload" data-label-form>
<label for="label-input" class="visually-hidden">Add a label</label>
<div class="inline">${labelPickerInput({ id: 'label-input', name: 'add', slug: t.slug, labels, mayCreate: input.mayCreate, taken: t.labels })}<button type="submit">Add</button></div>
<p class="field-error" data-error-for="add" hidden></p><p class="field-error" data-error-for="remove" hidden></p>${formError}
</form>`
    : ''
  return html`<section class="side-box" data-live="labels-box" aria-labelledby="labels-title"><h2 id="labels-title">Labels</h2>${items.length ? html`<ul class="label-list">${items}</ul>` : html`<p class="muted">None</p>`}${form}</section>`
}

/**
 * The label picker's field: a combobox suggesting the project's labels as the person types
 * (src/tickets/app/label-picker.ts); for an admin it also offers to create the label typed.
 */
export function labelPickerInput(input: {
  id: string
  name: string | null
  slug: string
  labels: readonly StoredLabel[]
  mayCreate: boolean
  taken: readonly string[]
}): Html {
  const { id } = input
  const known = JSON.stringify(input.labels.map((l) => ({ name: l.name, color: l.color })))
  return html`<div class="picker"><input id="${id}"${input.name ? html` name="${input.name}"` : ''} type="text" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="${id}-options" data-label-picker="${known}" data-label-taken="${JSON.stringify(input.taken)}"${input.mayCreate ? html` data-label-create="/api/projects/${input.slug}/labels"` : ''} placeholder="bug, needs review…" autocomplete="off" maxlength="50">
<ul id="${id}-options" role="listbox" aria-label="Matching labels" class="picker-list" hidden></ul></div>`
}

/** The ticket page's Milestone box: the milestone, and a select of the open ones for editors. */
export function milestoneBox(input: {
  t: Ticket
  api: string
  milestones: readonly MilestoneChoice[]
  mayEdit: boolean
}): Html {
  const { t, api } = input
  const current = t.milestone
    ? html`<p><a href="${searchUrl(t.slug, `milestone:"${t.milestone}" state:all`)}">${t.milestone}</a></p>`
    : html`<p class="muted">None</p>`
  if (!input.mayEdit)
    return html`<section class="side-box" data-live="milestone-box" aria-labelledby="milestone-title"><h2 id="milestone-title">Milestone</h2>${current}</section>`
  // Closed milestones are offered only when the ticket is in one.
  const offered = input.milestones.filter((m) => m.state === 'open' || m.title === t.milestone)
  return html`<section class="side-box" data-live="milestone-box" aria-labelledby="milestone-title"><h2 id="milestone-title">Milestone</h2>
<form data-api="${api}/milestone" data-done="reload">
<label for="milestone-select" class="visually-hidden">Milestone</label>
<select id="milestone-select" name="milestone" data-submit><option value=""${t.milestone === null ? html` selected` : ''}>No milestone</option>${offered.map((m) => html`<option value="${m.title}"${m.title === t.milestone ? html` selected` : ''}>${m.title}${m.due ? ` (due ${m.due})` : ''}</option>`)}</select>
<p class="field-error" data-error-for="milestone" hidden></p>${formError}
</form>
<p class="small"><a href="/${t.slug}/milestones">All milestones</a></p></section>`
}

/** The ticket page's Due date box: the day in words (overdue says so), and a date field for editors. */
export function dueBox(input: { t: Ticket; api: string; mayEdit: boolean; now: number }): Html {
  const { t, api, now } = input
  const current = t.due
    ? html`<p>${dueText(t.due, t.state, now)}</p>`
    : html`<p class="muted">No due date</p>`
  const form = input.mayEdit
    ? html`<form data-api="${api}/due" data-done="reload">
<label for="due-input" class="visually-hidden">Due date</label>
<div class="inline"><input id="due-input" name="due" type="date" value="${t.due ?? ''}"><button type="submit">Set</button>${t.due ? html`<button type="submit" class="link" name="due" value="" aria-label="Remove due date">Remove</button>` : ''}</div>
<p class="field-error" data-error-for="due" hidden></p>${formError}
</form>`
    : ''
  return html`<section class="side-box" data-live="due-box" aria-labelledby="due-title"><h2 id="due-title">Due date</h2>${current}${form}</section>`
}
