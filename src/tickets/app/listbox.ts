/**
 * The list box of suggestions under a field (the ticket picker, the label picker, `@`
 * mentions): ARIA 1.2's combobox pattern. The field keeps the focus and names the active option
 * in `aria-activedescendant`; each option is a `role="option"` item with `aria-selected`. Arrow
 * keys move through the options (round from the last to the first), Enter chooses, Escape closes,
 * a click chooses, and the list closes when the field loses the focus.
 *
 * An input is a combobox of its own (`aria-expanded`), and its Arrow keys open the list again
 * after Escape while it has suggestions; a text area's Arrow keys move its caret once the list is
 * closed.
 */

export interface ListboxOptions<T> {
  /** Fills the option element of `item` with what it shows. */
  option(item: T, li: HTMLLIElement): void
  /** What choosing `item` does; the list is closed and emptied before. */
  choose(item: T): void
  /** Whether a key, pressed while the list is shown, chooses the active option; Enter if not given. */
  choosesOn?(event: KeyboardEvent): boolean
  /** Enter, with no option active, chooses the first (rather than going to the field). */
  firstByDefault?: boolean
}

export interface Listbox<T> {
  /** Lists `items` with the one at `active` active (-1: none); none closes the list. */
  show(items: T[], active?: number): void
  /** Hides the list. */
  close(): void
}

/** Makes `list` the list box of `field`. */
export function attachListbox<T>(
  field: HTMLInputElement | HTMLTextAreaElement,
  list: HTMLElement,
  options: ListboxOptions<T>,
): Listbox<T> {
  const combobox = field instanceof HTMLInputElement
  const choosesOn = options.choosesOn ?? ((event: KeyboardEvent) => event.key === 'Enter')
  let items: T[] = []
  let active = -1

  const close = () => {
    list.hidden = true
    if (combobox) field.setAttribute('aria-expanded', 'false')
    field.removeAttribute('aria-activedescendant')
    active = -1
  }
  const draw = () => {
    list.replaceChildren()
    items.forEach((item, i) => {
      const li = document.createElement('li')
      li.id = `${list.id}-${i}`
      li.setAttribute('role', 'option')
      li.setAttribute('aria-selected', String(i === active))
      options.option(item, li)
      li.addEventListener('mousedown', (event) => {
        // Before the field loses focus, so the choice is made, not lost with the blur.
        event.preventDefault()
        choose(i)
      })
      list.append(li)
    })
    if (items.length === 0) return close()
    list.hidden = false
    if (combobox) field.setAttribute('aria-expanded', 'true')
    if (active >= 0) field.setAttribute('aria-activedescendant', `${list.id}-${active}`)
    else field.removeAttribute('aria-activedescendant')
  }
  const choose = (i: number) => {
    const item = items[i]
    if (item === undefined) return
    items = []
    close()
    options.choose(item)
  }

  // As an HTMLElement, whose listeners know their events' types (a union of two does not).
  const element: HTMLElement = field
  element.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !list.hidden) {
      event.preventDefault()
      close()
    } else if (
      (event.key === 'ArrowDown' || event.key === 'ArrowUp') &&
      items.length > 0 &&
      (combobox || !list.hidden)
    ) {
      event.preventDefault()
      active = (active + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length
      draw()
    } else if (!list.hidden && choosesOn(event)) {
      const i = active < 0 && options.firstByDefault ? 0 : active
      if (i < 0) return
      event.preventDefault()
      choose(i)
    }
  })
  element.addEventListener('blur', () => close())

  return {
    show(shown, at = -1) {
      items = shown
      active = at
      draw()
    },
    close,
  }
}
