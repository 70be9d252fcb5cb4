/**
 * A form that writes through the API (src/tickets/app/api.ts). The form names its address in
 * `data-api`; its named fields become the JSON body. While the write runs the form is busy (a
 * second submit is ignored); a refusal is shown at the field it names (else above the button),
 * and what the person typed stays. The logic works on a {@link FormView}, so it is tested in
 * Node; {@link domFormView} is the browser's side.
 */
import type { ApiAnswer, ApiClient } from './api.ts'

/** A form's body: text fields, and lists gathered from ticked boxes. */
export type FormValues = Record<string, string | string[]>

/** What the logic needs from a form. */
export interface FormView {
  /** The write's address. */
  action(): string
  /** The body: named fields, with the button that sent it (`name=value`) when it has a name. */
  values(): FormValues
  /** Request headers the form sends: `If-Match` with the version an edit started from. */
  headers(): Record<string, string>
  /** The fields that can show their own error. */
  hasField(name: string): boolean
  setBusy(busy: boolean): void
  clearErrors(): void
  /** Shows `text` at `field`, or for the whole form when `field` is null. */
  showError(field: string | null, text: string): void
}

export interface FormSender {
  /** Sends the form once; answers the API's answer, or null when a write is already running. */
  send(
    view: FormView,
    submitter?: { name: string; value: string } | null,
  ): Promise<ApiAnswer | null>
}

export function createFormSender(deps: { api: ApiClient }): FormSender {
  const busy = new WeakSet<FormView>()
  return {
    async send(view, submitter) {
      if (busy.has(view)) return null
      busy.add(view)
      view.setBusy(true)
      view.clearErrors()
      try {
        const body = view.values()
        if (submitter && submitter.name !== '') body[submitter.name] = submitter.value
        const answer = await deps.api.post(view.action(), body, view.headers())
        // A conflicting edit: the page shows both versions (edit-conflict.ts), not an error.
        if (!answer.ok && answer.code !== 'edit_conflict')
          view.showError(
            answer.field !== null && view.hasField(answer.field) ? answer.field : null,
            answer.error,
          )
        return answer
      } finally {
        busy.delete(view)
        view.setBusy(false)
      }
    },
  }
}

/**
 * The browser's form: fields by `name` (a field marked `data-optional` is left out when empty;
 * ticked checkboxes marked `data-list` make a list under their name, left out when none is; a
 * checkbox marked `data-bool` sends "true" or "false");
 * a field's error goes in the element `[data-error-for="<name>"]`, the form's in `[data-error]`.
 */
export function domFormView(form: HTMLFormElement): FormView {
  const errorFor = (name: string) =>
    form.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(name)}"]`)
  return {
    action: () => form.dataset.api ?? '',
    values() {
      const out: FormValues = {}
      for (const el of Array.from(form.elements)) {
        if (!(
          el instanceof HTMLInputElement ||
          el instanceof HTMLTextAreaElement ||
          el instanceof HTMLSelectElement
        ))
          continue
        if (
          el.name === '' ||
          el.disabled ||
          (el instanceof HTMLInputElement && (el.type === 'submit' || el.type === 'button'))
        )
          continue
        if (
          el instanceof HTMLInputElement &&
          el.type === 'checkbox' &&
          el.dataset.list !== undefined
        ) {
          if (!el.checked) continue
          const list = out[el.name]
          out[el.name] = Array.isArray(list) ? [...list, el.value] : [el.value]
          continue
        }
        // A check box marked `data-bool` sends "true" or "false".
        if (
          el instanceof HTMLInputElement &&
          el.type === 'checkbox' &&
          el.dataset.bool !== undefined
        ) {
          out[el.name] = String(el.checked)
          continue
        }
        if (el.dataset.optional !== undefined && el.value.trim() === '') continue
        out[el.name] = el.value
      }
      return out
    },
    headers: (): Record<string, string> =>
      form.dataset.ifMatch ? { 'if-match': form.dataset.ifMatch } : {},
    hasField: (name) => errorFor(name) !== null,
    setBusy(busy) {
      form.setAttribute('aria-busy', String(busy))
      for (const button of Array.from(form.querySelectorAll('button'))) button.disabled = busy
    },
    clearErrors() {
      for (const el of Array.from(
        form.querySelectorAll<HTMLElement>('[data-error-for], [data-error]'),
      )) {
        el.textContent = ''
        el.hidden = true
      }
      for (const el of Array.from(form.querySelectorAll('[aria-invalid]')))
        el.removeAttribute('aria-invalid')
    },
    showError(field, text) {
      const place =
        (field === null ? null : errorFor(field)) ?? form.querySelector<HTMLElement>('[data-error]')
      if (place) {
        place.textContent = text
        place.hidden = false
      }
      const input =
        field === null ? null : form.querySelector<HTMLElement>(`[name="${CSS.escape(field)}"]`)
      if (input) {
        input.setAttribute('aria-invalid', 'true')
        input.focus()
      }
    },
  }
}
