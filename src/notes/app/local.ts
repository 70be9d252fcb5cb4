/**
 * This browser's copy of the notes, in IndexedDB (through `idb`): every note, a queue of saves
 * and deletes not yet accepted by the server, and a few settings (the device's `local` id, the
 * `since` of the last pull). An edit writes the note and its queue entry in one transaction,
 * before anything is sent; the queue holds one entry a note, so typing replaces the entry's
 * text and never piles up requests.
 *
 * A note lives in one of two places. The first sync keeps each page of notes it receives in one
 * record of `packs` (up to 500 notes): IndexedDB costs about the same a record whether it holds
 * a few bytes or 500 KB, so 10,000 notes written one a record take several seconds where 20
 * packs take a fraction of one (docs/notes-app.md, "Speed with 10,000 notes"). Every other
 * note, and a packed note as soon as anything changes it, is a record of `notes`: a write first
 * {@link unpack}s the notes it touches, so a pack only ever loses notes and a note is never in
 * both places.
 *
 * @module
 */
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction } from 'idb'

/** A note as this browser keeps it. */
export interface LocalNote {
  id: string
  text: string
  /** The server's `edited` this text was based on (0: never accepted by the server). */
  base: number
  /** When it was last edited, here or elsewhere (ms since the epoch); the list's order. */
  edited: number
  /** Set on a conflicted copy: the id of the note it was split from. */
  conflictOf?: string
  /** Set on a conflicted copy made from this device's save (src/notes/app/conflict-words.ts). */
  conflictHere?: boolean
  /** Deleted here; the delete waits in the queue (and can be undone until it is sent). */
  deleted?: boolean
  /**
   * Set on a note another person shared with this one (its id is the share's, `shared-…`): the
   * owner's name and whether this person may edit it.
   */
  shared?: SharedWith
  /** On a conflicted copy of a shared note: who wrote the text the note kept. */
  conflictBy?: string
}

/** How a note shared with this person is shared (docs/notes-api.md, "Sharing with people"). */
export interface SharedWith {
  owner: string
  access: 'edit' | 'read'
}

/** What an edit started from: the server's `edited` of the text, and the text when known. */
export interface EditStart {
  base: number
  text?: string
}

/** A save or delete waiting to be accepted by the server. */
export interface Pending {
  id: string
  op: 'save' | 'delete'
  text: string
  base: number
  /** The device's time of the edit. */
  at: number
  /** Rises with every change of the queue; tells a sent entry from a newer one. */
  seq: number
  /** Not sent before this time: a delete waits out its Undo. */
  notBefore?: number
  /** For a delete: the save it replaced, put back by Undo. */
  replaced?: Pending
  /** The server refused it (400): kept, shown, never sent again by itself. */
  refused?: string
}

/** A deleted note in the trash ("Recently deleted"): its last text and when it was deleted. */
export interface TrashEntry {
  id: string
  text: string
  /** The time of the delete: the server's tombstone `edited`, or this device's time of it. */
  deleted: number
}

/** Notes kept together by the first sync: one page of changes, oldest first. */
interface Pack {
  /** The ids of `notes`, indexed (multiEntry) to find a note's pack. */
  ids: string[]
  notes: LocalNote[]
}

interface Schema extends DBSchema {
  notes: { key: string; value: LocalNote; indexes: { edited: number } }
  packs: { key: number; value: Pack; indexes: { ids: string } }
  queue: { key: string; value: Pending }
  meta: { key: string; value: string | number }
  trash: { key: string; value: TrashEntry }
}

type Stores = ('notes' | 'packs' | 'queue' | 'meta' | 'trash')[]
type Tx = IDBPTransaction<Schema, Stores, 'readwrite'>

/** The version of the copy's layout: 2 added the `edited` index, 3 the packs, 4 the trash. */
export const VERSION = 4
const STORES: Stores = ['notes', 'packs', 'queue', 'meta', 'trash']

