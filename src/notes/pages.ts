/**
 * The notes service's pages: the app at `/` (a welcome with "Sign in" when signed out) and the
 * login failure page. The app page is the whole markup of the notes web app; its script
 * (src/notes/app/) adds the behaviour and never builds note text as HTML.
 */
import { html, htmlDocument, htmlPage, type Html } from '../http/html.ts'

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
<link rel="stylesheet" href="${files.style}">${parts.head ? html`
${parts.head}` : ''}`,
      bodyClass: parts.bodyClass,
    },
    body,
  )
}

function welcomePage(files: AppFiles): Html {
  return notesPage(files, { bodyClass: 'welcome' }, html`<main class="welcome-card">
<img src="${files.icon}" alt="" width="64" height="64">
<h1>Notes</h1>
<p>Your notes on every device, written offline or online, and never a word lost.</p>
<p><a class="button primary" href="/login">Sign in</a></p>
</main>`)
}

function appPage(person: Person, files: AppFiles): Html {
  const head = html`<meta name="notes-user" content="${person.id}">
<script type="module" src="${files.script}"></script>`
  return notesPage(files, { head }, html`<div class="app" id="app" data-view="list">
${person.switchedFrom ? html`<p class="switched" role="alert">You are now signed in as ${person.name}, no longer as ${person.switchedFrom}. Not you? <button type="button" class="quiet" id="switch-sign-out">Sign out</button></p>` : ''}
<header class="bar">
<h1 class="brand"><img src="${files.icon}" alt="" width="22" height="22"> <span>Notes</span></h1>
<p class="status" id="status" role="status">Opening…</p>
</header>
<section class="sidebar" aria-label="All notes">
<div class="tools">
<input type="search" id="search" aria-label="Search notes" placeholder="Search  (/)" autocomplete="off" spellcheck="false">
<button type="button" class="primary" id="new-note" title="New note (Alt+N)">New note</button>
</div>
<p class="empty" id="empty" aria-live="polite" hidden></p>
<ul class="list" id="list" aria-label="Notes"></ul>
<div class="sidebar-foot">
<button type="button" class="quiet" id="export">Export all notes</button>
</div>
</section>
<main class="pane" id="pane">
<div class="toolbar">
<button type="button" class="quiet back" id="back">Back</button>
<span class="edited" id="edited"></span>
<button type="button" class="quiet" id="history-button">History</button>
<button type="button" class="quiet danger" id="delete">Delete</button>
</div>
<p class="notice" id="notice" hidden></p>
<textarea id="editor" aria-label="Note" spellcheck="true" placeholder="Start writing…" disabled></textarea>
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
<div class="actions"><button type="button" id="history-close">Close history</button></div>
</section>
<div class="placeholder" id="placeholder"><p>Select a note, or press <kbd>Alt</kbd>+<kbd>N</kbd> for a new one.</p></div>
</main>
<section class="account" aria-label="Account">
<span class="person" title="Signed in as ${person.name}">${person.name}</span>
<button type="button" class="quiet" id="sign-out">Sign out</button>
</section>
</div>
<div class="toast" id="toast" aria-live="polite" hidden><span id="toast-text"></span> <button type="button" class="quiet" id="toast-action">Undo</button></div>
<div class="toast update" id="update" hidden><span>A new version of Notes is ready.</span> <button type="button" class="primary" id="update-reload">Reload</button></div>`)
}

/** The login failure page: the stored reason, escaped, and a link to try again. */
export function loginFailedPage(reason: string | null): Html {
  const what = reason === null
    ? html`<p>No failed sign-in is recorded for this browser.</p>`
    : html`<p>The sign-in failed: <strong class="reason">${reason}</strong></p>`
  return htmlDocument('Sign-in failed', html`${what}\n<p><a href="/login">Sign in again</a></p>`)
}
