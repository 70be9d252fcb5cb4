/**
 * The notes app's state and the rules that change it, without the page: which notes are in
 * memory and in what order, which one is open, what the list shows for a search, what the
 * editor's text started from, and the writes to this browser's copy (local.ts) that go with each
 * action. The views (the `*-view.ts` modules) draw from it; it never reads or writes the DOM, so
 * it runs in Node against fake-indexeddb (test/notes/app/controller.test.ts).
 *
 * @module
 */
import { conflictWords } from './conflict-words.ts'
import { combined } from './diff-view.ts'
import type { EditStart, Local, LocalNote } from './local.ts'
import type { ShareOut } from './sync.ts'
import { parseQuery, search } from './search.ts'
import { renameTag, tagsOf, tagTree, type TagNode } from './tags.ts'
import { newNoteId, titleOf } from './text.ts'

/** The list draws this many notes at most; a search narrows the rest. */
export const LIST_LIMIT = 200

/** A note as the screen holds it. */
export interface Shown extends LocalNote {
  /** Lower-case text, for the search. */
  lower: string
  /** Lower-case title, for the search's order. */
  titleLower: string
  /** The tags written in the text, by key (tags.ts). */
  tags: string[]
  /** Made by "New note" and not written to yet: kept in memory only. */
  draft?: boolean
}

/** What the app knows at a moment; one per page, made by {@link createAppState}. */
export interface AppState {
  notes: Map<string, Shown>
  /**
   * `notes`, pinned first, then newest edit first (ties by id), as of the last `sort()`, which the list view calls
   * before it draws a change. The controller's changes do not sort: a first sync changes
   * thousands of notes a page, and one sort after them is enough.
   */
  order: Shown[]
  /** The notes pinned to the top of the list (note-prefs.ts). */
  pinned: ReadonlySet<string>
  /** The tags of `notes` as of the last `sort()`, for the tag list. */
  tags: TagNode[]
  openId: string | null
  /** Every stored note is in `notes` (not only the first screen's). */
  loaded: boolean
  /** How many notes are stored, known before they are all read. */
  stored: number
  /**
   * This device's copy has never been filled from the server (a new device, before its first
   * sync): an empty list says the notes are loading, not that there are none.
   */
  firstSync: boolean
  /** The editor holds text not yet in the copy. */
  dirty: boolean
  lastInput: number
  /** The server's `edited` of the text the editor started from. */
  editorBase: number
  /** The copy's text the editor last matched (opened, saved or taken from elsewhere). */
  editorText: string
  problem: string | null
  /** The copy was handed to a newer version of the app in another tab: this tab must reload. */
  outdated: boolean
  /** The last request failed on the network. */
  unreachable: boolean
  device: string
  /** The last conflict told, and of which note and copy. */
  conflictNotice: { ids: string[]; text: string } | null
  /** The people each of this person's notes is shared with, by note id (sync.ts, `shares`). */
  sharesOut: Map<string, ShareOut[]>
}

export function createAppState(): AppState {
  return {
    notes: new Map(),
    order: [],
    pinned: new Set(),
    tags: [],
    openId: null,
    loaded: false,
    stored: 0,
    firstSync: false,
    dirty: false,
    lastInput: 0,
    editorBase: 0,
    editorText: '',
    problem: null,
    outdated: false,
    unreachable: false,
    device: '',
    conflictNotice: null,
    sharesOut: new Map(),
  }
}

export function shown(note: LocalNote): Shown {
  return {
    ...note,
    lower: note.text.toLowerCase(),
    titleLower: titleOf(note.text).toLowerCase(),
    tags: tagsOf(note.text),
  }
}

/** A conflicted copy another device made, arrived here: its words are this device's side. */
export interface ArrivedCopy {
  noteId: string
  copyId: string
  notice: string
}

/** What the list shows for a search. */
export interface Listed {
  /** The notes drawn, at most {@link LIST_LIMIT}. */
  notes: Shown[]
  /** How many notes match (the stored count before every note is read). */
  matches: number
  /** The words shown when nothing matches. */
  empty: string
}