export interface Local {
  /** The device's own `local` id, made once. */
  device(): Promise<string>
  /** Every note that is not deleted. */
  all(): Promise<LocalNote[]>
  /**
   * The `limit` most recently edited notes that are not deleted, and how many notes there are:
   * enough to draw the list's first screen without reading every note, a read that grows with
   * the number of notes.
   */
  newest(limit: number): Promise<{ notes: LocalNote[]; count: number }>
  get(id: string): Promise<LocalNote | undefined>
  /** The notes of `ids` that are stored (deleted ones included), in one transaction. */
  getMany(ids: readonly string[]): Promise<LocalNote[]>
  /** How many notes are stored, deleted ones included. */
  count(): Promise<number>
  /**
   * Stores an edit and queues its save, in one transaction. `from` is what the edit started
   * from: the text and the server's `edited` of it (the note's own base when not given). A save
   * already waiting keeps its base. When the note's base has moved on from `from.base` and its
   * text is still `from.text`, the server took that very text meanwhile (this device's own save
   * answered before the editor heard of it), and the edit starts from the newer base: sent with
   * the older one it would be kept as a copy of itself.
   */
  edit(id: string, text: string, at: number, from?: EditStart): Promise<LocalNote>
  /** Marks a note deleted and queues its delete, sent after `undoMs`. */
  remove(id: string, at: number, undoMs: number): Promise<void>
  /** Takes back a delete that was not sent yet; false when it was. */
  undoRemove(id: string): Promise<boolean>
  /** The deleted notes kept in the trash, last deleted first. */
  trash(): Promise<TrashEntry[]>
  /**
   * Takes the server's trash (`entries`, the whole of it) into the copy: entries it no longer
   * has go, unless their delete still waits in the queue here; entries of notes with a save
   * waiting here (brought back meanwhile) are passed over.
   */
  replaceTrash(entries: readonly TrashEntry[]): Promise<void>
  /** Forgets the trash entries of `ids` (emptied on the server). */
  dropTrash(ids: readonly string[]): Promise<void>
  /**
   * Brings the deleted note `id` back from the trash with its last text, as an edit at `at`
   * queued like a save (a delete not sent yet is simply taken back); null when it is not in
   * the trash.
   */
  restore(id: string, at: number): Promise<LocalNote | null>
  /** Changes a note's fields without queueing anything (a conflict marker cleared). */
  mark(id: string, fields: Partial<Pick<LocalNote, 'conflictOf' | 'conflictHere'>>): Promise<void>
  /** The queue, oldest change first. */
  pending(): Promise<Pending[]>
  /** How many entries wait to be sent (refused ones included). */
  waiting(): Promise<number>
  /**
   * Runs `fn` in one read-write transaction over the whole copy. Notes it reads or changes
   * through `tx.objectStore('notes')` must be {@link unpack}ed first.
   */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  getSince(): Promise<number>
  setSince(since: number): Promise<void>
  /** Deletes the whole copy (sign-out). */
  destroy(): Promise<void>
  close(): void
}

export type { Tx }

/** Keeps `notes`, new to the copy, together in one record (the first sync's pages). */
export async function pack(tx: Tx, notes: LocalNote[]): Promise<void> {
  if (notes.length > 0) await tx.objectStore('packs').add({ ids: notes.map((n) => n.id), notes })
}

/**
 * Moves the packed notes among `ids` into the `notes` store, reading and rewriting each pack
 * that holds some of them once; afterwards the notes of `ids` that the copy has are records of
 * `notes`, to be read, changed or deleted there.
 */
