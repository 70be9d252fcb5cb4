/**
 * What a person chose for a note in this browser: read it as Markdown rather than write it, and
 * pin it to the top of the list. Kept in localStorage under the user's key, so a reload keeps
 * them; they are this browser's, like the window's size, and are not sent to the server.
 *
 * @module
 */

/** The part of `localStorage` the choices use. */
export type PrefsStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>

/** A choice kept per note: shown as Markdown, or pinned to the top. */
export type Pref = 'reading' | 'pinned'

export type NotePrefs = ReturnType<typeof createNotePrefs>

/** The choices of user `userId`, in `storage`. */
export function createNotePrefs(userId: string, storage: PrefsStorage) {
  const key = (pref: Pref) => `notes-${pref}-${userId}`

  function read(pref: Pref): Set<string> {
    try {
      const ids: unknown = JSON.parse(storage.getItem(key(pref)) ?? '[]')
      return new Set(
        Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [],
      )
    } catch {
      return new Set()
    }
  }

  const sets: Record<Pref, Set<string>> = { reading: read('reading'), pinned: read('pinned') }

  return {
    /** The notes with `pref` (the same set each time: it changes as `set` changes it). */
    all(pref: Pref): ReadonlySet<string> {
      return sets[pref]
    },

    has(pref: Pref, id: string): boolean {
      return sets[pref].has(id)
    },

    /** Sets `pref` of note `id`; false when the storage is full (the choice holds until a reload). */
    set(pref: Pref, id: string, on: boolean): boolean {
      if (on) sets[pref].add(id)
      else sets[pref].delete(id)
      try {
        storage.setItem(key(pref), JSON.stringify([...sets[pref]]))
        return true
      } catch {
        return false
      }
    },

    /** Forgets every choice (signing out). */
    forget(): void {
      for (const pref of ['reading', 'pinned'] as const) {
        sets[pref].clear()
        storage.removeItem(key(pref))
      }
    },
  }
}
