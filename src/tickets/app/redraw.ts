/**
 * Redrawing a page in place from the latest copy of itself: each element marked `data-live="<name>"`
 * takes the content of its namesake in the latest copy, except one holding a form the person is
 * using (focus inside, or a field changed from what the page drew), which stays as it is until
 * the next redraw. Items marked `data-key` that are new or changed get the class `changed` for a
 * few seconds, which the stylesheet shows as a brief highlight. A `<details>` the person opened
 * (an edit's **Show changes**) is open again after the redraw.
 */
import { changedKeys } from './live.ts'

/** How long a changed item stays marked. */
export const MARK_MS = 4000

/** True when a person is using a form inside `region`: focus in one of its fields, or a field they changed. */
export function inUse(region: Element, active: Element | null): boolean {
  if (active && region.contains(active) && active.matches('input, textarea, select')) return true
  for (const field of Array.from(region.querySelectorAll('input, textarea, select'))) {
    if (
      field instanceof HTMLInputElement &&
      !['checkbox', 'radio', 'hidden', 'submit', 'button'].includes(field.type)
    ) {
      if (field.value !== field.defaultValue) return true
    } else if (field instanceof HTMLTextAreaElement) {
      if (field.value !== field.defaultValue) return true
    } else if (field instanceof HTMLSelectElement) {
      if (Array.from(field.options).some((o) => o.selected !== o.defaultSelected)) return true
    }
  }
  return false
}

/**
 * What an item says, for telling whether it changed: its markup without the page's own marks
 * (the `changed` highlight) and without relative times' words, which the page refreshes by the
 * clock while the ticket stays the same (the time itself is in `datetime`).
 */
export function signature(item: Element): string {
  const copy = item.cloneNode(true) as Element
  for (const el of [copy, ...Array.from(copy.querySelectorAll('.changed'))]) {
    el.classList.remove('changed')
    if (el.getAttribute('class') === '') el.removeAttribute('class')
  }
  for (const time of Array.from(copy.querySelectorAll('time[data-relative]'))) time.textContent = ''
  // Whether the person opened a fold is theirs, not a change of the item.
  for (const fold of Array.from(copy.querySelectorAll('details'))) fold.removeAttribute('open')
  return copy.outerHTML
}

/**
 * Where a `<details>` of `region` is, as the same one is found again in a redrawn copy: the key
 * of the item it is in (none outside items) and its place among that item's folds.
 */
function placeOf(region: Element, fold: Element): string {
  const found = fold.parentElement?.closest<HTMLElement>('[data-key]')
  const item = found && region.contains(found) ? found : null
  const folds = Array.from((item ?? region).querySelectorAll('details'))
  return `${item?.dataset.key ?? ''}#${folds.indexOf(fold as HTMLDetailsElement)}`
}

function keyed(root: Element): Map<string, string> {
  const map = new Map<string, string>()
  for (const el of Array.from(root.querySelectorAll<HTMLElement>('[data-key]')))
    map.set(el.dataset.key!, signature(el))
  return map
}

/**
 * Swaps the live regions of `doc` for those of `latest`; answers the names of the regions it left
 * alone because a form in them is in use.
 */
export function redraw(
  doc: Document,
  latest: Document,
  setTimer: (fn: () => void, ms: number) => void = setTimeout,
): string[] {
  const heldBack: string[] = []
  for (const region of Array.from(doc.querySelectorAll<HTMLElement>('[data-live]'))) {
    const name = region.dataset.live!
    const next = latest.querySelector<HTMLElement>(`[data-live="${CSS.escape(name)}"]`)
    if (!next || next.innerHTML === region.innerHTML) continue
    if (inUse(region, doc.activeElement)) {
      heldBack.push(name)
      continue
    }
    const changed = changedKeys(keyed(region), keyed(next))
    const open = new Set(
      Array.from(region.querySelectorAll('details[open]'), (fold) => placeOf(region, fold)),
    )
    region.innerHTML = next.innerHTML
    for (const fold of Array.from(region.querySelectorAll('details')))
      if (open.has(placeOf(region, fold))) fold.open = true
    for (const key of changed) {
      const item = region.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)
      if (!item) continue
      item.classList.add('changed')
      setTimer(() => item.classList.remove('changed'), MARK_MS)
    }
  }
  if (latest.title) doc.title = latest.title
  return heldBack
}
