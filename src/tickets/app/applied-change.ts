/**
 * State and assignee apply when chosen (docs/tickets-app.md, "State and assignee"): the select's
 * form (`data-done="applied"`) is sent on change, choosing the value it already has sends
 * nothing, and after the change a notice says what happened with **Undo**, which sends the
 * previous value back. A refusal because the ticket already had the chosen value (someone else
 * chose it first) is no error: the page is only brought up to date.
 */

/** The select of an applied form and the value the page drew it with. */
export function appliedSelect(
  form: HTMLFormElement,
): { select: HTMLSelectElement; drawn: string; label: string } | null {
  const select = form.querySelector('select')
  if (!select) return null
  const drawn =
    Array.from(select.options).find((o) => o.defaultSelected)?.value ??
    select.options[0]?.value ??
    ''
  return { select, drawn, label: select.selectedOptions[0]?.textContent ?? select.value }
}

/** Marks the chosen value as the one the page now shows, so the form is no longer "in use". */
export function settle(select: HTMLSelectElement): void {
  for (const o of Array.from(select.options)) o.defaultSelected = o.selected
}

/** True when the ticket, read again, already has what `form` chose. */
export async function alreadyChosen(form: HTMLFormElement, value: string): Promise<boolean> {
  const read = form.dataset.read
  if (!read) return false
  const res = await fetch(read, { headers: { accept: 'application/json' }, cache: 'no-store' })
  if (!res.ok) return false
  const { ticket } = (await res.json()) as {
    ticket: { state: string; assignee: { id: string } | null }
  }
  return form.dataset.api?.endsWith('/state')
    ? ticket.state === value
    : (ticket.assignee?.id ?? '') === value
}

let current: { el: HTMLElement; timer: ReturnType<typeof setTimeout> } | null = null

/**
 * Shows `text` in the notice at the bottom of the page for ten seconds, with an **Undo** button
 * when `undo` is given. One notice at a time: a new one replaces the last.
 */
export function showNotice(text: string, undo?: () => void): void {
  if (current) {
    clearTimeout(current.timer)
    current.el.remove()
  }
  const el = document.createElement('div')
  el.className = 'toast'
  const words = document.createElement('span')
  words.textContent = text
  el.append(words)
  if (undo) {
    const button = document.createElement('button')
    button.type = 'button'
    button.textContent = 'Undo'
    button.addEventListener('click', () => {
      close()
      undo()
    })
    el.append(button)
  }
  const close = () => {
    if (current?.el === el) {
      clearTimeout(current.timer)
      current = null
    }
    el.remove()
  }
  document.body.append(el)
  current = { el, timer: setTimeout(close, 10_000) }
}
