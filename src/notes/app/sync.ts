/**
 * The sync of this browser's copy with the server: sends the queue (one request at a time, in
 * the order of the edits) and applies each answer to the copy in the same transaction that
 * removes the entry; pulls what other devices changed through `/api/notes/changes?since=`
 * (the notes with their texts, a page at a time). Both run under one
 * lock shared by the browser's tabs (Web Locks), so two tabs never send the same entry twice.
 *
 * Answers, as docs/notes-api.md describes them:
 * - a save answered with the sent text: the note's `base` moves on;
 * - a merged text: the note takes it, and what was typed since the save was sent is merged into
 *   it here (the same line merge as the server's), so no keystroke is lost;
 * - a `copy`: the note takes the stored text and the sent text becomes the copy, marked as a
 *   conflicted copy of the note;
 * - a delete answered `kept`: the note comes back with the server's text.
 *
 * @module
 */
import { mergeText } from '../merge.ts'
import { pack, unpack, type Local, type LocalNote, type Pending, type Tx } from './local.ts'
import { newNoteId } from './text.ts'

/** A shared note's id (docs/notes-api.md, "Sharing with people"). */
export const SHARED_ID = /^shared-[A-Za-z0-9_-]{64}$/

/** A row of `GET /api/notes/shared`. */
interface SharedRow {
  id: string
  edited: number
  gone: boolean
  access: 'edit' | 'read'
  owner: { id: string; name: string }
}

/** A share of one of this person's notes, as `GET /api/notes/shares` lists it. */
export interface ShareOut {
  note: string
  person: { id: string; name: string }
  access: 'edit' | 'read'
}

/** What an HTTP exchange gave: a status and the parsed body, or null when the network failed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, read by callers that know its shape
export type Sent = { status: number; body: any } | null

/** A row of `/api/notes/changes` (docs/notes-api.md). */
interface Change {
  id: string
  edited: number
  gone: boolean
  text?: string
}

/**
 * A request to the server; null when it did not reach it. `watch`, when given, is the sync's
 * time limit: `signal` aborts the request once it has been silent too long, and `alive()` says
 * it is not (called when the answer's headers and each piece of its body arrive).
 */
export type Send = (
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  watch?: RequestWatch,
) => Promise<Sent>

/** See {@link Send}. */
export interface RequestWatch {
  signal: AbortSignal
  alive(): void
}

/** What the screen hears from the sync. */
export type SyncEvent =
  /** `notes`, when given, are the changed notes as now stored; an id without one was removed. */
  | { kind: 'changed'; ids: string[]; notes?: LocalNote[] }
  | { kind: 'merged'; id: string; sent: string; text: string }
  | { kind: 'copy'; id: string; copyId: string }
  | { kind: 'kept'; id: string }
  | { kind: 'refused'; id: string; error: string }
  | { kind: 'signed-out' }
  /**
   * A shared note left this person's list (the owner stopped sharing it, or deleted it); what
   * they had typed and not sent is the note `kept` of their own now (null when there was none).
   */
  | { kind: 'unshared'; id: string; title: string; kept: string | null }
  /** The shares of this person's notes, as the server now lists them. */
  | { kind: 'shares'; shares: ShareOut[] }

/** Runs `fn` while holding the lock named `name` (one holder at a time, across tabs). */
export type Lock = <T>(name: string, fn: () => Promise<T>) => Promise<T>

export interface Sync {
  /** Sends every entry that is due; resolves true when the queue is empty afterwards. */
  flush(): Promise<boolean>
  /** Fetches what changed since the last pull. */
  pull(): Promise<boolean>
  /** Fetches the notes shared with this person, and the shares of theirs. */
  pullShared(): Promise<boolean>
  /** Pull, then flush. */
  run(): Promise<boolean>
  /** The delay before the next retry after a failure (ms); 0 when nothing failed. */
  readonly backoff: number
}

const RETRY_FIRST_MS = 1_000
/**
 * How long a request may stay silent: no answer, or no piece of its body, for this long. A
 * request that never ends (a connection that went quiet after a laptop slept, a proxy that
 * holds it) would otherwise hold the sync, and its lock across tabs, for good: nothing would be
 * sent again until the page was reloaded. Past this it counts as not reaching the server and is
 * tried again, as after any failure; a save the server took meanwhile is answered the same when
 * sent again (docs/notes-api.md). Silence, not the whole time: a page of changes (up to about
 * 4 MB) on a slow link takes longer than this and is still arriving.
 */
