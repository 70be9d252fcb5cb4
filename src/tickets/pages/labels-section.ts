/**
 * The Labels section of a project's settings: every label as its chip, with its name, colour
 * and description to change and a Delete button, and a form for a new one. Admins only (the
 * settings page is theirs).
 */
import { html, type Html } from '../../http/html.ts'
import { LABEL_DESCRIPTION_MAX, LABEL_NAME_MAX } from '../rules/organise.ts'
import type { StoredLabel } from '../store/labels.ts'
import { labelChip } from './chips.ts'
import { formError } from './frame.ts'

/** A new label's colour until one is chosen. */
export const NEW_LABEL_COLOR = '#1d76db'

export function labelsSection(input: { slug: string; labels: readonly StoredLabel[] }): Html {
  const api = `/api/projects/${input.slug}/labels`
  return html`<section class="card" aria-labelledby="labels-title">
<h2 id="labels-title">Labels</h2>
<p class="muted">Labels sort tickets into kinds: editors add them to tickets, search finds them (<code>label:bug</code>). Each is shown with its name, so its colour is never the only sign.</p>
<div data-live="labels">${
    input.labels.length
      ? html`<div class="table-wrap"><table class="list" aria-label="Labels"><thead><tr><th>Label</th><th>Change</th><th><span class="visually-hidden">Delete</span></th></tr></thead><tbody>
${input.labels.map((l) => labelRow(api, l))}
</tbody></table></div>`
      : html`<p class="muted">No labels yet.</p>`
  }</div>
<h3>New label</h3>
<form data-api="${api}" data-done="reset" aria-label="New label" class="label-form">
<div class="field"><label for="label-name">Name</label><input id="label-name" name="name" type="text" maxlength="${String(LABEL_NAME_MAX)}" required autocomplete="off"><p class="field-error" data-error-for="name" hidden></p></div>
<div class="field"><label for="label-color">Colour</label><input id="label-color" name="color" type="color" value="${NEW_LABEL_COLOR}"><p class="field-error" data-error-for="color" hidden></p></div>
<div class="field"><label for="label-description">Description</label><input id="label-description" name="description" type="text" maxlength="${String(LABEL_DESCRIPTION_MAX)}" autocomplete="off"><p class="field-error" data-error-for="description" hidden></p></div>
${formError}
<div class="actions"><button type="submit" class="primary">Create label</button></div>
</form>
</section>`
}

function labelRow(api: string, l: StoredLabel): Html {
  const path = `${api}/${encodeURIComponent(l.name)}`
  const id = `label-${l.id}`
  return html`<tr data-key="${id}"><td>${labelChip(l.name, l.color)}${l.description ? html`<br><span class="small muted">${l.description}</span>` : ''}</td>
<td><form data-api="${path}" data-done="reload" class="inline label-edit">
<label class="visually-hidden" for="${id}-name">Name of ${l.name}</label><input id="${id}-name" name="name" type="text" value="${l.name}" maxlength="${String(LABEL_NAME_MAX)}" required autocomplete="off">
<label class="visually-hidden" for="${id}-color">Colour of ${l.name}</label><input id="${id}-color" name="color" type="color" value="${l.color}">
<label class="visually-hidden" for="${id}-description">Description of ${l.name}</label><input id="${id}-description" name="description" type="text" value="${l.description}" maxlength="${String(LABEL_DESCRIPTION_MAX)}" placeholder="Description" autocomplete="off">
<button type="submit" aria-label="Save label ${l.name}">Save</button><p class="field-error" data-error-for="name" hidden></p>${formError}</form></td>
<td><form data-api="${path}/remove" data-done="reload"><button type="submit" class="danger" data-confirm="Delete the label ${l.name}? It is taken off every ticket." aria-label="Delete label ${l.name}">Delete</button>${formError}</form></td></tr>`
}
