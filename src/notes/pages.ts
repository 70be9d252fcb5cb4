/**
 * The notes service's pages: the app at `/` (a welcome with "Sign in" when signed out) and the
 * login failure page. The app page is the whole markup of the notes web app; its script
 * (src/notes/app/) adds the behaviour and never builds note text as HTML.
 */
import { html, htmlDocument, htmlPage, rawHtml, type Html } from '../http/html.ts'
import { noteHtml } from './app/markdown.ts'
import { titleOf } from './app/text.ts'
import type { PublishedNote } from './publications.ts'
import type { MenuLink } from '../auth/person-menu.ts'
import { switchSentence } from '../auth/shown-name.ts'

/** The addresses of the app's bundled files. */
export interface AppFiles {
  script: string
  style: string
  icon: string
}

/** Who is signed in: the id keys this browser's copy, the name is shown. */
export interface Person {
  id: string
  /** As the apps show who you are: the display name, and the unique sign-in name beside it (src/auth/shown-name.ts). */
  name: string
  /** The links of their menu above **Sign out** (src/auth/person-menu.ts). */
  menu?: readonly MenuLink[]
  /** Whom the session named before a login return switched it to this person, once (docs/core.md, "Login CSRF"). */
  switchedFrom?: string | null
}

/** The start page: the notes app for a signed-in person, or a welcome with a sign-in link. */
export function homePage(person: Person | null, files: AppFiles): Html {
  return person === null ? welcomePage(files) : appPage(person, files)
}

/** A page of the app: its icon, manifest, stylesheet and colours, then `head` and `body`. */
function notesPage(files: AppFiles, parts: { head?: Html; bodyClass?: string }, body: Html): Html {
  return htmlPage(
    {
      title: 'Notes',
      coverViewport: true,
      head: html`<meta name="color-scheme" content="light dark">
<meta name="theme-color" content="#f7f6f3" media="(prefers-color-scheme: light)">
<meta name="theme-color" content="#1b1c1f" media="(prefers-color-scheme: dark)">
<link rel="manifest" href="/manifest.webmanifest">
<link rel="icon" href="${files.icon}" type="image/svg+xml">
<link rel="stylesheet" href="${files.style}">${
        parts.head
          ? html`
${parts.head}`
          : ''
      }`,
      bodyClass: parts.bodyClass,
    },
    body,
  )
}

function welcomePage(files: AppFiles): Html {
  return notesPage(
    files,
    { bodyClass: 'welcome' },
    html`<main class="welcome-card">
<img src="${files.icon}" alt="" width="64" height="64">
<h1>Notes</h1>
<p>Your notes on every device, written offline or online, and never a word lost.</p>
<p><a class="button primary" href="/login">Sign in</a></p>
</main>`,
  )
}