const REQUEST_TIMEOUT_MS = 30_000
const RETRY_MAX_MS = 30_000

/** A conflicted copy's id: the note's id, `-copy-`, 12 characters (docs/notes-api.md). */
const COPY_ID = /^(.+)-copy-[A-Za-z0-9_-]{12}$/

export function createSync(deps: {
  local: Local
  send: Send
  clock: () => number
  lock: Lock
  onEvent: (event: SyncEvent) => void
  /** Schedules a retry; the browser passes setTimeout. */
  retry?: (fn: () => void, ms: number) => void
  /** How long a request may stay silent (ms); {@link REQUEST_TIMEOUT_MS} unless a test says less. */
  timeout?: number
  /** The device's words for itself ("Work laptop (Chrome on Android)"), read at each save for the history. */
  deviceName?: () => string
}): Sync {
  const { local, clock, lock, onEvent } = deps
  const timeout = deps.timeout ?? REQUEST_TIMEOUT_MS
  let failures = 0
  let retryArmed = false

  /** `deps.send`, given up (answered null) once it has been silent for `timeout`, even if it never ends. */
  function send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Sent> {
    const controller = new AbortController()
    return new Promise<Sent>((resolve) => {
      let timer = setTimeout(silent, timeout)
      function silent() {
        controller.abort()
        resolve(null)
      }
      const alive = () => {
        clearTimeout(timer)
        timer = setTimeout(silent, timeout)
      }
      deps
        .send(method, path, body, { signal: controller.signal, alive })
        .then(
          (answer) => resolve(answer),
          () => resolve(null),
        )
        .finally(() => clearTimeout(timer))
    })
  }

  function failed(): false {
    failures++
    schedule(Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failures - 1)))
    return false
  }

  function schedule(ms: number): void {
    if (!deps.retry || retryArmed) return
    retryArmed = true
    deps.retry(() => {
      retryArmed = false
      void flush()
    }, ms)
  }

  async function sendOne(entry: Pending, device: string): Promise<'sent' | 'failed' | 'stop'> {
    const body =
      entry.op === 'save'
        ? {
            op: 'save',
            id: entry.id,
            local: device,
            ...(deps.deviceName ? { device: deps.deviceName() } : {}),
            text: entry.text,
            base: entry.base,
            at: entry.at,
          }
        : { op: 'delete', id: entry.id, base: entry.base }
    const answer = await send('POST', '/api/notes', body)
    if (answer === null || answer.status >= 500 || answer.status === 408 || answer.status === 429)
      return 'failed'
    if (answer.status === 401) {
      onEvent({ kind: 'signed-out' })
      return 'stop'
    }
    if (answer.status === 403 && SHARED_ID.test(entry.id)) {
      // No longer shared with this person, or only to read: what they wrote stays theirs.
      const note = await keepAsOwn(entry.id)
      onEvent({ kind: 'changed', ids: note ? [entry.id, note.kept] : [entry.id] })
      if (note) onEvent({ kind: 'unshared', id: entry.id, title: note.title, kept: note.kept })
      return 'sent'
    }
    if (answer.status !== 200) {
      const error =
        typeof answer.body?.error === 'string' ? answer.body.error : `refused (${answer.status})`
      await local.write(async (tx) => {
        const now = await tx.objectStore('queue').get(entry.id)
        if (now?.seq === entry.seq) await tx.objectStore('queue').put({ ...now, refused: error })
      })
      onEvent({ kind: 'refused', id: entry.id, error })
      return 'sent'
    }
    if (entry.op === 'save') await settleSave(entry, answer.body)
    else await settleDelete(entry, answer.body)
    return 'sent'
  }

  async function settleSave(
    sent: Pending,
    answer: {
      id: string
      edited: number
      text: string
      copy?: { id: string; edited: number; text: string; by?: string }
    },
  ): Promise<void> {
    const events: SyncEvent[] = []
    await local.write(async (tx) => {
      await unpack(tx, answer.copy ? [sent.id, answer.copy.id] : [sent.id])
      const notes = tx.objectStore('notes')
      const queue = tx.objectStore('queue')
      const entry = await queue.get(sent.id)
      const note = await notes.get(sent.id)
      const newer = entry !== undefined && entry.seq !== sent.seq ? entry : null
      if (!newer) await queue.delete(sent.id)

      if (answer.copy) {
        // Ours became the copy; the note holds what the server kept.
        const copyText = newer?.op === 'save' ? newer.text : answer.copy.text
        await notes.put({
          id: answer.copy.id,
          text: copyText,
          base: answer.copy.edited,
          edited: answer.copy.edited,
          conflictOf: sent.id,
          conflictHere: true,
          ...(answer.copy.by ? { conflictBy: answer.copy.by } : {}),
        })
        if (newer?.op === 'save') {
          await queue.delete(sent.id)
          await queue.put({ ...newer, id: answer.copy.id, base: answer.copy.edited })
        } else if (newer) await queue.put({ ...newer, base: answer.edited })
        if (note)
          await notes.put({
            ...note,
            text: answer.text,
            base: answer.edited,
            edited: answer.edited,
          })
        events.push({ kind: 'copy', id: sent.id, copyId: answer.copy.id })
        return
      }

      if (!newer) {
        // The server's time of the save, not this device's clock: every device shows one time.
        if (note)
          await notes.put({
            ...note,
            text: answer.text,
            base: answer.edited,
            edited: answer.edited,
          })
        if (answer.text !== sent.text)
          events.push({ kind: 'merged', id: sent.id, sent: sent.text, text: answer.text })
        return
      }
      if (newer.op === 'delete') {
        await queue.put({
          ...newer,
          base: answer.edited,
          ...(newer.replaced ? { replaced: { ...newer.replaced, base: answer.edited } } : {}),
        })
        if (note) await notes.put({ ...note, base: answer.edited })
        return
      }
      // Typed on since the save was sent: rebase that typing onto the answer.
      const merged =
        answer.text === sent.text
          ? { ok: true as const, text: newer.text }
          : mergeText(sent.text, answer.text, newer.text)
      if (merged.ok) {
        await queue.put({ ...newer, text: merged.text, base: answer.edited })
        if (note) await notes.put({ ...note, text: merged.text, base: answer.edited })
        if (answer.text !== sent.text)
          events.push({ kind: 'merged', id: sent.id, sent: sent.text, text: answer.text })
      }
      // Otherwise the entry keeps its older base: the server merges it or keeps it as a copy.
    })
    onEvent({ kind: 'changed', ids: answer.copy ? [sent.id, answer.copy.id] : [sent.id] })
    for (const event of events) onEvent(event)
  }

  async function settleDelete(
    sent: Pending,
    answer: { ok?: true; kept?: true; id: string; edited: number; text: string },
  ): Promise<void> {
    let kept = false
    await local.write(async (tx) => {
      await unpack(tx, [sent.id])
      const notes = tx.objectStore('notes')
      const queue = tx.objectStore('queue')
      const entry = await queue.get(sent.id)
      const newer = entry !== undefined && entry.seq !== sent.seq ? entry : null
      if (!newer) await queue.delete(sent.id)
      if (answer.kept) {
        kept = true
        await tx.objectStore('trash').delete(sent.id)
        const note = await notes.get(sent.id)
        const back: LocalNote = {
          ...note,
          id: sent.id,
          text: answer.text,
          base: answer.edited,
          edited: answer.edited,
        }
        delete back.deleted
        if (!newer) await notes.put(back)
        return
      }
      if (!newer) await notes.delete(sent.id)
    })
    onEvent({ kind: 'changed', ids: [sent.id] })
    if (kept) onEvent({ kind: 'kept', id: sent.id })
  }

  async function flush(): Promise<boolean> {
    return lock('notes-sync', async () => {
      const device = await local.device()
      for (;;) {
        const now = clock()
        const due = (await local.pending()).filter((e) => !e.refused)
        const next = due.find((e) => (e.notBefore ?? 0) <= now)
        if (!next) {
          const later = due.map((e) => e.notBefore ?? 0).filter((t) => t > now)
          if (later.length > 0) schedule(Math.min(...later) - now + 50)
          return due.length === 0
        }
        const result = await sendOne(next, device).catch(() => 'failed' as const)
        if (result === 'failed') return failed()
        if (result === 'stop') return false
        failures = 0
      }
    })
  }

  async function pull(): Promise<boolean> {
    return lock('notes-sync', async () => {
      let since = await local.getSince()
      // A copy that held no note when the pull began (the first sync) holds only what this pull
      // wrote, so its pages are written without first reading each note of them back, and
      // the notes new to it are packed a page to a record (local.ts).
      const seen = since === 0 && (await local.count()) === 0 ? new Set<string>() : null
      const fetchPage = (from: number) => send('GET', `/api/notes/changes?since=${from}`)
      let next = fetchPage(since)
      for (;;) {
        const waited = performance.now()
        const answer = await next
        // Read by the bench: how long the pull waited for a page (beyond writing the one before).
        performance.measure('notes:pull-wait', { start: waited })
        if (answer === null || answer.status >= 500) return failed()
        if (answer.status === 401) {
          onEvent({ kind: 'signed-out' })
          return false
        }
        if (answer.status !== 200) return false
        const page = answer.body as { notes: Change[]; more: boolean }
        if (page.notes.length === 0) return true
        since = page.notes[page.notes.length - 1]!.edited
        // The next page travels while this one is written.
        if (page.more) next = fetchPage(since)
        const started = performance.now()
        const applied = await local.write(async (tx) => {
          const done = await applyChanges(tx, page.notes, seen)
          await tx.objectStore('meta').put(since, 'since')
          return done
        })
        // Read by the bench (bench/notes-app.bench.ts): the time to keep a page of changes.
        performance.measure('notes:pull-write', { start: started })
        if (applied.ids.length > 0) onEvent({ kind: 'changed', ...applied })
        if (!page.more) return true
      }
    })
  }

  /**
   * Puts what changed elsewhere into the copy, in one transaction, and says which notes changed
   * and what they hold now. A note with an entry waiting in the queue is left alone: that entry
   * was made from an older text, and its save merges with the newer one on the server. `seen`,
   * when given, holds every note the copy can have besides those with a queue entry; the notes
   * not in it are new, and are packed together.
   */
  async function applyChanges(
    tx: Tx,
    rows: readonly Change[],
    seen: Set<string> | null,
  ): Promise<{ ids: string[]; notes: LocalNote[] }> {
    const notes = tx.objectStore('notes')
    const trash = tx.objectStore('trash')
    const [waitingKeys, trashedKeys] = await Promise.all([
      tx.objectStore('queue').getAllKeys(),
      trash.getAllKeys(),
    ])
    const waiting = new Set(waitingKeys)
    const trashed = new Set(trashedKeys)
    const stored = rows
      .filter((r) => !waiting.has(r.id) && (seen === null || seen.has(r.id)))
      .map((r) => r.id)
    const stems =
      seen === null ? rows.map((r) => COPY_ID.exec(r.id)?.[1]).filter((s) => s !== undefined) : []
    await unpack(tx, [...stored, ...stems])
    const olds = await Promise.all(
      rows.map((r) =>
        waiting.has(r.id) || (seen !== null && !seen.has(r.id))
          ? Promise.resolve(undefined)
          : notes.get(r.id),
      ),
    )
    const known = new Set(olds.filter((n) => n !== undefined).map((n) => n.id))
    for (const row of rows) if (!row.gone && !waiting.has(row.id)) known.add(row.id)
    const ids: string[] = []
    const written: LocalNote[] = []
    const packed: LocalNote[] = []
    const writes: Promise<unknown>[] = []
    rows.forEach((row, i) => {
      const old = olds[i]
      if (waiting.has(row.id)) return
      if (row.gone) {
        if (old) {
          // Deleted on another device: its last text goes to the trash here too.
          writes.push(
            notes.delete(row.id),
            trash.put({ id: row.id, text: old.text, deleted: row.edited }),
          )
          ids.push(row.id)
          seen?.delete(row.id)
        }
        return
      }
      // Brought back on another device: no longer in the trash.
      if (trashed.has(row.id)) writes.push(trash.delete(row.id))
      if (old && old.base >= row.edited) return
      const note: LocalNote = {
        id: row.id,
        text: row.text ?? '',
        base: row.edited,
        edited: row.edited,
      }
      if (old?.conflictOf) note.conflictOf = old.conflictOf
      if (old?.conflictHere) note.conflictHere = true
      const stem = COPY_ID.exec(row.id)?.[1]
      if (!old && stem !== undefined && known.has(stem)) note.conflictOf = stem
      if (!old && stem !== undefined && !known.has(stem) && seen === null) {
        writes.push(
          notes.get(stem).then((n) => {
            if (n) note.conflictOf = stem
            return notes.put(note)
          }),
        )
      } else if (seen !== null && !seen.has(row.id)) packed.push(note)
      else writes.push(notes.put(note))
      ids.push(row.id)
      written.push(note)
      seen?.add(row.id)
    })
    writes.push(pack(tx, packed))
    await Promise.all(writes)
    return { ids, notes: written }
  }

  /**
   * Takes the shared note `id` out of the copy. A save of it waiting in the queue becomes a new
   * note of this person's own with that text, queued like a typed one; answers its id and the
   * title, or null when nothing waited.
   */
  async function keepAsOwn(id: string): Promise<{ kept: string; title: string } | null> {
    return local.write(async (tx) => {
      await unpack(tx, [id])
      const notes = tx.objectStore('notes')
      const queue = tx.objectStore('queue')
      const entry = await queue.get(id)
      const note = await notes.get(id)
      await Promise.all([notes.delete(id), queue.delete(id), tx.objectStore('trash').delete(id)])
      if (entry?.op !== 'save') return null
      const kept = newNoteId(clock())
      await notes.put({ id: kept, text: entry.text, base: 0, edited: entry.at })
      await queue.put({ ...entry, id: kept, base: 0 })
      return { kept, title: note?.text ?? entry.text }
    })
  }

  /**
   * The notes shared with this person: new and changed ones are read (their texts, one request
   * each, only for those whose `edited` moved), and those no longer shared leave the copy, what
   * was typed in them kept as notes of this person's own. Then the shares of this person's
   * notes, which the list marks.
   */
  async function pullShared(): Promise<boolean> {
    const answer = await send('GET', '/api/notes/shared')
    if (answer === null || answer.status >= 500) return failed()
    if (answer.status !== 200) return false
    const rows = (answer.body as { notes: SharedRow[] }).notes
    const listed = new Set(rows.map((r) => r.id))
    const held = (await local.all()).filter((n) => n.shared !== undefined)
    const heldById = new Map(held.map((n) => [n.id, n]))
    const waiting = new Set((await local.pending()).map((e) => e.id))
    // Texts to read: new to the copy, or newer than it, and not being edited here.
    const texts = new Map<string, string>()
    for (const row of rows) {
      const old = heldById.get(row.id)
      if (row.gone || waiting.has(row.id)) continue
      if (old && old.base >= row.edited) continue
      const view = await send('GET', `/api/notes?id=${encodeURIComponent(row.id)}`)
      if (view === null) return failed()
      if (view.status === 200) texts.set(row.id, view.body.text as string)
    }
    const changed: string[] = []
    const unshared: SyncEvent[] = []
    for (const note of held) {
      if (listed.has(note.id)) continue
      const kept = await keepAsOwn(note.id)
      changed.push(note.id, ...(kept ? [kept.kept] : []))
      unshared.push({
        kind: 'unshared',
        id: note.id,
        title: kept?.title ?? note.text,
        kept: kept?.kept ?? null,
      })
    }
    await local.write(async (tx) => {
      const ids = rows.map((r) => r.id)
      await unpack(tx, ids)
      const notes = tx.objectStore('notes')
      const queue = tx.objectStore('queue')
      for (const row of rows) {
        const shared = { owner: row.owner.name, access: row.access }
        const [old, entry] = await Promise.all([notes.get(row.id), queue.get(row.id)])
        if (row.gone) {
          // The owner deleted it: it leaves this list (a save waiting here brings it back).
          if (old && !entry) {
            await notes.delete(row.id)
            changed.push(row.id)
          }
          continue
        }
        const text = texts.get(row.id)
        if (text !== undefined && !entry) {
          await notes.put({
            ...old,
            id: row.id,
            text,
            base: row.edited,
            edited: row.edited,
            shared,
          })
          changed.push(row.id)
        } else if (
          old &&
          (old.shared?.access !== row.access || old.shared.owner !== shared.owner)
        ) {
          await notes.put({ ...old, shared })
          changed.push(row.id)
        }
      }
    })
    if (changed.length > 0) onEvent({ kind: 'changed', ids: changed })
    for (const event of unshared) onEvent(event)
    const mine = await send('GET', '/api/notes/shares')
    if (mine?.status === 200) onEvent({ kind: 'shares', shares: mine.body.shares as ShareOut[] })
    return true
  }

  return {
    flush,
    pull,
    pullShared: () => lock('notes-sync', pullShared),
    async run() {
      const pulled = await pull()
      const shared = await lock('notes-sync', pullShared)
      const flushed = await flush()
      return pulled && shared && flushed
    },
    get backoff() {
      return failures === 0 ? 0 : Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failures - 1))
    },
  }
}

/** A lock within one page (Node tests, or a browser without Web Locks). */
export function createLocalLock(): Lock {
  const tails = new Map<string, Promise<unknown>>()
  return (name, fn) => {
    const before = tails.get(name) ?? Promise.resolve()
    const run = before.then(fn, fn)
    tails.set(
      name,
      run.catch(() => {}),
    )
    return run
  }
}