export async function unpack(tx: Tx, ids: Iterable<string>): Promise<void> {
  const packs = tx.objectStore('packs')
  const wanted = [...new Set(ids)]
  const keys = await Promise.all(wanted.map((id) => packs.index('ids').getKey(id)))
  const taken = new Map<number, Set<string>>()
  wanted.forEach((id, i) => {
    const key = keys[i]
    if (key === undefined) return
    const set = taken.get(key) ?? new Set()
    taken.set(key, set.add(id))
  })
  await Promise.all(
    [...taken].map(async ([key, out]) => {
      const pack = await packs.get(key)
      if (!pack) return
      const stay = pack.notes.filter((n) => !out.has(n.id))
      await Promise.all([
        ...pack.notes.filter((n) => out.has(n.id)).map((n) => tx.objectStore('notes').put(n)),
        stay.length === 0
          ? packs.delete(key)
          : packs.put({ ids: stay.map((n) => n.id), notes: stay }, key),
      ])
    }),
  )
}

/** The base of an edit that started from `from`, the stored note being `old` (see `Local.edit`). */
function startingBase(old: LocalNote | undefined, from: EditStart | undefined): number {
  const stored = old?.base ?? 0
  if (from === undefined) return stored
  return from.base < stored && from.text !== undefined && old?.text === from.text
    ? stored
    : from.base
}

/**
 * Opens (or makes) the copy named `name`. `onBlocking` is called when another tab asks for a
 * newer version of the copy (`next`; null: it deletes the copy, as signing out does), just
 * before this connection closes to let it have it: a write started in `onBlocking` still
 * finishes, and nothing can be read or written here afterwards. `onBlocked` is called while
 * this open waits for an older tab to let go. A copy newer than this code rejects with a
 * `VersionError`.
 */
