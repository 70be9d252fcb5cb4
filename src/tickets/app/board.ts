/**
 * The board's cards (docs/tickets-app.md, "Board"): drag one to another column, or focus it and
 * carry it with ArrowRight and ArrowLeft, then drop it with Enter or Space (Escape puts it back).
 * A drop is the ticket's state change through the API, announced, with the ticket page's one-step
 * Undo; a refusal puts the card back and says why. On a phone the column names are tabs that
 * show one column at a time.
 */
import type { ApiClient } from './api.ts'

/** The columns, in order. */
export const COLUMNS = ['open', 'doing', 'review', 'done', 'dropped'] as const

/** The column a card is carried to from `from` by `key` (ArrowRight: the next), or null at an end or for another key. */
export function carriedTo(from: string, key: string): string | null {
  const i = (COLUMNS as readonly string[]).indexOf(from)
  if (i < 0) return null
  const step = key === 'ArrowRight' ? 1 : key === 'ArrowLeft' ? -1 : 0
  if (step === 0) return null
  return COLUMNS[i + step] ?? null
}

/** A column's name as the page says it. */
export function columnName(state: string): string {
  return state.charAt(0).toUpperCase() + state.slice(1)
}

export interface BoardDeps {
  api: ApiClient
  say(text: string): void
  notice(text: string, undo?: () => void): void
  refresh(): Promise<void>
}

export interface Board {
  /** True while a card is being carried or dragged: the page waits to redraw the board. */
  busy(): boolean
}