function appPage(person: Person, files: AppFiles): Html {
  const head = html`<meta name="notes-user" content="${person.id}">
<script type="module" src="${files.script}"></script>`
  return notesPage(
    files,
    { head },
    html`<div class="app" id="app" data-view="list">
${person.switchedFrom ? html`<p class="switched" role="alert">${switchSentence(person.name, person.switchedFrom)} Not you? <button type="button" class="quiet" id="switch-sign-out">Sign out</button></p>` : ''}
<header class="bar">
<h1 class="brand"><img src="${files.icon}" alt="" width="22" height="22"> <span>Notes</span></h1>
<p class="status" id="status" role="status">Opening…</p>
</header>
<section class="sidebar" aria-label="All notes">
<div class="tools">
<input type="search" id="search" aria-label="Search notes" placeholder="Search" data-keys-placeholder="Search  (/)" autocomplete="off" spellcheck="false">
<button type="button" class="primary" id="new-note" title="New note (Alt+N)">New note</button>
</div>
<p class="empty" id="empty" aria-live="polite" hidden></p>
<nav class="tags" aria-label="Tags">
<details id="tags-box" open>
<summary>Tags</summary>
<p class="tags-none" id="tags-none">No tags yet: write <code>#word</code> in a note.</p>
<ul class="tag-list" id="tags" aria-label="Tags" hidden></ul>
</details>
</nav>
<div class="tag-bar" id="tag-bar" hidden>
<p>Notes tagged <strong id="tag-chosen"></strong></p>
<button type="button" class="quiet" id="rename-tag" aria-expanded="false" aria-controls="rename-form">Rename tag</button>
</div>
<form class="rename" id="rename-form" hidden novalidate>
<label for="rename-to">New name</label>
<div class="rename-row">
<input type="text" id="rename-to" autocomplete="off" spellcheck="false" aria-describedby="rename-error">
<button type="submit" class="primary">Rename</button>
<button type="button" class="quiet" id="rename-cancel">Cancel</button>
</div>
<p class="field-error" id="rename-error" hidden></p>
</form>
<ul class="list" id="list" aria-label="Notes"></ul>
<div class="sidebar-foot">
<button type="button" class="quiet" id="show-trash">Recently deleted</button>
<button type="button" class="quiet" id="show-import">Import notes</button>
<button type="button" class="quiet" id="export">Export all notes</button>
</div>
</section>
<main class="pane" id="pane">
<div class="toolbar">
<button type="button" class="quiet back" id="back">Back</button>
<span class="edited" id="edited"></span>
<div class="mode" role="group" aria-label="Write or read">
<button type="button" class="quiet" id="write-mode" aria-pressed="true">Write</button>
<button type="button" class="quiet" id="read-mode" aria-pressed="false">Read</button>
</div>
<button type="button" class="quiet" id="pin" aria-pressed="false">Pin</button>
<button type="button" class="quiet" id="share-button">Share</button>
<button type="button" class="quiet" id="history-button">History</button>
<button type="button" class="quiet danger" id="delete">Delete</button>
</div>
<p class="notice" id="notice" hidden></p>
<textarea id="editor" aria-label="Note" spellcheck="true" placeholder="Start writing…" disabled></textarea>
<article class="reading" id="reading" aria-label="Note, read as Markdown" hidden></article>
<section class="panel" id="compare" hidden aria-labelledby="compare-title">
<h2 id="compare-title">Conflicted copy</h2>
<p class="hint" id="compare-hint">Two devices changed the same lines, so both versions are kept. Lines only in the note are struck through; lines only in the copy are marked.</p>
<div class="sides">
<div><h3 id="compare-original-title">Note</h3><pre class="diff" id="compare-original"></pre></div>
<div><h3 id="compare-copy-title">Conflicted copy</h3><pre class="diff" id="compare-copy"></pre></div>
</div>
<div class="actions">
<button type="button" id="keep-both">Keep both</button>
<button type="button" id="keep-this">Keep only the copy</button>
<button type="button" class="primary" id="edit-by-hand">Edit by hand</button>
</div>
</section>
<section class="panel" id="history" hidden aria-labelledby="history-title">
<h2 id="history-title">History</h2>
<p class="hint" id="history-hint"></p>
<ol class="revisions" id="revisions"></ol>
<form class="device-form" id="device-form" novalidate>
<label for="device-name">Name of this device</label>
<p class="hint" id="device-hint">Your other devices show it beside the versions saved here, with the browser and system.</p>
<div class="rename-row">
<input type="text" id="device-name" autocomplete="off" spellcheck="false" aria-describedby="device-hint">
<button type="submit">Save name</button>
</div>
</form>
<div class="actions"><button type="button" id="history-close">Close history</button></div>
</section>
<section class="panel" id="share" hidden aria-labelledby="share-title">
<h2 id="share-title" tabindex="-1">Share</h2>
<div class="share-block" id="people-block">
<h3>Share with people</h3>
<p class="hint" id="people-hint">People who use these Notes find the note in their own list and write in it with you, or only read it. Type their sign-in name or their whole name.</p>
<form class="share-form" id="share-form" novalidate>
<label for="share-name">Name</label>
<div class="rename-row">
<input type="text" id="share-name" autocomplete="off" spellcheck="false" aria-describedby="share-problem">
<select id="share-access" aria-label="Access"><option value="edit">can edit</option><option value="read">can read</option></select>
<button type="submit" class="primary" id="share-with">Share</button>
</div>
<p class="field-error" id="share-problem" role="alert" hidden></p>
<ul class="share-choices" id="share-choices" aria-label="People of that name" hidden></ul>
</form>
<ul class="people" id="people" aria-label="Shared with"></ul>
</div>
<div class="share-block" id="publish-block">
<h3>Publish to the web</h3>
<p class="hint" id="publish-hint"></p>
<p class="field-error" id="publish-problem" role="alert" hidden></p>
<button type="button" class="primary" id="publish" hidden>Publish</button>
<div id="published-link" hidden>
<label for="published-url">Link</label>
<div class="rename-row">
<input type="text" id="published-url" readonly>
<button type="button" id="copy-link">Copy link</button>
</div>
<p class="actions"><a class="button" id="published-open" href="#" target="_blank" rel="noopener">Open the page</a> <button type="button" class="danger" id="unpublish">Unpublish</button></p>
</div>
</div>
<div class="actions"><button type="button" id="share-close">Close</button></div>
</section>
<section class="panel" id="import" hidden aria-labelledby="import-title">
<h2 id="import-title" tabindex="-1">Import notes</h2>
<p class="hint">Markdown and text files (<code>.md</code>, <code>.txt</code>), alone, in a folder or in a zip, this app's own export, and the JSON exports of Simplenote and Standard Notes (decrypted). Each note is saved like one typed here, offline too; its first line is its title.</p>
<div class="import-pick">
<label for="import-files">Files or a zip</label>
<input type="file" id="import-files" multiple accept=".md,.markdown,.txt,.text,.zip,.json">
</div>
<div class="import-pick">
<label for="import-folder">A folder</label>
<input type="file" id="import-folder" webkitdirectory multiple>
</div>
<div class="import-result" id="import-result" role="status"></div>
<div class="actions"><button type="button" id="import-close">Close</button></div>
</section>
<section class="panel" id="trash" hidden aria-labelledby="trash-title">
<h2 id="trash-title" tabindex="-1">Recently deleted</h2>
<p class="hint" id="trash-hint"></p>
<ol class="revisions" id="trash-list" aria-label="Deleted notes"></ol>
<div class="actions">
<button type="button" class="danger" id="empty-trash">Empty trash</button>
<button type="button" id="trash-close">Close</button>
</div>
</section>
<div class="placeholder" id="placeholder"><p>Select a note, or make a new one<span class="keys-hint"> with <kbd>Alt</kbd>+<kbd>N</kbd></span>.</p></div>
</main>
<section class="account" aria-label="Account">
<details class="person-menu"><summary class="person" title="Signed in as ${person.name}">${person.name}</summary>
<ul class="menu">${(person.menu ?? []).map((l) => html`<li><a href="${l.href}">${l.label}</a></li>`)}
<li><button type="button" class="quiet" id="sign-out">Sign out</button></li></ul>
</details>
</section>
</div>
<div class="toast" id="toast" aria-live="polite" hidden><span id="toast-text"></span> <button type="button" class="quiet" id="toast-action">Undo</button></div>
<div class="toast update" id="update" hidden><span>A new version of Notes is ready.</span> <button type="button" class="primary" id="update-reload">Reload</button></div>`,
  )
}

