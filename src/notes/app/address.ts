/**
 * The open note in the address bar: `/#/<id>` while a note is open, `/` for the list. Opening a
 * note from the list adds one entry to the browser's history, so the browser's (and Android's)
 * back button returns to the list instead of leaving the app, and a reload opens the same note.
 * Going from one note to another replaces that entry: the history never holds more than the
 * list and one note of this app, so "back" from any note is always the list.
 *
 * The hash, not a path, carries the id: the server and the service worker serve one page for
 * every address, and the id (chosen by the client) never reaches a server log.
 *
 * @module
 */

/** The hash of the note `id`. */
export function noteHash(id: string): string {
  return `#/${encodeURIComponent(id)}`
}

/** The note id a hash names, or null for the list (or a hash this app did not make). */
export function noteIdOf(hash: string): string | null {
  if (!hash.startsWith('#/') || hash.length === 2) return null
  try {
    return decodeURIComponent(hash.slice(2))
  } catch {
    return null
  }
}

/** What {@link createAddress} needs of the window (a fake one in Node tests). */
export interface AddressWindow {
  location: { hash: string; pathname: string; search: string }
  history: {
    readonly state: unknown
    pushState(state: unknown, unused: string, url: string): void
    replaceState(state: unknown, unused: string, url: string): void
    back(): void
  }
}

export interface Address {
  /** The note the address names, or null for the list. */
  current(): string | null
  /**
   * Makes the address name the note `id` (null: the list). Leaving a note that was opened from
   * the list goes back in history, so the entry of the note is not left behind to come back to.
   */
  show(id: string | null): void
  /**
   * A page opened at a note's address with no list entry of this app below it (a bookmark, a
   * link): puts the list under the note, so back goes to the list rather than out of the app.
   */
  adopt(): void
}

/** The state this app puts on a note's history entry: the entry below it is the list. */
interface EntryState {
  note: string
  overList: boolean
}

function isEntryState(value: unknown): value is EntryState {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as EntryState).note === 'string' &&
    typeof (value as EntryState).overList === 'boolean'
  )
}

/** The address bar of `win` (see the module's comment). */
export function createAddress(win: AddressWindow): Address {
  const listUrl = () => `${win.location.pathname}${win.location.search}`
  const current = () => noteIdOf(win.location.hash)
  return {
    current,
    show(id) {
      const now = current()
      if (id === now) return
      const state = win.history.state
      const overList = isEntryState(state) && state.overList
      if (id === null) {
        if (overList) win.history.back()
        else win.history.replaceState(null, '', listUrl())
      } else if (now === null) {
        win.history.pushState(
          { note: id, overList: true } satisfies EntryState,
          '',
          `${listUrl()}${noteHash(id)}`,
        )
      } else {
        win.history.replaceState(
          { note: id, overList } satisfies EntryState,
          '',
          `${listUrl()}${noteHash(id)}`,
        )
      }
    },
    adopt() {
      const id = current()
      const state = win.history.state
      if (id === null || (isEntryState(state) && state.overList)) return
      win.history.replaceState(null, '', listUrl())
      win.history.pushState(
        { note: id, overList: true } satisfies EntryState,
        '',
        `${listUrl()}${noteHash(id)}`,
      )
    },
  }
}
