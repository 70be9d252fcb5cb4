/**
 * The ticket picker of Parent and Blocked by: an ARIA 1.2 combobox (an input with a list box of
 * suggestions). As the person types, it searches the project's tickets by number (`3`, `#3`) or
 * by the words of their subjects and summaries, and lists up to eight; Arrow keys move through
 * them, Enter or a click puts the chosen ticket's reference in the field, Escape closes the
 * list. What the field sends is still whatever is typed: the list only helps.
 */
import { attachListbox } from './listbox.ts'

interface Suggestion {
  ref: string
  subject: string
  state: string
}

/**
 * The search (src/tickets/rules/query.ts) that finds tickets for what is typed, or null when the text
 * is already a reference to send as it is (`web#3`, an address) or is empty. Quotes and colons
 * are dropped so typed text is never read as a search key.
 */
export function pickerQuery(typed: string): string | null {
  const text = typed.trim()
  if (text === '') return null
  const number = /^#?\s*([0-9]{1,9})$/.exec(text)
  if (number) return `state:all #${number[1]}`
  if (/^[A-Za-z0-9-]+\s*#/.test(text) || /^https?:\/\//i.test(text)) return null
  const words = text.replace(/[":#]/g, ' ').trim()
  return words === '' ? null : `state:all ${words}`
}

/** Makes `input` (with `data-picker-search`, the project's list address) a combobox. */
export function attachTicketPicker(input: HTMLInputElement): void {
  const list = document.getElementById(input.getAttribute('aria-controls') ?? '')
  const search = input.dataset.pickerSearch
  if (!list || !search) return
  const self = input.dataset.pickerSelf ?? ''
  let asked = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const box = attachListbox<Suggestion>(input, list, {
    option(item, li) {
      const ref = document.createElement('b')
      ref.textContent = item.ref
      const subject = document.createElement('span')
      subject.textContent = ` ${item.subject}`
      const state = document.createElement('span')
      state.className = `state state-${item.state}`
      state.textContent = item.state
      li.append(ref, subject, ' ', state)
    },
    choose(item) {
      input.value = item.ref
      input.focus()
    },
  })
  const lookUp = async () => {
    const q = pickerQuery(input.value)
    const mine = ++asked
    if (q === null) return box.show([])
    try {
      const res = await fetch(`${search}?${new URLSearchParams({ q, limit: '8' })}`, {
        headers: { accept: 'application/json' },
      })
      if (mine !== asked || !res.ok) return
      const body = (await res.json()) as { tickets: Suggestion[] }
      box.show(body.tickets.filter((t) => t.ref !== self).slice(0, 8))
    } catch {
      // No suggestions when the network fails; typing a reference still works.
    }
  }

  input.addEventListener('input', () => {
    clearTimeout(timer)
    timer = setTimeout(() => void lookUp(), 150)
  })
}
