/**
 * The ticket pages' script, bundled for the browser: it adds behaviour to server-rendered HTML
 * and never draws a page itself. Forms marked `data-api` write through the JSON API
 * (src/tickets/app/form.ts); text boxes with a preview show their Markdown; Ctrl+Enter sends;
 * shortcuts (src/tickets/app/shortcuts.ts); relative times stay fresh; and a page with a live
 * part follows events (src/tickets/app/live.ts), redraws in place (src/tickets/app/redraw.ts)
 * and announces what changed in its `aria-live` region.
 */
import { createApiClient, type ApiAnswer } from './api.ts'
import { createFormSender, domFormView } from './form.ts'
import { createLiveFollower, announcement } from './live.ts'
import { markdownToHtml } from './markdown-html.ts'
import { redraw } from './redraw.ts'
import { relativeTime } from './relative-time.ts'
import { createShortcuts, isTyping } from './shortcuts.ts'

const tag = document.querySelector<HTMLMetaElement>('meta[name="x-tag"]')?.content ?? ''
const sender = createFormSender({ api: createApiClient({ fetch: (input, init) => fetch(input, init), tag }) })
const live = document.querySelector<HTMLElement>('main[data-cursor]')
let pendingRedraw = false

/** Fetches the page again and swaps in what changed; `events` are announced. */
async function refresh(announce = ''): Promise<void> {
  const res = await fetch(location.pathname + location.search, { headers: { accept: 'text/html' }, cache: 'no-store' })
  if (!res.ok) return
  const fresh = new DOMParser().parseFromString(await res.text(), 'text/html')
  const kept = redraw(document, fresh)
  pendingRedraw = kept.length > 0
  const root = document.documentElement
  root.dataset.redrawn = String(Number(root.dataset.redrawn ?? 0) + 1)
  startTimes()
  followDeliveries()
  if (announce !== '') say(announce)
}

// A webhook delivery about to be sent (`data-delivery-soon`, the settings page) is shown with its
// answer a moment later: the page redraws every few seconds while one is on it.
let deliveriesTimer: ReturnType<typeof setTimeout> | null = null
function followDeliveries(): void {
  if (deliveriesTimer !== null || !document.querySelector('[data-delivery-soon]')) return
  deliveriesTimer = setTimeout(() => {
    deliveriesTimer = null
    void refresh()
  }, 2000)
}

/** Reads `text` out through the page's polite live region. */
function say(text: string): void {
  const region = document.getElementById('announce')
  if (!region) return
  region.textContent = ''
  // A fresh text node after clearing makes screen readers read a repeated message again.
  setTimeout(() => (region.textContent = text), 50)
}

/** What a form does after the API took its write (`data-done`). */
function done(form: HTMLFormElement, answer: Extract<ApiAnswer, { ok: true }>): void {
  const body = answer.body as { ticket?: { url?: string }; project?: { url?: string }; location?: string; token?: string; url?: string; secret?: string }
  switch (form.dataset.done) {
    case 'go': {
      const to = body.location ?? body.ticket?.url ?? body.project?.url ?? '/'
      location.assign(to + (form.dataset.then ?? ''))
      return
    }
    case 'reset':
      form.reset()
      for (const p of Array.from(form.querySelectorAll<HTMLElement>('[data-preview]'))) p.hidden = true
      for (const b of Array.from(form.querySelectorAll<HTMLElement>('[data-preview-for]'))) b.setAttribute('aria-pressed', 'false')
      break
    case 'reload':
      // The page redraws with what the server now holds; the form shows it, not what was typed.
      form.reset()
      form.closest('details')?.removeAttribute('open')
      break
    case 'secret': {
      // A new token, invite link or webhook secret: shown once, in the output next to the form.
      const out = document.getElementById(form.dataset.secret ?? '')
      const value = body.token ?? body.secret ?? body.url ?? ''
      if (out instanceof HTMLElement) {
        const field = out.querySelector<HTMLInputElement>('input')
        if (field) field.value = value
        out.hidden = false
        field?.focus()
        field?.select()
      }
      form.reset()
      break
    }
  }
  if (form.dataset.done !== 'go') void refresh()
}