/** A page anyone may read (a published note): no manifest, kept out of search engines. */
function publicPage(
  files: AppFiles,
  title: string,
  parts: { script?: string; bodyClass: string },
  body: Html,
): Html {
  return htmlPage(
    {
      title,
      head: html`<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="${files.icon}" type="image/svg+xml">
<link rel="stylesheet" href="${files.style}">${
        parts.script
          ? html`
<script type="module" src="${parts.script}"></script>`
          : ''
      }`,
      bodyClass: parts.bodyClass,
    },
    body,
  )
}

/**
 * A published note (`/p/<id>`): its text read as Markdown (src/notes/app/markdown.ts: no raw
 * HTML, safe links, no image loaded), task boxes shown but not ticked; the script follows the
 * owner's later saves while the page is open.
 */
export function publishedPage(note: PublishedNote, files: AppFiles): Html {
  const updated = new Date(note.edited)
  // A Markdown heading's marks are no part of the page's title.
  const title = titleOf(note.text).replace(/^#{1,6}\s+/, '')
  return publicPage(
    files,
    title,
    { script: files.script, bodyClass: 'published' },
    html`<main class="reading published-note" id="published" data-edited="${String(note.edited)}">
${rawHtml(noteHtml(note.text, { tasks: 'shown' }))}</main>
<footer class="published-foot"><p id="published-status" role="status">Updated <time datetime="${updated.toISOString()}">${updated.toISOString().slice(0, 16).replace('T', ' ')} UTC</time></p><p>Published with Notes</p></footer>`,
  )
}

/** The answer of an address that is not (or no longer) published. */
export function notPublishedPage(files: AppFiles): Html {
  return publicPage(
    files,
    'Not published',
    { bodyClass: 'welcome' },
    html`<main class="welcome-card">
<h1>Not published</h1>
<p>This note is not published, or no longer is. Ask its owner for a new link.</p>
</main>`,
  )
}

/** The login failure page: the stored reason, escaped, and a link to try again. */
export function loginFailedPage(reason: string | null): Html {
  const what =
    reason === null
      ? html`<p>No failed sign-in is recorded for this browser.</p>`
      : html`<p>The sign-in failed: <strong class="reason">${reason}</strong></p>`
  return htmlDocument('Sign-in failed', html`${what}\n<p><a href="/login">Sign in again</a></p>`)
}