export async function openLocal(
  name: string,
  options: {
    random?: () => string
    onBlocking?: (next: number | null) => void
    onBlocked?: () => void
  } = {},
): Promise<Local> {
  const db: IDBPDatabase<Schema> = await openDB<Schema>(name, VERSION, {
    upgrade(db, oldVersion, _newVersion, tx) {
      if (oldVersion < 1) {
        db.createObjectStore('notes', { keyPath: 'id' })
        db.createObjectStore('queue', { keyPath: 'id' })
        db.createObjectStore('meta')
      }
      // Version 2: the list's first screen is read newest first from this index.
      if (oldVersion < 2) tx.objectStore('notes').createIndex('edited', 'edited')
      // Version 3: the first sync's packs. The notes and queue of an older copy stay as they
      // are: a note in `notes` is where the new layout keeps every note not packed.
      if (oldVersion < 3)
        db.createObjectStore('packs', { autoIncrement: true }).createIndex('ids', 'ids', {
          multiEntry: true,
        })
      // Version 4: the trash. An older copy starts with it empty; the server's trash fills it.
      if (oldVersion < 4) db.createObjectStore('trash', { keyPath: 'id' })
    },
    blocked() {
      // An older tab keeps the copy open and has not let go yet.
      options.onBlocked?.()
    },
    blocking(_current, next) {
      // Another tab wants a newer version of the copy: let it have it.
      try {
        options.onBlocking?.(next)
      } finally {
        db.close()
      }
    },
  })
  const random = options.random ?? (() => crypto.randomUUID())

  /**
   * The notes of `ids` wherever they are kept, in the order of `ids` (undefined: not stored),
   * reading each pack that holds some of them once.
   */
  async function find(ids: readonly string[]): Promise<(LocalNote | undefined)[]> {
    const tx = db.transaction(['notes', 'packs'])
    const kept = await Promise.all(ids.map((id) => tx.objectStore('notes').get(id)))
    const missing = ids.filter((_, i) => kept[i] === undefined)
    const keys = new Set(
      (
        await Promise.all(missing.map((id) => tx.objectStore('packs').index('ids').getKey(id)))
      ).filter((k) => k !== undefined),
    )
    const packed = new Map<string, LocalNote>()
    for (const pack of await Promise.all(
      [...keys].map((key) => tx.objectStore('packs').get(key)),
    )) {
      for (const note of pack?.notes ?? []) packed.set(note.id, note)
    }
    return ids.map((id, i) => kept[i] ?? packed.get(id))
  }

  /** How many notes are stored, deleted ones included. */
  async function count(tx: IDBPTransaction<Schema, Stores, IDBTransactionMode>): Promise<number> {
    const [kept, packed] = await Promise.all([
      tx.objectStore('notes').count(),
      tx.objectStore('packs').index('ids').count(),
    ])
    return kept + packed
  }

  async function nextSeq(tx: Tx): Promise<number> {
    const seq = Number((await tx.objectStore('meta').get('seq')) ?? 0) + 1
    await tx.objectStore('meta').put(seq, 'seq')
    return seq
  }

  /** Takes back the delete `entry` not sent yet: the note is live again, the save it replaced queued again. */
  async function takeBack(tx: Tx, entry: Pending): Promise<LocalNote | null> {
    const { id } = entry
    const queue = tx.objectStore('queue')
    await unpack(tx, [id])
    const note = await tx.objectStore('notes').get(id)
    let back: LocalNote | null = null
    if (note) {
      back = { ...note }
      delete back.deleted
      await tx.objectStore('notes').put(back)
    }
    if (entry.replaced) await queue.put({ ...entry.replaced, seq: await nextSeq(tx) })
    else await queue.delete(id)
    return back
  }

  function write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const tx = db.transaction(STORES, 'readwrite')
    // The transaction's own end decides: a quota error surfaces here as QuotaExceededError.
    return Promise.all([fn(tx), tx.done]).then(([value]) => value)
  }

  return {
    async device() {
      return write(async (tx) => {
        const known = await tx.objectStore('meta').get('device')
        if (typeof known === 'string') return known
        const made = `web-${random().slice(0, 18)}`
        await tx.objectStore('meta').put(made, 'device')
        return made
      })
    },

    async all() {
      const tx = db.transaction(['notes', 'packs'])
      const [kept, packs] = await Promise.all([
        tx.objectStore('notes').getAll(),
        tx.objectStore('packs').getAll(),
      ])
      return [...kept, ...packs.flatMap((p) => p.notes)].filter((n) => !n.deleted)
    },

    async newest(limit) {
      const tx = db.transaction(['notes', 'packs', 'queue'])
      const kept: LocalNote[] = []
      const packed: LocalNote[] = []
      const [stored, deletes] = await Promise.all([
        count(tx),
        tx
          .objectStore('queue')
          .getAll()
          .then((q) => q.filter((e) => e.op === 'delete').length),
        (async () => {
          for (
            let c = await tx.objectStore('notes').index('edited').openCursor(null, 'prev');
            c && kept.length < limit;
            c = await c.continue()
          ) {
            if (!c.value.deleted) kept.push(c.value)
          }
        })(),
        (async () => {
          // The pages came oldest first, so the last packs hold the newest packed notes; a
          // packed note is never deleted (a delete unpacks it first).
          for (
            let c = await tx.objectStore('packs').openCursor(null, 'prev');
            c && packed.length < limit;
            c = await c.continue()
          ) {
            packed.push(...c.value.notes)
          }
        })(),
      ])
      const notes = [...kept, ...packed].sort((a, b) => b.edited - a.edited).slice(0, limit)
      // A deleted note waits in the queue until its delete is sent.
      return { notes, count: Math.max(notes.length, stored - deletes) }
    },

    async get(id) {
      return (await find([id]))[0]
    },

    async getMany(ids) {
      return (await find(ids)).filter((n) => n !== undefined)
    },

    count() {
      return count(db.transaction(['notes', 'packs']))
    },

    edit(id, text, at, from) {
      return write(async (tx) => {
        await unpack(tx, [id])
        const notes = tx.objectStore('notes')
        const queue = tx.objectStore('queue')
        const old = await notes.get(id)
        const note: LocalNote = {
          ...old,
          id,
          text,
          base: old?.base ?? 0,
          edited: at,
          deleted: false,
        }
        delete note.deleted
        await notes.put(note)
        const entry = await queue.get(id)
        const base = entry?.op === 'save' ? entry.base : startingBase(old, from)
        await queue.put({ id, op: 'save', text, base, at, seq: await nextSeq(tx) })
        return note
      })
    },

    remove(id, at, undoMs) {
      return write(async (tx) => {
        await unpack(tx, [id])
        const notes = tx.objectStore('notes')
        const queue = tx.objectStore('queue')
        const note = await notes.get(id)
        if (!note) return
        await notes.put({ ...note, deleted: true })
        await tx.objectStore('trash').put({ id, text: note.text, deleted: at })
        const entry = await queue.get(id)
        const replaced = entry?.op === 'save' ? entry : undefined
        const base = replaced?.base ?? note.base
        const del: Pending = {
          id,
          op: 'delete',
          text: '',
          base,
          at,
          seq: await nextSeq(tx),
          notBefore: at + undoMs,
        }
        if (replaced) del.replaced = replaced
        await queue.put(del)
      })
    },

    undoRemove(id) {
      return write(async (tx) => {
        const queue = tx.objectStore('queue')
        const entry = await queue.get(id)
        if (entry?.op !== 'delete') return false
        await takeBack(tx, entry)
        await tx.objectStore('trash').delete(id)
        return true
      })
    },

    async trash() {
      return (await db.getAll('trash')).sort((a, b) => b.deleted - a.deleted)
    },

    replaceTrash(entries) {
      return write(async (tx) => {
        const trash = tx.objectStore('trash')
        const queue = tx.objectStore('queue')
        const server = new Set(entries.map((e) => e.id))
        for (const entry of await trash.getAll()) {
          if (server.has(entry.id)) continue
          if ((await queue.get(entry.id))?.op !== 'delete') await trash.delete(entry.id)
        }
        for (const entry of entries) {
          if ((await queue.get(entry.id))?.op !== 'save')
            await trash.put({ id: entry.id, text: entry.text, deleted: entry.deleted })
        }
      })
    },

    dropTrash(ids) {
      return write(async (tx) => {
        await Promise.all(ids.map((id) => tx.objectStore('trash').delete(id)))
      })
    },

    restore(id, at) {
      return write(async (tx) => {
        const trash = tx.objectStore('trash')
        const entry = await trash.get(id)
        if (!entry) return null
        await trash.delete(id)
        const queue = tx.objectStore('queue')
        const waiting = await queue.get(id)
        // Deleted here and not sent yet: the delete is taken back, as Undo does.
        if (waiting?.op === 'delete') return takeBack(tx, waiting)
        await unpack(tx, [id])
        // The server keeps the text of a deleted note, and a save of it brings it back.
        const note: LocalNote = { id, text: entry.text, base: entry.deleted, edited: at }
        await tx.objectStore('notes').put(note)
        await queue.put({
          id,
          op: 'save',
          text: entry.text,
          base: entry.deleted,
          at,
          seq: await nextSeq(tx),
        })
        return note
      })
    },

    mark(id, fields) {
      return write(async (tx) => {
        await unpack(tx, [id])
        const note = await tx.objectStore('notes').get(id)
        if (!note) return
        const next: LocalNote = { ...note, ...fields }
        if (fields.conflictOf === undefined) {
          delete next.conflictOf
          delete next.conflictHere
        }
        await tx.objectStore('notes').put(next)
      })
    },

    async pending() {
      return (await db.getAll('queue')).sort((a, b) => a.seq - b.seq)
    },

    waiting() {
      return db.count('queue')
    },

    write,

    async getSince() {
      return Number((await db.get('meta', 'since')) ?? 0)
    },

    async setSince(since) {
      await db.put('meta', since, 'since')
    },

    async destroy() {
      db.close()
      await new Promise<void>((resolve, reject) => {
        const req = indexedDB.deleteDatabase(name)
        req.onsuccess = () => resolve()
        req.onerror = () => reject(req.error!)
        // Another tab still has it open: it closes on `blocking`, then this succeeds.
        req.onblocked = () => {}
      })
    },

    close() {
      db.close()
    },
  }
}
