/**
 * Bulk changes on a project's list (docs/tickets-app.md, "Bulk changes"): the rows' checkboxes
 * (Shift-click selects the range from the last one clicked), the bar that counts them and offers
 * **Select all N matching** once every row of the page is selected, and **Apply**, which sends
 * the change to `POST /api/projects/<slug>/tickets/bulk` and offers one **Undo** for all of it.
 */
import type { ApiClient } from './api.ts'
import { selectAllWords } from '../text/page-words.ts'

/**
 * The checkboxes after a click on the one at `index` (already toggled to `checked[index]`): with
 * Shift and an earlier click at `anchor`, every box between the two takes the clicked one's state.
 */
export function rangeSelect(
  checked: readonly boolean[],
  anchor: number | null,
  index: number,
  shift: boolean,
): boolean[] {
  const next = [...checked]
  if (!shift || anchor === null || anchor === index || anchor >= checked.length) return next
  const [from, to] = anchor < index ? [anchor, index] : [index, anchor]
  for (let i = from; i <= to; i++) next[i] = checked[index]!
  return next
}

/** What the bar says a change did: "Set 3 tickets to done.", "Assigned 1 ticket to bob.". */
export function changedWords(n: number, field: string, label: string): string {
  const tickets = n === 1 ? '1 ticket' : `${n.toLocaleString('en-US')} tickets`
  if (n === 0) return 'Nothing changed: the tickets already had that.'
  switch (field) {
    case 'state':
      return `Set ${tickets} to ${label}.`
    case 'addLabel':
      return `Added the label ${label} to ${tickets}.`
    case 'removeLabel':
      return `Took the label ${label} off ${tickets}.`
    case 'milestone':
      return label === ''
        ? `Took ${tickets} out of their milestone.`
        : `Put ${tickets} in ${label}.`
    default:
      return label === 'Nobody' ? `Unassigned ${tickets}.` : `Assigned ${tickets} to ${label}.`
  }
}

export interface BulkDeps {
  api: ApiClient
  /** GETs a count's address (`data-count`): how many tickets the search finds; null on a failure. */
  count(url: string): Promise<{ count: number; more: boolean } | null>
  say(text: string): void
  notice(text: string, undo?: () => void): void
  refresh(): Promise<void>
}

export interface BulkSelection {
  /** The ticket numbers selected, to select again after the list is redrawn. */
  picked(): string[]
  /** Selects `numbers` again where their rows still are, and brings the bar up to date. */
  restore(numbers: readonly string[]): void
}

export function startBulk(deps: BulkDeps): BulkSelection {
  const bar = () => document.querySelector<HTMLFormElement>('form[data-bulk]')
  const boxes = () => Array.from(document.querySelectorAll<HTMLInputElement>('input[data-pick]'))
  let anchor: number | null = null
  /** Every ticket the search finds is selected, not only the page's. */
  let all = false

  /** The bar whose count is being asked for, so it is asked once. */
  let asking: HTMLFormElement | null = null

  /**
   * Asks how many tickets a list of more than one page finds, once its whole page is ticked;
   * the answer goes in the bar (`data-matching`, the button's words). A bar drawn again by a live
   * update has neither, and is asked again when it needs it.
   */
  async function askCount(form: HTMLFormElement): Promise<void> {
    if (asking === form) return
    asking = form
    const answer = await deps.count(form.dataset.count!)
    if (asking === form) asking = null
    if (answer === null || !form.isConnected) return
    const { text, tooMany } = selectAllWords(answer)
    const button = form.querySelector<HTMLButtonElement>('[data-select-all]')!
    button.textContent = text
    button.disabled = tooMany
    form.dataset.matching = String(answer.count)
    update()
  }

  function update(): void {
    const form = bar()
    if (!form) return
    const list = boxes()
    const n = list.filter((b) => b.checked).length
    if (n < list.length) all = false
    if (n === list.length && form.dataset.matching === undefined && form.dataset.count)
      void askCount(form)
    const matching = Number(form.dataset.matching ?? '0')
    form.hidden = n === 0
    const count = form.querySelector<HTMLElement>('[data-bulk-count]')!
    count.textContent = all
      ? `All ${matching.toLocaleString('en-US')} matching selected`
      : `${n} selected`
    const selectAll = form.querySelector<HTMLButtonElement>('[data-select-all]')!
    selectAll.hidden = all || n < list.length || matching <= list.length
  }

  document.addEventListener('click', (event) => {
    const target = event.target
    if (target instanceof HTMLInputElement && target.dataset.pick !== undefined) {
      const list = boxes()
      const index = list.indexOf(target)
      const next = rangeSelect(
        list.map((b) => b.checked),
        anchor,
        index,
        event.shiftKey,
      )
      list.forEach((b, i) => (b.checked = next[i]!))
      anchor = index
      update()
      return
    }
    if (!(target instanceof Element)) return
    if (target.closest('[data-select-all]')) {
      all = true
      update()
      deps.say(bar()?.querySelector('[data-bulk-count]')?.textContent ?? '')
    } else if (target.closest('[data-bulk-clear]')) {
      for (const b of boxes()) b.checked = false
      all = false
      anchor = null
      update()
    }
  })

  document.addEventListener('submit', (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || form.dataset.bulk === undefined) return
    event.preventDefault()
    void apply(form)
  })

  async function apply(form: HTMLFormElement): Promise<void> {
    const select = form.querySelector<HTMLSelectElement>('select[name="change"]')!
    const [field, ...rest] = select.value.split(':')
    const value = rest.join(':')
    // The words of the change: the option's, or the label's or milestone's own name.
    const label =
      field === 'addLabel' || field === 'removeLabel' || field === 'milestone'
        ? value
        : (select.selectedOptions[0]?.textContent ?? value)
    const numbers = boxes()
      .filter((b) => b.checked)
      .map((b) => b.value)
    const body: Record<string, string> = all
      ? { q: form.dataset.q ?? '' }
      : { q: 'state:all', numbers: numbers.join(',') }
    body[field!] = value
    const error = form.querySelector<HTMLElement>('[data-error]')!
    error.hidden = true
    form.setAttribute('aria-busy', 'true')
    const answer = await deps.api.post(form.dataset.bulk!, body)
    form.removeAttribute('aria-busy')
    if (!answer.ok) {
      error.textContent = answer.error
      error.hidden = false
      return
    }
    const changed = Number(answer.body.changed)
    const undo = answer.body.undo as string | null
    const text = changedWords(changed, field!, label)
    for (const b of boxes()) b.checked = false
    all = false
    anchor = null
    update()
    deps.say(text)
    deps.notice(
      text,
      undo
        ? () => {
            void (async () => {
              const back = await deps.api.post(form.dataset.bulk!, { undo })
              deps.say(back.ok ? 'Undone.' : back.error)
              if (!back.ok) deps.notice(back.error)
              await deps.refresh()
            })()
          }
        : undefined,
    )
    await deps.refresh()
  }

  return {
    picked: () =>
      boxes()
        .filter((b) => b.checked)
        .map((b) => b.value),
    restore(numbers) {
      const keep = new Set(numbers)
      for (const b of boxes()) b.checked = keep.has(b.value)
      update()
    },
  }
}
