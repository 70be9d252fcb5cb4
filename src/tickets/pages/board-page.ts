/**
 * The board `/<slug>/board` (docs/tickets-app.md, "Board"): the tickets of the search in a column
 * a state. A member moves a card by dragging it, or with the keyboard (focus it, ArrowRight or
 * ArrowLeft carries it to the next or previous column, Enter or Space drops it there); the move
 * is a state change through the API with the ticket page's Undo (src/tickets/app/board.ts). On
 * a phone one column shows at a time, the column names as tabs above it.
 */
import { html, type Html } from '../../http/html.ts'
import { mayAct, type Role } from '../rules/roles.ts'
import type { State } from '../rules/states.ts'
import type { BoardColumn } from '../store/board.ts'
import type { Project } from '../store/projects.ts'
import { USE } from '../domain/tickets.ts'
import { searchHelp, subjectHtml } from './frame.ts'
import { counted } from './project-page.ts'

/** A column's heading. */
const TITLES: Record<State, string> = {
  open: 'Open',
  doing: 'Doing',
  review: 'Review',
  done: 'Done',
  dropped: 'Dropped',
}

export interface BoardPageInput {
  project: Project
  role: Role | null
  signedIn: boolean
  loginUrl: string
  q: string
  queryError: string | null
  columns: readonly BoardColumn[]
  /** The column a phone shows (`?column=`); the first when not given. */
  column: State
}

function listUrl(slug: string, q: string): string {
  return q === '' ? `/${slug}` : `/${slug}?q=${encodeURIComponent(q)}`
}

function boardUrl(slug: string, q: string, column: State): string {
  const query = new URLSearchParams()
  if (q) query.set('q', q)
  query.set('column', column)
  return `/${slug}/board?${query}`
}

export function boardBody(input: BoardPageInput): Html {
  const { project: p, q, columns } = input
  const moves = mayAct(input.role, USE)
  const head = html`<div class="page-head">
<div><h1>${p.title}: board</h1><p class="muted">${q ? html`Tickets matching <code>${q}</code>, by state.` : 'Every ticket, by state.'}</p></div>
<div class="actions"><a class="button" href="${listUrl(p.slug, q)}">List</a></div>
</div>`
  if (input.queryError) return html`${head}${searchHelp(input.queryError)}`
  const hint = moves
    ? html`<p class="muted small board-hint" id="board-hint">Drag a card to another column, or focus it and press <kbd>→</kbd> or <kbd>←</kbd> to carry it, then <kbd>Enter</kbd> or <kbd>Space</kbd> to drop it there (<kbd>Esc</kbd> puts it back).</p>`
    : input.signedIn
      ? html`<p class="muted small">Members of ${p.title} move cards between columns.</p>`
      : html`<p class="muted small"><a href="${input.loginUrl}">Sign in</a> to move cards.</p>`
  return html`${head}
${hint}
<nav class="board-tabs" aria-label="Columns" data-live="board-tabs">${columns.map(
    (c) =>
      html`<a href="${boardUrl(p.slug, q, c.state)}" data-column-tab="${c.state}"${c.state === input.column ? html` aria-current="true"` : ''}>${TITLES[c.state]} <span class="n">${countWords(c)}</span></a>`,
  )}</nav>
<div class="board" data-live="board"${moves ? html` data-board="/api/projects/${p.slug}/tickets"` : ''}>
${columns.map((c) => column(p.slug, q, c, c.state === input.column, moves))}
</div>`
}

function countWords(c: BoardColumn): string {
  return `${counted(c.total)}${c.more ? '+' : ''}`
}

function column(slug: string, q: string, c: BoardColumn, current: boolean, moves: boolean): Html {
  const id = `column-${c.state}`
  const rest = c.total - c.rows.length
  return html`<section class="board-column" data-column="${c.state}"${current ? html` data-current` : ''} aria-labelledby="${id}">
<h2 id="${id}"><span class="state state-${c.state}">${TITLES[c.state]}</span> <span class="n">${countWords(c)}</span></h2>
<ul class="cards" data-cards="${c.state}" aria-labelledby="${id}">
${c.rows.map(
  ({ ticket: t, blocked }) =>
    html`<li class="ticket-card" data-key="${t.id}" data-number="${String(t.number)}" data-ref="${t.ref}" data-state="${t.state}"${moves ? html` draggable="true" tabindex="0" aria-describedby="board-hint"` : ''}>
<a class="ref" href="/${slug}/${t.number}"${moves ? html` tabindex="-1"` : ''}>#${t.number}</a>
<a class="subject" href="/${slug}/${t.number}"${moves ? html` tabindex="-1"` : ''}>${subjectHtml(t.subject)}</a>
<span class="meta">${blocked ? html`<span class="blocked">blocked</span>` : ''}<span>${t.assignee ? t.assignee.name : 'unassigned'}</span></span>
</li>`,
)}
</ul>
${rest > 0 || c.more ? html`<p class="small more"><a href="${`/${slug}?state=${c.state}${q ? `&q=${encodeURIComponent(q)}` : ''}`}">${c.more ? 'More' : `${counted(rest)} more`} in the list</a></p>` : ''}
${c.rows.length === 0 ? html`<p class="muted small empty-column">No tickets.</p>` : ''}
</section>`
}