document.addEventListener('submit', (event) => {
  const form = event.target
  if (!(form instanceof HTMLFormElement) || form.dataset.api === undefined) return
  event.preventDefault()
  const button = event.submitter instanceof HTMLButtonElement ? event.submitter : null
  if (button?.dataset.confirm && !window.confirm(button.dataset.confirm)) return
  void sender.send(domFormView(form), button && button.name ? { name: button.name, value: button.value } : null).then((answer) => {
    if (answer?.ok) done(form, answer)
  })
})

// A select marked `data-submit` sends its form when it changes (state, assignee, role).
document.addEventListener('change', (event) => {
  const target = event.target
  if (target instanceof HTMLSelectElement && target.dataset.submit !== undefined) target.form?.requestSubmit()
})

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest<HTMLElement>('[data-preview-for], [data-copy], [data-shortcuts-close]') : null
  if (!target) return
  if (target.dataset.previewFor !== undefined) togglePreview(target)
  else if (target.dataset.copy !== undefined) void copy(target)
  else (target.closest('dialog') as HTMLDialogElement | null)?.close()
})

function togglePreview(button: HTMLElement): void {
  const field = document.getElementById(button.dataset.previewFor!) as HTMLTextAreaElement | null
  const preview = document.querySelector<HTMLElement>(`[data-preview="${CSS.escape(button.dataset.previewFor!)}"]`)
  if (!field || !preview) return
  const showing = button.getAttribute('aria-pressed') === 'true'
  button.setAttribute('aria-pressed', String(!showing))
  preview.hidden = showing
  field.hidden = !showing
  if (!showing) preview.innerHTML = field.value.trim() === '' ? '<p class="muted">Nothing to preview.</p>' : markdownToHtml(field.value)
  else field.focus()
}

async function copy(button: HTMLElement): Promise<void> {
  const source = document.getElementById(button.dataset.copy!) as HTMLInputElement | null
  if (!source) return
  try {
    await navigator.clipboard.writeText(source.value)
    button.textContent = 'Copied'
  } catch {
    source.select()
    button.textContent = 'Press Ctrl+C to copy'
  }
}

const shortcuts = createShortcuts()
document.addEventListener('keydown', (event) => {
  const target = event.target
  // Ctrl+Enter (Cmd+Enter on a Mac) sends the form of the text box.
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && target instanceof HTMLTextAreaElement) {
    const form = target.form
    if (form?.dataset.api !== undefined) {
      event.preventDefault()
      form.requestSubmit()
    }
    return
  }
  const action = shortcuts.key({ key: event.key, ctrlKey: event.ctrlKey, altKey: event.altKey, metaKey: event.metaKey, typing: isTyping(target), time: event.timeStamp })
  if (action === null) return
  if (action === 'inbox') {
    location.assign('/inbox')
    return
  }
  if (action === 'help') {
    const dialog = document.getElementById('shortcuts') as HTMLDialogElement | null
    if (dialog && !dialog.open) {
      event.preventDefault()
      dialog.showModal()
    }
    return
  }
  const el = document.querySelector<HTMLElement>(action === 'search' ? '[data-shortcut="search"]' : '[data-shortcut="new-ticket"]')
  if (!el) return
  event.preventDefault()
  if (el instanceof HTMLAnchorElement) location.assign(el.href)
  else {
    const details = el.closest('details')
    if (details) details.open = true
    el.focus()
  }
})

// A redraw held back by a form in use happens once the person leaves it.
document.addEventListener('focusout', () => {
  if (!pendingRedraw) return
  setTimeout(() => {
    if (pendingRedraw) void refresh()
  }, 300)
})

/** Relative times (`<time data-relative datetime=…>`) say "5 minutes ago" and stay true. */
function startTimes(): void {
  const now = Date.now()
  for (const el of Array.from(document.querySelectorAll<HTMLTimeElement>('time[data-relative]'))) {
    const then = Date.parse(el.dateTime)
    if (!Number.isNaN(then)) el.textContent = relativeTime(then, now)
  }
}
setInterval(startTimes, 60_000)
followDeliveries()

if (live) {
  const follower = createLiveFollower({
    fetch: (input, init) => fetch(input, init),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    project: live.dataset.project ?? null,
    ticket: live.dataset.ticket ?? null,
    cursor: live.dataset.cursor ?? null,
    events: live.dataset.events?.split(' ') ?? null,
    onChange: (events) => refresh(announcement(events)),
  })
  void follower.run()
}
