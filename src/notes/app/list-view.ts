/**
 * The list of notes: drawn from the controller's order and the search box, its items, and the
 * arrow keys between the search box and the results.
 *
 * @module
 */
import type { Actions, App } from './app.ts'
import { LIST_LIMIT, type Shown } from './controller.ts'
import type { LocalNote } from './local.ts'
import { moveTo, SEARCH_BOX } from './list-keys.ts'
import { previewOf, shortTime, titleOf } from './text.ts'
import { excerptOf, matchedRanges, parseQuery, pieces, type Piece, type Query } from './search.ts'

/** Appends `parts` to `el`: plain text as text, matched words in `<mark>` (text only, never HTML). */
function appendPieces(el: HTMLElement, parts: readonly Piece[]): void {
  for (const part of parts) {
    if (!part.mark) el.append(part.text)
    else {
      const mark = document.createElement('mark')
      mark.textContent = part.text
      el.append(mark)
    }
  }
}

/** Where the words after a note's title begin (its first line is the title). */
function bodyStart(text: string): number {
  const start = text.search(/\S/)
  if (start === -1) return text.length
  const nl = text.indexOf('\n', start)
  return nl === -1 ? text.length : nl + 1
}

export function createListView(app: App) {
  const { ui, state } = app
  let drawTimer = 0

  function listItem(note: Shown, now: number, query: Query | null): HTMLLIElement {
    const li = document.createElement('li')
    const button = document.createElement('button')
    button.type = 'button'
    button.className = 'item'
    button.dataset.id = note.id
    if (note.id === state.openId) button.setAttribute('aria-current', 'true')
    const title = document.createElement('span')
    title.className = 'title'
    const titleText = titleOf(note.text)
    // A search's matched words are marked in the title and the excerpt below it.
    if (query) appendPieces(title, pieces(titleText, matchedRanges(query, titleText)))
    else title.textContent = titleText
    button.append(title)
    if (state.pinned.has(note.id)) {
      const pin = document.createElement('span')
      pin.className = 'badge pinned'
      pin.textContent = 'Pinned'
      button.append(' ', pin)
    }
    if (note.shared || state.sharesOut.has(note.id)) {
      const badge = document.createElement('span')
      badge.className = 'badge shared'
      badge.textContent = note.shared ? `Shared by ${note.shared.owner}` : 'Shared'
      button.append(' ', badge)
    }
    if (note.conflictOf) {
      const badge = document.createElement('span')
      badge.className = 'badge'
      badge.textContent = 'Conflicted copy'
      button.append(' ', badge)
    }
    const meta = document.createElement('span')
    meta.className = 'meta'
    const time = document.createElement('time')
    time.dateTime = new Date(note.edited).toISOString()
    time.textContent = shortTime(note.edited, now)
    meta.append(time)
    const excerpt = query ? excerptOf(query, note.text, bodyStart(note.text)) : null
    if (excerpt) {
      meta.append(' ')
      appendPieces(meta, excerpt)
    } else {
      const preview = previewOf(note.text)
      if (preview) meta.append(` ${preview}`)
    }
    button.append(meta)
    li.append(button)
    return li
  }

  const view = {
    drawList(): void {
      const listed = app.notes.listed(ui.search.value)
      const now = Date.now()
      const query = parseQuery(ui.search.value)
      const items = listed.notes.map((note) => listItem(note, now, query))
      if (listed.matches > LIST_LIMIT) {
        const more = document.createElement('li')
        more.className = 'more'
        more.textContent = `${listed.matches - LIST_LIMIT} more: search to find them`
        items.push(more)
      }
      ui.list.replaceChildren(...items)
      ui.empty.hidden = listed.matches > 0
      ui.empty.textContent = listed.empty
      app.act.drawTags()
    },

    sortAndDraw(): void {
      const started = performance.now()
      clearTimeout(drawTimer)
      drawTimer = 0
      app.notes.sort()
      view.drawList()
      // Read by the bench (bench/notes-app.bench.ts): the time the list takes to sort and draw.
      performance.measure('notes:draw', { start: started })
    },

    drawSoon(): void {
      if (drawTimer !== 0) return
      drawTimer = window.setTimeout(() => {
        drawTimer = 0
        view.sortAndDraw()
      })
    },

    /** Takes the stored state of the notes `ids` (`notes`: those still stored) into the screen. */
    applyNotes(ids: readonly string[], notes: readonly LocalNote[]): void {
      // A conflicted copy made by another device's save: this device is told as well.
      for (const copy of app.notes.applyStored(ids, notes))
        app.act.tellConflict(copy.notice, copy.noteId, copy.copyId)
      // A conflict sorted out on another device (the copy or the note deleted, or the copy kept
      // as an ordinary note): its notice goes here too, as it went there.
      const told = state.conflictNotice
      const [noteId, copyId] = told?.ids ?? []
      const copy = copyId === undefined ? undefined : state.notes.get(copyId)
      const over = !copy?.conflictOf || noteId === undefined || !state.notes.has(noteId)
      if (told && told.ids.some((id) => ids.includes(id)) && over) {
        state.conflictNotice = null
        if (!ui.notice.hidden && ui.notice.textContent === told.text) ui.notice.hidden = true
      }
      // Sorted and drawn once the sync has sent its next write: pages of a first sync come
      // faster than 10,000 notes are sorted and drawn, and the write need not wait for them.
      view.drawSoon()
      if (state.openId !== null && ids.includes(state.openId)) app.act.refreshOpen()
    },

    async reloadIds(ids: readonly string[]): Promise<void> {
      view.applyNotes(ids, await app.local.getMany(ids))
    },

    /** Arrow keys from the search box through the results; Enter in the box opens the first. */
    onListKey(e: KeyboardEvent): void {
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return
      const items = [...ui.list.querySelectorAll<HTMLButtonElement>('button.item')]
      if (e.target === ui.search && e.key === 'Enter') {
        if (items[0]) {
          e.preventDefault()
          items[0].click()
        }
        return
      }
      const from =
        e.target === ui.search ? SEARCH_BOX : items.indexOf(e.target as HTMLButtonElement)
      if (from === SEARCH_BOX && e.target !== ui.search) return
      const to = moveTo(e.key, from, items.length)
      if (to === null) return
      e.preventDefault()
      ;(to === SEARCH_BOX ? ui.search : items[to]!).focus()
    },
  } satisfies Partial<Actions> & Record<string, unknown>
  return view
}
