/**
 * This browser's copy of the notes, in IndexedDB (through `idb`): every note, a queue of saves
 * and deletes not yet accepted by the server, and a few settings (the device's `local` id, the
 * `since` of the last pull). An edit writes the note and its queue entry in one transaction,
 * before anything is sent; the queue holds one entry a note, so typing replaces the entry's
 * text and never piles up requests.
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
  /** Deleted here; the delete waits in the queue (and can be undone until it is sent). */
  deleted?: boolean
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

interface Schema extends DBSchema {
  notes: { key: string; value: LocalNote; indexes: { edited: number } }
  queue: { key: string; value: Pending }
  meta: { key: string; value: string | number }
}

type Tx = IDBPTransaction<Schema, ('notes' | 'queue' | 'meta')[], 'readwrite'>

export interface Local {
  /** The device's own `local` id, made once. */
  device(): Promise<string>
  /** Every note that is not deleted. */
  all(): Promise<LocalNote[]>
  /**
   * The `limit` most recently edited notes that are not deleted, and how many notes there are:
   * enough to draw the list's first screen without reading every note (a read that grows with
   * the number of notes, 1-2 s for 10,000 in Chromium).
   */
  newest(limit: number): Promise<{ notes: LocalNote[]; count: number }>
  get(id: string): Promise<LocalNote | undefined>
  /** The notes of `ids` that are stored (deleted ones included), in one transaction. */
  getMany(ids: readonly string[]): Promise<LocalNote[]>
  /** How many notes are stored, deleted ones included. */
  count(): Promise<number>
  /**
   * Stores an edit and queues its save, in one transaction. `base` is the server's `edited` of
   * the text the edit started from (the note's own when not given); a save already waiting
   * keeps its base.
   */
  edit(id: string, text: string, at: number, base?: number): Promise<LocalNote>
  /** Marks a note deleted and queues its delete, sent after `undoMs`. */
  remove(id: string, at: number, undoMs: number): Promise<void>
  /** Takes back a delete that was not sent yet; false when it was. */
  undoRemove(id: string): Promise<boolean>
  /** Changes a note's fields without queueing anything (a conflict marker cleared). */
  mark(id: string, fields: Partial<Pick<LocalNote, 'conflictOf'>>): Promise<void>
  /** The queue, oldest change first. */
  pending(): Promise<Pending[]>
  /** How many entries wait to be sent (refused ones included). */
  waiting(): Promise<number>
  /** Runs `fn` in one read-write transaction over the whole copy. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  getSince(): Promise<number>
  setSince(since: number): Promise<void>
  /** Deletes the whole copy (sign-out). */
  destroy(): Promise<void>
  close(): void
}

export type { Tx }

/** Opens (or makes) the copy named `name`; `factory` is the IndexedDB to use (tests pass a fake). */
export async function openLocal(name: string, options: { random?: () => string } = {}): Promise<Local> {
  const db: IDBPDatabase<Schema> = await openDB<Schema>(name, 2, {
    upgrade(db, oldVersion, _newVersion, tx) {
      if (oldVersion < 1) {
        db.createObjectStore('notes', { keyPath: 'id' })
        db.createObjectStore('queue', { keyPath: 'id' })
        db.createObjectStore('meta')
      }
      // Version 2: the list's first screen is read newest first from this index.
      if (oldVersion < 2) tx.objectStore('notes').createIndex('edited', 'edited')
    },
    blocking() {
      // Another tab wants a newer version of the copy: let it have it.
      db.close()
    },
  })
  const random = options.random ?? (() => crypto.randomUUID())

  async function nextSeq(tx: Tx): Promise<number> {
    const seq = Number((await tx.objectStore('meta').get('seq')) ?? 0) + 1
    await tx.objectStore('meta').put(seq, 'seq')
    return seq
  }

  function write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const tx = db.transaction(['notes', 'queue', 'meta'], 'readwrite')
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
      return (await db.getAll('notes')).filter((n) => !n.deleted)
    },

    async newest(limit) {
      const tx = db.transaction(['notes', 'queue'])
      const notes: LocalNote[] = []
      const [count, deletes] = await Promise.all([
        tx.objectStore('notes').count(),
        tx.objectStore('queue').getAll().then((q) => q.filter((e) => e.op === 'delete').length),
        (async () => {
          for (let c = await tx.objectStore('notes').index('edited').openCursor(null, 'prev'); c && notes.length < limit; c = await c.continue()) {
            if (!c.value.deleted) notes.push(c.value)
          }
        })(),
      ])
      // A deleted note waits in the queue until its delete is sent.
      return { notes, count: Math.max(notes.length, count - deletes) }
    },

    get(id) {
      return db.get('notes', id)
    },

    async getMany(ids) {
      const tx = db.transaction('notes')
      const found = await Promise.all(ids.map((id) => tx.store.get(id)))
      return found.filter((n) => n !== undefined)
    },

    count() {
      return db.count('notes')
    },

    edit(id, text, at, startedFrom) {
      return write(async (tx) => {
        const notes = tx.objectStore('notes')
        const queue = tx.objectStore('queue')
        const old = await notes.get(id)
        const note: LocalNote = { ...old, id, text, base: old?.base ?? 0, edited: at, deleted: false }
        delete note.deleted
        await notes.put(note)
        const entry = await queue.get(id)
        const base = entry?.op === 'save' ? entry.base : (startedFrom ?? note.base)
        await queue.put({ id, op: 'save', text, base, at, seq: await nextSeq(tx) })
        return note
      })
    },

    remove(id, at, undoMs) {
      return write(async (tx) => {
        const notes = tx.objectStore('notes')
        const queue = tx.objectStore('queue')
        const note = await notes.get(id)
        if (!note) return
        await notes.put({ ...note, deleted: true })
        const entry = await queue.get(id)
        const replaced = entry?.op === 'save' ? entry : undefined
        const base = replaced?.base ?? note.base
        const del: Pending = { id, op: 'delete', text: '', base, at, seq: await nextSeq(tx), notBefore: at + undoMs }
        if (replaced) del.replaced = replaced
        await queue.put(del)
      })
    },

    undoRemove(id) {
      return write(async (tx) => {
        const queue = tx.objectStore('queue')
        const entry = await queue.get(id)
        if (entry?.op !== 'delete') return false
        const note = await tx.objectStore('notes').get(id)
        if (note) {
          const back = { ...note }
          delete back.deleted
          await tx.objectStore('notes').put(back)
        }
        if (entry.replaced) await queue.put({ ...entry.replaced, seq: await nextSeq(tx) })
        else await queue.delete(id)
        return true
      })
    },

    mark(id, fields) {
      return write(async (tx) => {
        const note = await tx.objectStore('notes').get(id)
        if (!note) return
        const next: LocalNote = { ...note, ...fields }
        if (fields.conflictOf === undefined) delete next.conflictOf
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
        req.onerror = () => reject(req.error)
        // Another tab still has it open: it closes on `blocking`, then this succeeds.
        req.onblocked = () => {}
      })
    },

    close() {
      db.close()
    },
  }
}
