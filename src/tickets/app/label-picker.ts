/**
 * The label picker of the ticket page and the new-ticket form: an ARIA 1.2 combobox (an input
 * with a list box) that suggests the project's labels as the person types, by any part of their
 * name; for an admin it also offers to create the label typed ("Create label …"). Arrow keys move
 * through the suggestions, Enter or a click chooses, Escape closes. What choosing does is the
 * page's: the ticket page adds the label at once, the new-ticket form gathers it as a chip.
 *
 * It also colours every label chip (`.label-chip[data-color]`) with its label's colour and the
 * text colour that reads best on it (src/tickets/text/label-colors.ts): colours cannot be written
 * into the page's markup under its Content-Security-Policy, so the script sets them.
 */
import { labelTextColor } from '../text/label-colors.ts'
import { attachListbox } from './listbox.ts'

export interface KnownLabel {
  name: string
  color: string
}

/** A suggestion: an existing label, or the label typed, to be created. */
export type LabelChoice =
  { kind: 'label'; name: string; color: string } | { kind: 'create'; name: string }

/** At most this many suggestions are listed. */
const SHOWN = 8

/**
 * What the picker suggests for `typed`: the known labels whose names contain it (any case; those
 * starting with it first), leaving out `taken` ones; and, when `mayCreate` and no label has that
 * name, the typed name to create. All labels for an empty field.
 */
export function labelSuggestions(
  known: readonly KnownLabel[],
  typed: string,
  taken: readonly string[],
  mayCreate: boolean,
): LabelChoice[] {
  const text = typed.trim().toLowerCase()
  const skip = new Set(taken.map((t) => t.toLowerCase()))
  const found = known
    .filter((l) => !skip.has(l.name.toLowerCase()) && l.name.toLowerCase().includes(text))
    .sort(
      (a, b) =>
        Number(!a.name.toLowerCase().startsWith(text)) -
          Number(!b.name.toLowerCase().startsWith(text)) ||
        a.name.toLowerCase().localeCompare(b.name.toLowerCase()),
    )
    .slice(0, SHOWN)
    .map((l): LabelChoice => ({ kind: 'label', name: l.name, color: l.color }))
  const exists = known.some((l) => l.name.toLowerCase() === text)
  if (mayCreate && text !== '' && !exists && !typed.includes('"'))
    found.push({ kind: 'create', name: typed.trim() })
  return found
}

/** Pleasant colours a new label made from the picker gets, by its name. */
const NEW_COLORS = [
  '#1d76db',
  '#d73a4a',
  '#0e8a16',
  '#fbca04',
  '#5319e7',
  '#e99695',
  '#006b75',
  '#f9d0c4',
]

/** The colour the picker gives a label it creates: one of {@link NEW_COLORS}, by the name. */
export function newLabelColor(name: string): string {
  let h = 0
  for (const c of name.toLowerCase()) h = (h * 31 + c.codePointAt(0)!) >>> 0
  return NEW_COLORS[h % NEW_COLORS.length]!
}

/** Colours the label chips under `root` (a chip keeps its name; the colour only adds to it). */
export function paintChips(root: ParentNode): void {
  for (const chip of Array.from(root.querySelectorAll<HTMLElement>('.label-chip[data-color]'))) {
    const color = chip.dataset.color!
    if (!/^#[0-9a-f]{6}$/.test(color)) continue
    chip.style.backgroundColor = color
    chip.style.color = labelTextColor(color)
    chip.style.borderColor = color
  }
}

/** A chip of a label, as the pages draw one. */
export function chipElement(name: string, color: string | undefined): HTMLElement {
  const chip = document.createElement('span')
  chip.className = 'label-chip'
  if (color) chip.dataset.color = color
  chip.textContent = name
  paintChips(chip.parentElement ?? wrap(chip))
  return chip
}

function wrap(el: HTMLElement): ParentNode {
  const holder = document.createElement('span')
  holder.append(el)
  return holder
}

/**
 * Makes `input` (with `data-label-picker`, the project's labels as JSON) a combobox; `choose`
 * is called with the suggestion picked.
 */
export function attachLabelPicker(
  input: HTMLInputElement,
  taken: () => string[],
  choose: (choice: LabelChoice) => void,
): void {
  const list = document.getElementById(input.getAttribute('aria-controls') ?? '')
  if (!list) return
  let known: KnownLabel[] = []
  try {
    known = JSON.parse(input.dataset.labelPicker ?? '[]') as KnownLabel[]
  } catch {
    known = []
  }
  const mayCreate = input.dataset.labelCreate !== undefined
  const box = attachListbox<LabelChoice>(input, list, {
    option(item, li) {
      if (item.kind === 'label') li.append(chipElement(item.name, item.color))
      else li.textContent = `Create label “${item.name}”`
    },
    choose,
    // Enter takes the suggestion chosen with the arrows, or the first.
    firstByDefault: true,
  })
  const suggest = () => box.show(labelSuggestions(known, input.value, taken(), mayCreate))

  input.addEventListener('input', suggest)
  input.addEventListener('focus', suggest)
  input.addEventListener('keydown', (event) => {
    // In the new-ticket form, Enter in the picker never sends the ticket.
    if (event.key === 'Enter' && input.form?.dataset.labelForm === undefined) event.preventDefault()
  })
  if (document.activeElement === input) suggest()
}
