/**
 * The small parts the lists and the ticket page show of labels, milestones and due dates: a
 * label's chip (its name always written; its colour set by the script from `data-color`, with a
 * text colour chosen for it, src/tickets/text/label-colors.ts) and a due day with "overdue" in
 * words beside the colour.
 */
import { html, type Html } from '../../http/html.ts'
import { dayOf } from '../rules/query.ts'
import type { StoredLabel } from '../store/labels.ts'

/** The project page's address with a search. */
export function searchUrl(slug: string, q: string): string {
  return `/${slug}?${new URLSearchParams({ q })}`
}

/** A label as a chip: its name, coloured by the script. */
export function labelChip(name: string, color: string | undefined): Html {
  return html`<span class="label-chip"${color ? html` data-color="${color}"` : ''}>${name}</span>`
}

/** A ticket's labels as chips, each linking to the project's tickets with that label. */
export function labelChips(
  slug: string,
  names: readonly string[],
  colors: ReadonlyMap<string, string>,
): Html {
  if (names.length === 0) return html``
  return html`<span class="label-chips">${names.map(
    (n) =>
      html`<a class="label-link" href="${searchUrl(slug, `label:"${n}"`)}">${labelChip(n, colors.get(n.toLowerCase()))}</a>`,
  )}</span>`
}

/** A project's label colours by lower-case name. */
export function colorsOf(labels: readonly StoredLabel[]): Map<string, string> {
  return new Map(labels.map((l) => [l.name.toLowerCase(), l.color]))
}

/** Whether a ticket due on `due` is overdue on the day of `now`: before today and not closed. */
export function isOverdue(due: string | null, state: string, now: number): boolean {
  return due !== null && due < dayOf(now) && state !== 'done' && state !== 'dropped'
}

/** `due 2026-12-24`, with `overdue` in words beside it when it is. */
export function dueText(due: string, state: string, now: number): Html {
  const overdue = isOverdue(due, state, now)
  return html`<span class="due${overdue ? ' overdue' : ''}">due <time datetime="${due}">${due}</time>${overdue ? html` <strong class="overdue-word">overdue</strong>` : ''}</span>`
}
