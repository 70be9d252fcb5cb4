/**
 * The ticket pages' script, bundled for the browser: it adds behaviour to server-rendered HTML
 * and never draws a page itself. Forms marked `data-api` write through the JSON API
 * (src/tickets/app/form.ts); text boxes with a preview show their Markdown; Ctrl+Enter sends;
 * shortcuts (src/tickets/app/shortcuts.ts); relative times stay fresh; and a page with a live
 * part follows events (src/tickets/app/live.ts), redraws in place (src/tickets/app/redraw.ts)
 * and announces what changed in its `aria-live` region.
 */
import { createApiClient, type ApiAnswer } from './api.ts'
import { alreadyChosen, appliedSelect, settle, showNotice } from './applied-change.ts'
import { clearUploads, startAttaching, uploading } from './attach.ts'
import { overLimit, STILL_UPLOADING } from '../text/page-words.ts'
import { chooseVersion, endConflict, resolveStaleEdit } from './edit-conflict.ts'
import { createFormSender, domFormView } from './form.ts'
import { createLiveFollower, announcement } from './live.ts'
import { markdownToHtml } from './markdown-html.ts'
import { redraw } from './redraw.ts'
import { relativeTime } from './relative-time.ts'
import { createShortcuts, isTyping } from './shortcuts.ts'
import { attachTicketPicker } from './ticket-picker.ts'
import {
  attachLabelPicker,
  chipElement,
  newLabelColor,
  paintChips,
  type LabelChoice,
} from './label-picker.ts'
import { attachMentions } from './mention-picker.ts'
import { startBoard } from './board.ts'
import { startBulk } from './bulk.ts'

const tag = document.querySelector<HTMLMetaElement>('meta[name="x-tag"]')?.content ?? ''
const api = createApiClient({ fetch: (input, init) => fetch(input, init), tag })
const sender = createFormSender({ api })
startAttaching(tag)
const board = startBoard({ api, say, notice: showNotice, refresh: () => refresh() })
const bulk = startBulk({ api, say, notice: showNotice, refresh: () => refresh(), count: askCount })

/** `GET` of a bulk bar's count (`{ count, more }`); null when it fails, and the bar asks again later. */
async function askCount(url: string): Promise<{ count: number; more: boolean } | null> {
  try {
    const res = await fetch(url, { headers: { accept: 'application/json' } })
    if (!res.ok) return null
    const body = (await res.json()) as { count?: unknown; more?: unknown }
    return typeof body.count === 'number' && typeof body.more === 'boolean'
      ? { count: body.count, more: body.more }
      : null
  } catch {
    return null
  }
}
const live = document.querySelector<HTMLElement>('main[data-cursor]')
let pendingRedraw = false

/** Fetches the page again and swaps in what changed; `events` are announced. */
async function refresh(announce = ''): Promise<void> {
  // A card being carried or dragged on the board keeps the board as it is until it is dropped.
  if (board.busy()) {
    pendingRedraw = true
    if (announce !== '') say(announce)
    return
  }
  const res = await fetch(location.pathname + location.search, {
    headers: { accept: 'text/html' },
    cache: 'no-store',
  })
  if (!res.ok) return
  const latest = new DOMParser().parseFromString(await res.text(), 'text/html')
  const picked = bulk.picked()
  const heldBack = redraw(document, latest)
  bulk.restore(picked)
  pendingRedraw = heldBack.length > 0
  const root = document.documentElement
  root.dataset.redrawn = String(Number(root.dataset.redrawn ?? 0) + 1)
  startTimes()
  paintChips(document)
  followDeliveries()
  if (announce !== '') say(announce)
}