/** How a conflicted copy is sorted out: kept as a note of its own, kept instead of its note, or joined into it. */
export type Resolution = 'both' | 'this' | 'hand'

export type NotesController = ReturnType<typeof createNotesController>

/** The rules over `state` and the copy `local`; `clock` stamps every edit. */
export function createNotesController({
  state,
  local,
  clock,
}: {
  state: AppState
  local: Local
  clock: () => number
}) {
  function sort(): void {
    const pinned = state.pinned
    state.order = [...state.notes.values()].sort(
      (a, b) =>
        Number(pinned.has(b.id)) - Number(pinned.has(a.id)) ||
        b.edited - a.edited ||
        (a.id < b.id ? -1 : 1),
    )
    state.tags = tagTree(state.order)
  }

  /** Takes the stored state of the notes `ids` (`notes`: those still stored) into memory. */
  function applyStored(ids: readonly string[], notes: readonly LocalNote[]): ArrivedCopy[] {
    const stored = new Map(notes.map((n) => [n.id, n]))
    const arrived: LocalNote[] = []
    for (const id of ids) {
      const note = stored.get(id)
      if (note?.conflictOf && !note.conflictHere && !state.notes.has(id)) arrived.push(note)
      if (note && !note.deleted) state.notes.set(id, shown(note))
      else if (!state.notes.get(id)?.draft) state.notes.delete(id)
    }
    return arrived.map((copy) => ({
      noteId: copy.conflictOf!,
      copyId: copy.id,
      notice: conflictWords(false).notice(
        titleOf(state.notes.get(copy.conflictOf!)?.text ?? copy.text),
      ),
    }))
  }

  /** Writes `text` of note `id` (started from `from`) to the copy and into memory. */
  async function keepEdit(id: string, text: string, from: EditStart): Promise<Shown> {
    const note = await local.edit(id, text, clock(), from)
    if (state.openId === id) state.editorText = text
    if (state.problem?.startsWith('Storage full')) state.problem = null
    const kept = shown(note)
    state.notes.set(id, kept)
    return kept
  }

  return {
    state,
    local,
    sort,
    applyStored,

    /** Reads the newest notes alone, for the first screen. */
    async firstScreen(): Promise<void> {
      const { notes, count } = await local.newest(LIST_LIMIT)
      for (const n of notes) if (!state.notes.has(n.id)) state.notes.set(n.id, shown(n))
      state.stored = count
      state.firstSync = count === 0 && (await local.getSince()) === 0
    },

    /** Reads every note into memory, keeping what changed in memory while it read. */
    async readAll(): Promise<void> {
      const before = new Map(state.notes)
      const all = await local.all()
      const notes = new Map(all.map((n) => [n.id, shown(n)]))
      for (const id of new Set([...before.keys(), ...state.notes.keys()])) {
        const now = state.notes.get(id)
        if (now === before.get(id) && !now?.draft) continue
        if (now) notes.set(id, now)
        else notes.delete(id)
      }
      state.notes = notes
      state.loaded = true
    },

    /** Reads the notes `ids` from the copy into memory; returns the conflicted copies that arrived. */
    async reloadIds(ids: readonly string[]): Promise<ArrivedCopy[]> {
      return applyStored(ids, await local.getMany(ids))
    },

    /** The notes the list shows for the search box's text `query`. */
    listed(query: string): Listed {
      const parsed = parseQuery(query)
      const found = parsed === null ? state.order : search(state.order, parsed)
      let matches = found.length
      // Before every note is read, the list without a search counts the stored ones; a search
      // is drawn again when they are all read.
      if (!state.loaded && parsed === null) matches = Math.max(matches, state.stored)
      const empty = !state.loaded
        ? 'Looking through every note…'
        : state.notes.size === 0
          ? state.firstSync
            ? 'Loading your notes…'
            : 'No notes yet. “New note” starts one.'
          : parsed?.patterns.length === 0
            ? 'No note has this tag.'
            : 'No note has these words.'
      return { notes: found.slice(0, LIST_LIMIT), matches, empty }
    },

    /**
     * Renames the tag `from` (a key) and its sub-tags to `to` in every note that has them, each
     * an ordinary edit from the note's text in the copy (so it merges like typing would);
     * returns the ids of the notes changed. The open note is edited from the editor's start.
     */
    async renameTag(from: string, to: string): Promise<string[]> {
      const changed: string[] = []
      for (const note of [...state.notes.values()]) {
        if (note.draft || !note.tags.some((t) => t === from || t.startsWith(`${from}/`))) continue
        const text = renameTag(note.text, from, to)
        if (text === note.text) continue
        await keepEdit(note.id, text, { base: note.base, text: note.text })
        changed.push(note.id)
      }
      return changed
    },

    /** Saves each of `texts` as a new note, as typing would (queued, offline too); returns their ids. */
    async importNotes(texts: readonly string[]): Promise<string[]> {
      const ids: string[] = []
      for (const text of texts) {
        const id = newNoteId(clock())
        await keepEdit(id, text, { base: 0 })
        ids.push(id)
      }
      return ids
    },

    /** A new empty note in memory only (a draft); returns its id. */
    addDraft(): string {
      const now = clock()
      const id = newNoteId(now)
      state.notes.set(id, {
        id,
        text: '',
        base: 0,
        edited: now,
        lower: '',
        titleLower: '',
        tags: [],
        draft: true,
      })
      return id
    },

    /** Forgets the open note if it is a draft left without a word (`editorText`); true when it did. */
    dropEmptyDraft(editorText: string): boolean {
      const open = state.openId === null ? undefined : state.notes.get(state.openId)
      if (!open?.draft || editorText !== '') return false
      state.notes.delete(open.id)
      return true
    },

    /** Makes `id` the open note; the editor starts from its text unless it is a conflicted copy. */
    open(id: string): Shown | undefined {
      const note = state.notes.get(id)
      if (!note) return undefined
      state.openId = id
      state.dirty = false
      if (!note.conflictOf) {
        state.editorText = note.text
        state.editorBase = note.base
      }
      return note
    },

    close(): void {
      state.openId = null
      state.dirty = false
    },

    /** What the editor's text started from, for `local.edit`. */
    editStart(): EditStart {
      return { base: state.editorBase, text: state.editorText }
    },

    keepEdit,

    /** Brings the deleted note `id` back from the trash into the copy and memory; null when it is not there. */
    async restore(id: string): Promise<Shown | null> {
      const note = await local.restore(id, clock())
      if (!note) return null
      const back = shown(note)
      state.notes.set(id, back)
      return back
    },

    /** Deletes note `id` from the copy (undoable for `undoMs`) and from memory, closing it. */
    async remove(id: string, undoMs: number): Promise<void> {
      await local.remove(id, clock(), undoMs)
      state.notes.delete(id)
      if (state.openId === id) state.openId = null
      state.dirty = false
    },

    /**
     * Writes to the copy what sorting out the conflicted copy `copyId` takes; returns the note
     * to open then, the notes to read again, and the notes other tabs must hear of (null when
     * `copyId` is no conflicted copy).
     */
    async resolveConflict(
      copyId: string,
      how: Resolution,
    ): Promise<{ open: string; changed: string[]; told: string[] } | null> {
      const copy = state.notes.get(copyId)
      if (!copy?.conflictOf) return null
      const original = state.notes.get(copy.conflictOf)
      if (state.conflictNotice?.ids.includes(copy.id)) state.conflictNotice = null
      const told = [copy.id, original?.id ?? copy.id]
      if (how === 'both' || !original) {
        await local.mark(copy.id, {})
        return { open: copy.id, changed: [copy.id], told }
      }
      if (how === 'this') {
        await local.mark(copy.id, {})
        await local.remove(original.id, clock(), 0)
        return { open: copy.id, changed: [copy.id, original.id], told }
      }
      await local.edit(original.id, combined(original.text, copy.text), clock())
      await local.remove(copy.id, clock(), 0)
      return { open: original.id, changed: [copy.id, original.id], told }
    },
  }
}
