/**
 * A project's milestones `/<slug>/milestones`: each with its due day (overdue ones say so), its
 * description and its progress (closed tickets of all its tickets, as words and a bar), its title
 * linking to its tickets (a search); editors create milestones here, close, reopen and delete
 * them. The page follows its project's events, so progress moves as tickets change.
 */
import { html, type Html } from '../../http/html.ts'
import { DESCRIPTION_MAX } from '../rules/lengths.ts'
import { MILESTONE_TITLE_MAX } from '../rules/organise.ts'
import type { StoredMilestone } from '../store/milestones.ts'
import type { Project } from '../store/projects.ts'
import { dayOf } from '../rules/query.ts'
import { searchUrl } from './chips.ts'
import { field, formError } from './frame.ts'
import { counted } from './project-page.ts'

export interface MilestonesInput {
  project: Project
  milestones: readonly StoredMilestone[]
  mayEdit: boolean
  now: number
}

export function milestonesBody(input: MilestonesInput): Html {
  const { project: p, milestones, mayEdit, now } = input
  const api = `/api/projects/${p.slug}/milestones`
  const open = milestones.filter((m) => m.state === 'open')
  const closed = milestones.filter((m) => m.state === 'closed')
  const list = (ms: readonly StoredMilestone[], label: string) =>
    html`<ul class="milestones" aria-label="${label}">${ms.map((m) => milestoneItem(p.slug, api, m, mayEdit, now))}</ul>`
  return html`<p class="crumbs"><a href="/${p.slug}">${p.title}</a> / milestones</p>
<div class="page-head"><div><h1>Milestones</h1><p class="muted">What ${p.title} is working towards, and how far along each is.</p></div></div>
${mayEdit ? newMilestone(api) : ''}
<div data-live="milestones">
${milestones.length === 0 ? html`<div class="card empty"><h2>No milestones yet</h2><p>${mayEdit ? 'Make the first one with “New milestone”.' : 'Editors of the project make them.'}</p></div>` : ''}
${open.length ? html`<h2 id="open-milestones">Open</h2>${list(open, 'Open milestones')}` : ''}
${closed.length ? html`<h2 id="closed-milestones">Closed</h2>${list(closed, 'Closed milestones')}` : ''}
</div>`
}

function milestoneItem(
  slug: string,
  api: string,
  m: StoredMilestone,
  mayEdit: boolean,
  now: number,
): Html {
  const { closed, total } = m.progress
  const percent = total === 0 ? 0 : Math.round((closed / total) * 100)
  const overdue = m.state === 'open' && m.due !== null && m.due < dayOf(now)
  const path = `${api}/${encodeURIComponent(m.title)}`
  const progressId = `progress-${m.id}`
  return html`<li class="card milestone" data-key="m${m.id}">
<div class="milestone-head"><h3><a href="${searchUrl(slug, `milestone:"${m.title}" state:all`)}">${m.title}</a></h3>
<span class="muted">${m.state === 'closed' ? 'closed' : m.due ? html`<span class="due${overdue ? ' overdue' : ''}">due <time datetime="${m.due}">${m.due}</time>${overdue ? html` <strong class="overdue-word">overdue</strong>` : ''}</span>` : 'no due date'}</span></div>
${m.description.trim() ? html`<p class="description">${m.description}</p>` : ''}
<p class="progress-line" id="${progressId}">${counted(closed)} of ${counted(total)} ${total === 1 ? 'ticket' : 'tickets'} closed (${percent}%)</p>
<progress max="${String(Math.max(total, 1))}" value="${String(closed)}" aria-labelledby="${progressId}"></progress>
<p class="small"><a href="${searchUrl(slug, `milestone:"${m.title}"`)}">Open tickets</a> · <a href="${searchUrl(slug, `milestone:"${m.title}" is:closed`)}">Closed tickets</a></p>
${
  mayEdit
    ? html`<div class="actions">
<form data-api="${path}" data-done="reload"><button type="submit" name="state" value="${m.state === 'open' ? 'closed' : 'open'}" aria-label="${m.state === 'open' ? 'Close' : 'Reopen'} milestone ${m.title}">${m.state === 'open' ? 'Close' : 'Reopen'}</button>${formError}</form>
<form data-api="${path}/remove" data-done="reload"><button type="submit" class="danger" data-confirm="Delete the milestone ${m.title}? Its tickets stay, without a milestone." aria-label="Delete milestone ${m.title}">Delete</button>${formError}</form>
</div>`
    : ''
}
</li>`
}

function newMilestone(api: string): Html {
  return html`<details class="panel" id="new-milestone-panel">
<summary class="button primary">New milestone</summary>
<div class="card">
<form data-api="${api}" data-done="reset" aria-label="New milestone">
<div class="grid-2">
${field({ id: 'milestone-title', name: 'title', label: 'Title', control: html`<input id="milestone-title" name="title" type="text" maxlength="${String(MILESTONE_TITLE_MAX)}" required autocomplete="off">` })}
${field({ id: 'milestone-due', name: 'due', label: 'Due date', hint: 'optional', control: html`<input id="milestone-due" name="due" type="date">` })}
</div>
${field({ id: 'milestone-description', name: 'description', label: 'Description', hint: 'optional', control: html`<textarea id="milestone-description" name="description" rows="2" maxlength="${String(DESCRIPTION_MAX)}"></textarea>` })}
${formError}
<button type="submit" class="primary">Create milestone</button>
</form>
</div>
</details>`
}