/** Starts the board on the page, if it has one a person may move cards on. */
export function startBoard(deps: BoardDeps): Board {
  const board = () => document.querySelector<HTMLElement>('[data-board]')
  /** The card being carried by the keyboard: where it came from, to put it back. */
  let carrying: { card: HTMLElement; from: string; next: Element | null } | null = null
  let dragging: HTMLElement | null = null
  let moving = false

  const cards = (state: string) =>
    document.querySelector<HTMLElement>(`[data-cards="${CSS.escape(state)}"]`)

  function showColumn(state: string): void {
    for (const column of Array.from(document.querySelectorAll<HTMLElement>('[data-column]')))
      column.toggleAttribute('data-current', column.dataset.column === state)
    for (const tab of Array.from(document.querySelectorAll<HTMLElement>('[data-column-tab]'))) {
      if (tab.dataset.columnTab === state) tab.setAttribute('aria-current', 'true')
      else tab.removeAttribute('aria-current')
    }
    const url = new URL(location.href)
    url.searchParams.set('column', state)
    history.replaceState(null, '', url)
  }

  /** Puts `card` at the top of the column of `state`, keeping the focus on it. */
  function place(card: HTMLElement, state: string, before: Element | null = null): void {
    const list = cards(state)
    if (!list) return
    const focused = document.activeElement === card
    moving = true
    list.insertBefore(card, before ?? list.firstElementChild)
    moving = false
    if (focused) card.focus()
    if (card.closest('[data-column]')?.hasAttribute('data-current') === false) showColumn(state)
  }

  function putBack(): void {
    if (!carrying) return
    const { card, from, next } = carrying
    carrying = null
    card.classList.remove('carried')
    place(card, from, next)
  }

  /** Drops `card` in the column of `state`: its state change, with Undo. */
  async function drop(card: HTMLElement, state: string, from: string, next: Element | null) {
    const ref = card.dataset.ref ?? ''
    if (state === from) {
      place(card, from, next)
      return
    }
    place(card, state)
    card.dataset.state = state
    const path = `${board()!.dataset.board}/${card.dataset.number}/state`
    const answer = await deps.api.post(path, { state })
    if (!answer.ok) {
      card.dataset.state = from
      place(card, from, next)
      deps.say(answer.error)
      deps.notice(answer.error)
      return
    }
    const assignEvent = answer.body.assignEvent as { from: { id: string } | null } | undefined
    const text = `${ref} moved to ${columnName(state)}.`
    deps.say(text)
    deps.notice(text, () => {
      void (async () => {
        const back = await deps.api.post(path, { state: from })
        if (back.ok && assignEvent)
          await deps.api.post(path.replace(/\/state$/, '/assign'), {
            assignee: assignEvent.from?.id ?? '',
          })
        const said = back.ok ? `${ref} moved back to ${columnName(from)}.` : back.error
        deps.say(said)
        if (!back.ok) deps.notice(back.error)
        await deps.refresh()
      })()
    })
    await deps.refresh()
  }

  document.addEventListener('keydown', (event) => {
    const card = event.target instanceof HTMLElement ? event.target : null
    if (!card?.matches('.ticket-card[draggable]') || !board()?.contains(card)) return
    if (event.ctrlKey || event.altKey || event.metaKey) return
    const at =
      carrying?.card === card
        ? card.closest<HTMLElement>('[data-column]')!.dataset.column!
        : card.dataset.state!
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      const to = carriedTo(at, event.key)
      event.preventDefault()
      if (to === null) return
      if (!carrying) {
        carrying = { card, from: card.dataset.state!, next: card.nextElementSibling }
        card.classList.add('carried')
      }
      place(card, to)
      deps.say(
        to === carrying.from
          ? `${card.dataset.ref} is back in ${columnName(to)}.`
          : `${card.dataset.ref} carried to ${columnName(to)}. Enter or Space drops it there, Escape puts it back.`,
      )
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault()
      if (carrying?.card === card) {
        const { from, next } = carrying
        carrying = null
        card.classList.remove('carried')
        void drop(card, at, from, next)
      } else if (event.key === 'Enter') {
        const link = card.querySelector<HTMLAnchorElement>('a.subject')
        if (link) location.assign(link.href)
      }
    } else if (event.key === 'Escape' && carrying?.card === card) {
      event.preventDefault()
      putBack()
      deps.say(`${card.dataset.ref} put back.`)
    }
  })

  // Leaving a carried card puts it back, as Escape does.
  document.addEventListener('focusout', (event) => {
    if (!moving && carrying && event.target === carrying.card) putBack()
  })

  document.addEventListener('dragstart', (event) => {
    const card =
      event.target instanceof HTMLElement
        ? event.target.closest<HTMLElement>('.ticket-card[draggable]')
        : null
    if (!card || !board()?.contains(card)) return
    dragging = card
    card.classList.add('dragging')
    event.dataTransfer?.setData('text/plain', card.dataset.ref ?? '')
    if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move'
  })
  document.addEventListener('dragend', () => {
    dragging?.classList.remove('dragging')
    dragging = null
    for (const c of Array.from(document.querySelectorAll('.drop-here')))
      c.classList.remove('drop-here')
  })
  const columnAt = (target: EventTarget | null) =>
    target instanceof Element ? target.closest<HTMLElement>('[data-column]') : null
  document.addEventListener('dragover', (event) => {
    const column = columnAt(event.target)
    if (!dragging || !column) return
    event.preventDefault()
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'move'
    for (const c of Array.from(document.querySelectorAll('.drop-here')))
      if (c !== column) c.classList.remove('drop-here')
    column.classList.add('drop-here')
  })
  document.addEventListener('drop', (event) => {
    const column = columnAt(event.target)
    const card = dragging
    if (!card || !column) return
    event.preventDefault()
    column.classList.remove('drop-here')
    void drop(card, column.dataset.column!, card.dataset.state!, card.nextElementSibling)
  })

  // The column tabs of a phone show their column without loading the page again.
  document.addEventListener('click', (event) => {
    const tab =
      event.target instanceof Element
        ? event.target.closest<HTMLElement>('[data-column-tab]')
        : null
    if (!tab) return
    event.preventDefault()
    showColumn(tab.dataset.columnTab!)
  })

  return { busy: () => carrying !== null || dragging !== null }
}