/** Fetches the page again and takes only the bell's count from it. */
async function refreshBell(): Promise<void> {
  const res = await fetch(location.pathname + location.search, {
    headers: { accept: 'text/html' },
    cache: 'no-store',
  })
  if (!res.ok) return
  const latest = new DOMParser().parseFromString(await res.text(), 'text/html')
  for (const name of ['bell-count', 'bell-count-text']) {
    const here = document.querySelector(`[data-live="${name}"]`)
    const there = latest.querySelector(`[data-live="${name}"]`)
    if (here && there && here.innerHTML !== there.innerHTML) here.innerHTML = there.innerHTML
  }
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
function done(
  form: HTMLFormElement,
  answer: Extract<ApiAnswer, { ok: true }>,
  button: HTMLButtonElement | null,
): void {
  const body = answer.body as {
    ticket?: { url?: string }
    project?: { url?: string }
    location?: string
    token?: string
    url?: string
    id?: string
    secret?: string
  }
  // A revoked token's secret, if it is the one still shown to copy, is taken off the page.
  if (form.dataset.api === '/api/tokens/revoke' && button?.value) {
    for (const shown of Array.from(
      document.querySelectorAll<HTMLElement>(`[data-token-id="${CSS.escape(button.value)}"]`),
    )) {
      const field = shown.querySelector('input')
      if (field) field.value = ''
      shown.hidden = true
      delete shown.dataset.tokenId
    }
  }
  switch (form.dataset.done) {
    case 'go': {
      const to = body.location ?? body.ticket?.url ?? body.project?.url ?? '/'
      const go = () => location.assign(to + (form.dataset.then ?? ''))
      const ticket = body.ticket as { id?: string } | undefined
      const chosen = chosenLabels(form)
      if (chosen.length === 0 || !ticket?.id) go()
      else void giveLabels(ticket.id, chosen).then(go)
      return
    }
    case 'reset':
      form.reset()
      clearUploads(form)
      for (const p of Array.from(form.querySelectorAll<HTMLElement>('[data-preview]')))
        p.hidden = true
      for (const b of Array.from(form.querySelectorAll<HTMLElement>('[data-preview-for]')))
        b.setAttribute('aria-pressed', 'false')
      break
    case 'reload':
      // The page redraws with what the server now holds; the form shows it, not what was typed.
      endConflict(form)
      form.reset()
      clearUploads(form)
      // The Edit panel folds once saved; the ticket's folded details (a phone's) stay open for the next change.
      form.closest('details.panel')?.removeAttribute('open')
      break
    case 'secret': {
      // A new token, invite link or webhook secret: shown once, in the output next to the form.
      const out = document.getElementById(form.dataset.secret ?? '')
      const value = body.token ?? body.secret ?? body.url ?? ''
      if (out instanceof HTMLElement) {
        if (body.token !== undefined && body.id !== undefined) out.dataset.tokenId = body.id
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

/** The labels gathered in a new-ticket form's picker, by name. */
function chosenLabels(form: HTMLFormElement): string[] {
  return Array.from(form.querySelectorAll<HTMLElement>('[data-label-chosen] [data-label]')).map(
    (li) => li.dataset.label!,
  )
}

/** Gives a new ticket its labels, one request each; a refusal is shown on the ticket's page after. */
async function giveLabels(ticketId: string, names: readonly string[]): Promise<void> {
  for (const name of names) await api.post(`/api/tickets/${ticketId}/labels`, { add: name })
}

/**
 * Creates the label `name` for an admin's picker (`data-label-create`, the project's labels
 * address); true when it exists now. A refusal is shown at the picker's form.
 */
async function createLabel(input: HTMLInputElement, name: string): Promise<boolean> {
  const made = await api.post(input.dataset.labelCreate!, { name, color: newLabelColor(name) })
  if (made.ok || (made.code === 'label_taken' && input.form)) return true
  if (input.form) {
    const view = domFormView(input.form)
    view.clearErrors()
    view.showError(null, made.error)
  }
  return false
}

/** What choosing a label does: on the ticket page it is added at once; in the new-ticket form it joins the chosen ones. */
async function labelChosen(input: HTMLInputElement, choice: LabelChoice): Promise<void> {
  if (choice.kind === 'create' && !(await createLabel(input, choice.name))) return
  const form = input.form
  if (!form) return
  if (form.dataset.labelForm !== undefined) {
    // Sent here rather than through the form, so that the Labels box, which the field is in,
    // redraws at once instead of waiting for the person to leave it; the field has focus again after.
    const view = domFormView(form)
    view.clearErrors()
    const added = await api.post(form.dataset.api!, { add: choice.name })
    if (!added.ok) return view.showError(added.field, added.error)
    input.value = ''
    input.blur()
    await refresh(`Label ${choice.name} added.`)
    document.getElementById(input.id)?.focus()
    return
  }
  const chosen = form.querySelector<HTMLElement>('[data-label-chosen]')
  if (!chosen || chosenLabels(form).some((n) => n.toLowerCase() === choice.name.toLowerCase()))
    return
  const li = document.createElement('li')
  li.dataset.label = choice.name
  const remove = document.createElement('button')
  remove.type = 'button'
  remove.className = 'link'
  remove.textContent = 'Remove'
  remove.setAttribute('aria-label', `Remove label ${choice.name}`)
  remove.addEventListener('click', () => {
    li.remove()
    input.focus()
  })
  li.append(
    chipElement(choice.name, choice.kind === 'label' ? choice.color : newLabelColor(choice.name)),
    remove,
  )
  chosen.append(li)
  input.value = ''
  say(`Label ${choice.name} chosen.`)
}

/** The labels a picker leaves out: the ticket's own, or those already chosen. */
function takenLabels(input: HTMLInputElement): string[] {
  if (input.form?.dataset.labelForm === undefined) return input.form ? chosenLabels(input.form) : []
  try {
    return JSON.parse(input.dataset.labelTaken ?? '[]') as string[]
  } catch {
    return []
  }
}

/**
 * After a state or assignee was applied: the select keeps its new value, a notice offers Undo
 * (which sends the previous value back, and the previous assignee when the state change assigned
 * someone), and the page is brought up to date.
 */
function afterApplied(
  form: HTMLFormElement,
  applied: NonNullable<ReturnType<typeof appliedSelect>>,
  answer: Extract<ApiAnswer, { ok: true }>,
): void {
  settle(applied.select)
  const path = form.dataset.api!
  const isState = path.endsWith('/state')
  const previous = applied.drawn
  const assignEvent = answer.body.assignEvent as { from: { id: string } | null } | undefined
  const text = isState
    ? `State changed to ${applied.select.value}.`
    : applied.select.value === ''
      ? 'Unassigned.'
      : `Assigned to ${applied.label}.`
  say(text)
  showNotice(text, () => {
    void (async () => {
      const back = await api.post(path, isState ? { state: previous } : { assignee: previous })
      // The select shows the value given back, even while the person is still on it.
      const select = document.getElementById(applied.select.id)
      if (back.ok && select instanceof HTMLSelectElement) {
        select.value = previous
        settle(select)
      }
      if (back.ok && assignEvent)
        await api.post(path.replace(/\/state$/, '/assign'), {
          assignee: assignEvent.from?.id ?? '',
        })
      say(back.ok ? 'Undone.' : back.error)
      if (!back.ok) showNotice(back.error)
      await refresh()
    })()
  })
  void refresh()
}

/** The message for a field over its length limit (`data-max`), or null. */
function overBy(field: HTMLInputElement | HTMLTextAreaElement): string | null {
  const max = Number(field.dataset.max)
  return field.value.length > max
    ? overLimit(field.dataset.what ?? 'this', field.value.length, max)
    : null
}

// A field over its limit says so as soon as it is, not after a refused save; typing in a field
// takes away what was said about it before.
document.addEventListener('input', (event) => {
  const field = event.target
  if (
    !(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) ||
    !field.form ||
    field.name === ''
  )
    return
  const place = field.form.querySelector<HTMLElement>(
    `[data-error-for="${CSS.escape(field.name)}"]`,
  )
  if (!place) return
  const message = field.dataset.max !== undefined ? overBy(field) : null
  place.textContent = message ?? ''
  place.hidden = message === null
  if (message === null) field.removeAttribute('aria-invalid')
  else field.setAttribute('aria-invalid', 'true')
})

document.addEventListener('submit', (event) => {
  const form = event.target
  if (!(form instanceof HTMLFormElement) || form.dataset.api === undefined) return
  event.preventDefault()
  const button = event.submitter instanceof HTMLButtonElement ? event.submitter : null
  if (button?.dataset.confirm && !window.confirm(button.dataset.confirm)) return
  const applied = form.dataset.done === 'applied' ? appliedSelect(form) : null
  // Choosing the value the ticket already has changes nothing, so nothing is sent.
  if (applied && applied.select.value === applied.drawn) return
  const shown = domFormView(form)
  // An applied change's refusal waits until it is known not to be "already so" (a 400 because
  // someone else chose the same value first), which is no error.
  let held: [string | null, string] | null = null
  const view = applied
    ? { ...shown, showError: (field: string | null, text: string) => void (held = [field, text]) }
    : shown
  // A link still on its way would be missing from what is sent.
  if (uploading(form)) {
    shown.clearErrors()
    shown.showError(null, STILL_UPLOADING)
    return
  }
  const over = Array.from(
    form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('[data-max]'),
  ).find((f) => !f.disabled && overBy(f) !== null)
  if (over) {
    shown.clearErrors()
    shown.showError(over.name, overBy(over)!)
    return
  }
  // A field that must not be blank says so itself, and nothing is sent.
  const blank = Array.from(
    form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('[data-not-blank]'),
  ).find((f) => !f.disabled && f.value.trim() === '')
  if (blank) {
    shown.clearErrors()
    shown.showError(blank.name, blank.dataset.notBlank!)
    return
  }
  void sender
    .send(view, button && button.name ? { name: button.name, value: button.value } : null)
    .then((answer) => {
      if (answer?.ok) {
        if (applied) afterApplied(form, applied, answer)
        else done(form, answer, button)
      } else if (answer?.ok === false && answer.code === 'edit_conflict')
        void resolveStaleEdit(form)
      else if (applied && held) {
        const [field, text] = held
        void (
          answer?.ok === false && answer.code === 'already_so'
            ? alreadyChosen(form, applied.select.value)
            : Promise.resolve(false)
        ).then((yes) => {
          if (!yes) return shown.showError(field, text)
          settle(applied.select)
          void refresh()
        })
      }
    })
})

// The bar's menus (projects, the person's) close on a click elsewhere and on Escape, as menus do.
document.addEventListener('click', (event) => {
  for (const menu of Array.from(
    document.querySelectorAll<HTMLDetailsElement>('details.switcher[open]'),
  )) {
    if (!menu.contains(event.target as Node)) menu.open = false
  }
})
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return
  for (const menu of Array.from(
    document.querySelectorAll<HTMLDetailsElement>('details.switcher[open]'),
  )) {
    menu.open = false
    menu.querySelector('summary')?.focus()
  }
})

// The ticket's details are folded into one line on a narrow screen only; on a wide one the
// stylesheet shows them whole, and where a browser cannot, opening them does. A window that
// becomes narrow folds them again.
const wide = window.matchMedia('(min-width: 52.0625rem)')
const unfoldWhenWide = () => {
  for (const d of Array.from(document.querySelectorAll<HTMLDetailsElement>('details.side-details')))
    d.open = wide.matches
}
unfoldWhenWide()
wide.addEventListener('change', unfoldWhenWide)

// Parent and Blocked by suggest tickets as the person types. A redraw replaces the inputs, so
// the picker attaches on first focus of each.
document.addEventListener('focusin', (event) => {
  const target = event.target
  if (
    target instanceof HTMLInputElement &&
    target.dataset.pickerSearch !== undefined &&
    target.dataset.pickerOn === undefined
  ) {
    target.dataset.pickerOn = ''
    attachTicketPicker(target)
  }
  if (
    target instanceof HTMLInputElement &&
    target.dataset.labelPicker !== undefined &&
    target.dataset.pickerOn === undefined
  ) {
    target.dataset.pickerOn = ''
    attachLabelPicker(
      target,
      () => takenLabels(target),
      (choice) => void labelChosen(target, choice),
    )
  }
})

// Every text area of a project's pages suggests the project's members after `@`; attached on
// first focus, as a redraw replaces the text areas.
document.addEventListener('focusin', (event) => {
  const target = event.target
  const slug = live?.dataset.project
  if (target instanceof HTMLTextAreaElement && slug && target.dataset.mentionsOn === undefined) {
    target.dataset.mentionsOn = ''
    attachMentions(target, slug)
  }
})

// A select marked `data-submit` sends its form when it changes (state, assignee, role).
document.addEventListener('change', (event) => {
  const target = event.target
  if (target instanceof HTMLSelectElement && target.dataset.submit !== undefined)
    target.form?.requestSubmit()
})

document.addEventListener('click', (event) => {
  const target =
    event.target instanceof Element
      ? event.target.closest<HTMLElement>(
          '[data-preview-for], [data-copy], [data-shortcuts-close], [data-resolve]',
        )
      : null
  if (!target) return
  if (target.dataset.resolve !== undefined) {
    const form = target.closest('form')
    if (form && chooseVersion(form, target.dataset.resolve)) void refresh()
  } else if (target.dataset.previewFor !== undefined) togglePreview(target)
  else if (target.dataset.copy !== undefined) void copy(target)
  else target.closest('dialog')?.close()
})

function togglePreview(button: HTMLElement): void {
  const field = document.getElementById(button.dataset.previewFor!) as HTMLTextAreaElement | null
  const preview = document.querySelector<HTMLElement>(
    `[data-preview="${CSS.escape(button.dataset.previewFor!)}"]`,
  )
  if (!field || !preview) return
  const showing = button.getAttribute('aria-pressed') === 'true'
  button.setAttribute('aria-pressed', String(!showing))
  preview.hidden = showing
  field.hidden = !showing
  if (!showing)
    preview.innerHTML =
      field.value.trim() === ''
        ? '<p class="muted">Nothing to preview.</p>'
        : markdownToHtml(field.value)
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
  if (
    event.key === 'Enter' &&
    (event.ctrlKey || event.metaKey) &&
    target instanceof HTMLTextAreaElement
  ) {
    const form = target.form
    if (form?.dataset.api !== undefined) {
      event.preventDefault()
      form.requestSubmit()
    }
    return
  }
  const action = shortcuts.key({
    key: event.key,
    ctrlKey: event.ctrlKey,
    altKey: event.altKey,
    metaKey: event.metaKey,
    typing: isTyping(target),
    time: event.timeStamp,
  })
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
  const el = document.querySelector<HTMLElement>(
    action === 'search' ? '[data-shortcut="search"]' : '[data-shortcut="new-ticket"]',
  )
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
paintChips(document)
followDeliveries()

if (live) {
  const follower = createLiveFollower({
    fetch: (input, init) => fetch(input, init),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    project: live.dataset.project ?? null,
    ticket: live.dataset.ticket ?? null,
    cursor: live.dataset.cursor ?? null,
    events: live.dataset.events?.split(' ') ?? null,
    mine: tag !== '',
    onChange: (events) => {
      // A refusal about who may be added ("no user 'carol' has logged in here") may no longer
      // hold once the members changed.
      if (events.some((e) => e.name === 'membersChanged')) {
        for (const form of Array.from(
          document.querySelectorAll<HTMLFormElement>('form[data-api$="/members"]'),
        ))
          domFormView(form).clearErrors()
      }
      // Only the person's own notifications changed: the bell is redrawn, the rest of the page
      // (and what it marks as changed) stays, except on the notifications page itself.
      if (
        events.every((e) => e.name === 'notificationsChanged') &&
        location.pathname !== '/notifications'
      )
        return refreshBell()
      return refresh(announcement(events))
    },
  })
  void follower.run()
}
