/** The home page `/`: the projects with their open counts, and "New project". */
import { TITLE_BLANK } from '../text/page-words.ts'
import { html, rawHtml, type Html } from '../../http/html.ts'
import { markdownInline } from '../app/markdown-html.ts'
import { oneLine } from '../text/history-words.ts'
import { field, formError } from './frame.ts'
import type { ProjectSummary, Viewer } from './page-data.ts'

export function homeBody(input: {
  projects: readonly ProjectSummary[]
  viewer: Viewer | null
  loginUrl: string
}): Html {
  const { projects, viewer } = input
  const list = projects.length
    ? html`<ul class="projects" aria-label="Projects" data-live="projects">
${projects.map(
  (p) => html`<li data-key="${p.slug}"><a href="/${p.slug}">${p.title}</a>
<span class="muted small">${p.open === 1 ? '1 open ticket' : `${p.open} open tickets`}${p.role ? html` · you: ${p.role}` : ''}</span>
${p.description ? html`<p class="desc">${rawHtml(markdownInline(oneLine(p.description)))}</p>` : ''}</li>`,
)}
</ul>`
    : html`<div class="card empty" data-live="projects">
<h2>No projects yet</h2>
<p>A project holds a team's tickets: bugs, tasks, ideas. ${viewer ? 'Give your first one a title in the form on this page; you can invite people to it afterwards.' : 'Sign in, then start your first project from this page.'}</p>
</div>`
  const create = viewer
    ? html`<section class="card" aria-labelledby="new-project-title">
<h2 id="new-project-title">Start a project</h2>
<form data-api="/api/projects" data-done="go">
${field({ id: 'project-title', name: 'title', label: 'Title', control: html`<input id="project-title" name="title" type="text" maxlength="200" aria-required="true" data-not-blank="${TITLE_BLANK}" autocomplete="off">` })}
${field({ id: 'project-slug', name: 'slug', label: 'Slug', hint: 'optional: the short name in addresses, made from the title when empty', control: html`<input id="project-slug" name="slug" type="text" maxlength="40" pattern="[a-z0-9]+(-[a-z0-9]+)*" data-optional autocomplete="off">` })}
${field({ id: 'project-description', name: 'description', label: 'Description', hint: 'optional', control: html`<textarea id="project-description" name="description" rows="3" data-optional></textarea>` })}
${formError}
<button type="submit" class="primary">New project</button>
</form>
</section>`
    : html`<section class="card"><h2>Join in</h2><p>Anyone can read these projects. <a href="${input.loginUrl}">Sign in</a> to write tickets, comment, and start projects of your own.</p></section>`
  return html`<div class="page-head"><div><h1>Projects</h1><p class="muted">${projects.length === 1 ? '1 project' : `${projects.length} projects`} on this tracker.</p></div></div>
<div class="columns">
<div>${list}</div>
<aside>${create}</aside>
</div>`
}
