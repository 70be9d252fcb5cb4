/**
 * A conflicting edit of a ticket (docs/tickets-app.md, "Editing at the same time"): the edit form
 * sends the version it started from in `If-Match`; when someone saved in between, the API answers
 * 412 and this reads the ticket as it is now. When its subject and summary are still the ones the
 * form started from (only a comment or a state change came in between), the edit is sent again
 * against the new version. Otherwise the form shows both texts side by side with "Keep mine",
 * "Keep theirs" and an editable merge, and from then on saves against the version it showed.
 */
import { combined } from '../text/text-diff.ts'

interface TicketRead {
  ticket: { subject: string; summary: string }
  events: { kind: string; by: string }[]
}

interface EditFields {
  subject: HTMLInputElement
  summary: HTMLTextAreaElement
  merge: HTMLTextAreaElement
  panel: HTMLElement
}

function fieldsOf(form: HTMLFormElement): EditFields | null {
  const subject = form.querySelector<HTMLInputElement>('input[name="subject"]')
  const summary = form.querySelector<HTMLTextAreaElement>('textarea[name="summary"]')
  const merge = form.querySelector<HTMLTextAreaElement>('#edit-merge')
  const panel = form.querySelector<HTMLElement>('[data-conflict]')
  return subject && summary && merge && panel ? { subject, summary, merge, panel } : null
}

/** After a 412: sends again when nothing of the text changed, else shows the conflict. */
export async function resolveStaleEdit(form: HTMLFormElement): Promise<void> {
  const fields = fieldsOf(form)
  const read = form.dataset.read
  if (!fields || !read) return
  const res = await fetch(read, { headers: { accept: 'application/json' }, cache: 'no-store' })
  const etag = res.headers.get('etag')
  if (!res.ok || etag === null) return
  const current = (await res.json()) as TicketRead
  const theirs = current.ticket
  const base = { subject: fields.subject.defaultValue, summary: fields.summary.defaultValue }
  const mine = { subject: fields.subject.value, summary: fields.summary.value }
  form.dataset.ifMatch = etag
  // What the person did not change takes the other version's text.
  fields.subject.defaultValue = theirs.subject
  fields.summary.defaultValue = theirs.summary
  fields.subject.value = mine.subject === base.subject ? theirs.subject : mine.subject
  fields.summary.value = mine.summary === base.summary ? theirs.summary : mine.summary
  if (theirs.subject === base.subject && theirs.summary === base.summary) {
    form.requestSubmit()
    return
  }
  const by = [...current.events].reverse().find((e) => e.kind === 'edit')?.by
  setText(form, '[data-theirs-by]', by ? ` (saved by ${by})` : '')
  setText(form, '[data-theirs-subject]', theirs.subject)
  setText(form, '[data-theirs-summary]', theirs.summary)
  setText(form, '[data-mine-subject]', mine.subject)
  setText(form, '[data-mine-summary]', mine.summary)
  fields.merge.value = combined(theirs.summary, mine.summary)
  fields.panel.hidden = false
  form.querySelector<HTMLElement>('[data-edit-save]')?.setAttribute('hidden', '')
  const heading = fields.panel.querySelector<HTMLElement>('h3')
  heading?.setAttribute('tabindex', '-1')
  heading?.focus()
}

/**
 * One of the conflict's buttons: "Keep mine" and "Save merge" send the form (against the version
 * shown), "Keep theirs" puts their text back in the form; answers whether the form was closed.
 */
export function chooseVersion(form: HTMLFormElement, choice: string): boolean {
  const fields = fieldsOf(form)
  if (!fields) return false
  if (choice === 'theirs') {
    fields.subject.value = fields.subject.defaultValue
    fields.summary.value = fields.summary.defaultValue
    endConflict(form, fields)
    form.closest('details')?.removeAttribute('open')
    return true
  }
  if (choice === 'mine') {
    fields.subject.value =
      form.querySelector('[data-mine-subject]')?.textContent ?? fields.subject.value
    fields.summary.value =
      form.querySelector('[data-mine-summary]')?.textContent ?? fields.summary.value
  } else if (choice === 'merge') fields.summary.value = fields.merge.value
  form.requestSubmit()
  return false
}

/** Hides the conflict part once the form is saved or given up. */
export function endConflict(form: HTMLFormElement, fields = fieldsOf(form)): void {
  if (!fields) return
  fields.panel.hidden = true
  form.querySelector<HTMLElement>('[data-edit-save]')?.removeAttribute('hidden')
}

function setText(root: Element, selector: string, text: string): void {
  const el = root.querySelector(selector)
  if (el) el.textContent = text
}
