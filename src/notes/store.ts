/**
 * The note store (docs/notes-api.md, "Rules"): notes per user with a strictly rising `edited`, a
 * revision for every accepted save, tombstones, delta listing, and the save and delete rules.
 *
 * Every write first takes the lock of the user's clock row (`note_clocks`), then the note's row,
 * in one transaction, so the writes of one user are serialised: no save or delete of a note is
 * lost to another, and writes commit in the order of their `edited` values, which keeps
 * `?since=` exact. The three-way merge runs before the transaction on what was read without a
 * lock, and runs again inside it only when another write came in between.
 *
 * @module
 */
import type { Query, Sql } from '../db/client.ts'
import { transaction } from '../db/transaction.ts'
import { randomToken } from '../base/random.ts'
import { textDefect } from '../http/text.ts'
import { mergeText } from './merge.ts'
import { FIELD, SHARE } from './messages.ts'
import { refuse, type Refusal } from '../http/refusal.ts'
import { shownName } from '../auth/shown-name.ts'

/**
 * The id under which a note shared with a person appears to them (docs/notes-api.md, "Sharing
 * with people"): 'shared-' and 64 random characters, 71 in all, so never the id of a person's own
 * note (at most 64).
 */
export const SHARED_ID = /^shared-[A-Za-z0-9_-]{64}$/

/** Whether `id` has the form of a shared note's id. */
export function isSharedId(id: string): boolean {
  return id.length === 71 && SHARED_ID.test(id)
}

/** The longest note text, in JavaScript string indices. */
export const MAX_TEXT = 1_000_000
/** The longest `device` of a save. */
export const MAX_DEVICE = 64

/** A save as the client sends it (docs/notes-api.md, "Checks of /api/notes, in order", item 5). */
export interface SaveInput {
  id: string
  /** The id of the client device that made the save. */
  local: string
  text: string
  /** The `edited` of the note the client's text was based on. */
  base: number
  /** The client's time of the edit. */
  at: number
  /** The words the device gives itself ("Chrome on Android"), shown in the history. */
  device?: string
}

export interface DeleteInput {
  id: string
  base: number
}

/** A row of the note list. */
export interface NoteRow {
  id: string
  edited: number
  gone: boolean
}

export interface NoteView {
  id: string
  text: string
  edited: number
  created: number
}

/** The answer to a save: the note as stored, and the sent text as a new note when it collided. */
export interface SaveResult {
  id: string
  edited: number
  text: string
  copy?: { id: string; edited: number; text: string; by?: string }
}

/** One accepted save of a note, as the history shows it. */
export interface Revision {
  edited: number
  at: number
  local: string
  /** The device's own words for itself, null when the save carried none. */
  device: string | null
  text: string
  /** Who saved it, as the app shows them (null for a save of someone the service has not seen sign in). */
  by: string | null
}

/** A row of the changes feed: a live note with its text, or a tombstone (no text). */
export interface Change {
  id: string
  edited: number
  gone: boolean
  text?: string
}

/** The most rows of one changes answer. */
export const MAX_CHANGES = 500
/** Past this many characters of text, a changes answer stops (it always holds one row). */
export const MAX_CHANGE_CHARS = 4_000_000

/** The most revisions one history answer holds, newest first. */
export const MAX_REVISIONS = 100
/** Past this many characters of text, a history answer stops (it always holds the newest). */
export const MAX_REVISION_CHARS = 5_000_000

export type DeleteResult = { ok: true } | { kept: true; id: string; edited: number; text: string }

export interface NoteStore {
  /**
   * The user's notes, tombstones included, oldest edit first; only those edited after `since`
   * when given, and the first `limit` of them when given.
   */
  list(user: string, since?: number, limit?: number): Promise<NoteRow[]>
  /**
   * The version of the user's list: the last `edited` given out to the user (0 before the
   * first write). Every write that changes a row of the list takes a new one, so the list is
   * the same as long as this is: one indexed lookup of `note_clocks`.
   */
  version(user: string): Promise<number>
  /** A live note of the user, or null (also for a tombstone). */
  get(user: string, id: string): Promise<NoteView | null>
  save(user: string, input: SaveInput): Promise<SaveResult | Refusal>
  /**
   * What changed after `since`, oldest edit first, with the text of each live note: at most
   * {@link MAX_CHANGES} rows and about {@link MAX_CHANGE_CHARS} characters; `more` says that
   * rows after the last one wait for the next call (with `since` set to its `edited`).
   */
  changes(user: string, since: number): Promise<{ notes: Change[]; more: boolean }>
  /**
   * The revisions of a live note of the user, newest first: at most {@link MAX_REVISIONS}, and
   * no more than {@link MAX_REVISION_CHARS} characters of text after the newest. Null when the
   * user has no such note (also for a tombstone).
   */
  revisions(user: string, id: string): Promise<Revision[] | null>
  remove(user: string, input: DeleteInput): Promise<DeleteResult | Refusal>
  /**
   * The user's deleted notes whose text is still kept (deleted at most {@link TRASH_DAYS} days
   * ago by the store's clock), last deleted first, with their last text: at most
   * {@link MAX_TRASH}, and no more than {@link MAX_CHANGE_CHARS} characters after the first.
   */
  trash(user: string): Promise<TrashedNote[]>
  /**
   * Removes for good the text and history of deleted notes: of `user` (every user when null)
   * deleted before `before` (any time when null). The tombstones stay. Returns how many.
   */
  purge(user: string | null, before: number | null): Promise<number>
}

/** Which note a save writes, who writes it, and whose the copy of a collision is. */
interface Target {
  /** The owner of the note's row. */
  owner: string
  /** The note's id among the owner's notes. */
  note: string
  /** The id the save named, answered back. */
  asked: string
  /** Who saves: the owner, or a person the note is shared with. */
  author: string
}

/** A deleted note in the trash: when it was deleted, until when it is kept, its last text. */
export interface TrashedNote {
  id: string
  /** The tombstone's `edited`: the time of the delete. */
  deleted: number
  /** When its text and history are removed for good. */
  until: number
  text: string
}

/** How long a deleted note's text and history are kept. */
export const TRASH_DAYS = 30
export const TRASH_MS = TRASH_DAYS * 24 * 60 * 60 * 1000
/** The most deleted notes the trash lists. */
export const MAX_TRASH = 500

/** The stored state a save is decided on. */
interface Stored {
  text: string
  edited: number
  gone: boolean
  /** The text of the revision at the save's `base`, when there is one. */
  baseText: string | null
}

/** What a save does, decided from the stored state alone. */
type Plan = { kind: 'write'; text: string } | { kind: 'keep' } | { kind: 'copy' }

/** Builds the store on `sql`; `clock` gives milliseconds since the epoch. */
export function createNoteStore(deps: {
  sql: Sql
  clock: () => number
  /**
   * Told after each write of a note, by its owner and id, with the note's `edited` and whether it
   * is gone now (the waits of `/api/notes/wait`).
   */
  onSaved?: (owner: string, note: string, now: { edited: number; gone: boolean }) => void
}): NoteStore {
  const { sql, clock } = deps

  /** Takes the user's clock row lock and the next `edited`: max(clock, last + 1). */
  async function nextEdited(tx: Query, user: string): Promise<number> {
    const [row] = await tx<{ last_edited: number }[]>`
      insert into note_clocks (user_id, last_edited) values (${user}, ${clock()})
      on conflict (user_id) do update set last_edited = greatest(excluded.last_edited, note_clocks.last_edited + 1)
      returning last_edited`
    return row!.last_edited
  }

  /**
   * The common save in one statement: a new note, a tombstone brought back, or a replace on a
   * matching `base`. Null when the save needs the slow path (the note changed since `base`, or
   * the text is unchanged).
   */
  async function quickSave(user: string, input: SaveInput): Promise<SaveResult | null> {
    const [row] = await sql<{ edited: number }[]>`
      with clock as (
        insert into note_clocks (user_id, last_edited) values (${user}, ${clock()})
        on conflict (user_id) do update set last_edited = greatest(excluded.last_edited, note_clocks.last_edited + 1)
        returning last_edited
      ), saved as (
        insert into notes (user_id, id, text, created, edited, gone)
        select ${user}, ${input.id}, ${input.text}, last_edited, last_edited, false from clock
        on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited, gone = false, purged = false
        where notes.gone or (notes.edited = ${input.base} and notes.text <> excluded.text)
        returning edited
      ), revision as (
        insert into note_revisions (user_id, note_id, edited, text, at, local, device)
        select ${user}, ${input.id}, edited, ${input.text}, ${input.at}, ${input.local}, ${input.device ?? null} from saved
      )
      select edited from saved`
    return row ? { id: input.id, edited: row.edited, text: input.text } : null
  }

  async function slowSave(user: string, input: SaveInput): Promise<SaveResult> {
    const target: Target = { owner: user, note: input.id, asked: input.id, author: user }
    const seen = await readStored(sql, target, input.base, false)
    const early = seen === null ? null : { edited: seen.edited, plan: plan(seen, input) }
    return transaction(sql, async (tx) => {
      const edited = await nextEdited(tx, user)
      const stored = await readStored(tx, target, input.base, true)
      // Every write gives the note a new `edited`, so an equal one means nothing changed since.
      const decided: Plan =
        stored === null
          ? { kind: 'write', text: input.text }
          : early !== null && early.edited === stored.edited
            ? early.plan
            : plan(stored, input)
      return apply(tx, target, input, stored, decided, edited, edited)
    })
  }

  /**
   * A save of a note shared with `user` (docs/notes-api.md, "Sharing with people"), in one
   * transaction: the share is read and held (an unshare waits for the save, or the save sees it
   * gone), then both people's clock rows are taken in the order of their ids (so two people
   * saving each other's notes never wait on each other in a circle), then the note. A collision
   * keeps the stored text and makes the sent text a note of `user`'s own.
   */
  async function sharedSave(user: string, input: SaveInput): Promise<SaveResult | Refusal> {
    const result = await transaction(sql, async (tx) => {
      const [share] = await tx<{ owner_id: string; note_id: string; access: string }[]>`
        select owner_id, note_id, access from note_shares
        where id = ${input.id} and sharee_id = ${user}
        for share`
      if (!share) return refuse(403, SHARE.notShared)
      if (share.access !== 'edit') return refuse(403, SHARE.readOnly)
      const target: Target = {
        owner: share.owner_id,
        note: share.note_id,
        asked: input.id,
        author: user,
      }
      const clocks = new Map<string, number>()
      for (const person of [target.owner, user].sort())
        if (!clocks.has(person)) clocks.set(person, await nextEdited(tx, person))
      const stored = await readStored(tx, target, input.base, true)
      const decided: Plan =
        stored === null ? { kind: 'write', text: input.text } : plan(stored, input)
      return {
        target,
        saved: await apply(
          tx,
          target,
          input,
          stored,
          decided,
          clocks.get(target.owner)!,
          clocks.get(user)!,
        ),
      }
    })
    if ('status' in result) return result
    deps.onSaved?.(result.target.owner, result.target.note, {
      edited: result.saved.edited,
      gone: false,
    })
    return result.saved
  }

  /**
   * Writes what `decided` says. `edited` is the owner's next `edited`; `copyEdited` the
   * author's, for a copy, which is the author's own note.
   */
  async function apply(
    tx: Query,
    t: Target,
    input: SaveInput,
    stored: Stored | null,
    decided: Plan,
    edited: number,
    copyEdited: number,
  ): Promise<SaveResult> {
    if (decided.kind === 'keep') return { id: t.asked, edited: stored!.edited, text: stored!.text }
    if (decided.kind === 'write') {
      await tx`
        insert into notes (user_id, id, text, created, edited, gone)
        values (${t.owner}, ${t.note}, ${decided.text}, ${edited}, ${edited}, false)
        on conflict (user_id, id) do update set text = excluded.text, edited = excluded.edited, gone = false, purged = false`
      await addRevision(tx, t.owner, t.note, edited, decided.text, input, t)
      return { id: t.asked, edited, text: decided.text }
    }
    const copyId = copyIdFor(t.asked)
    // Who wrote the text kept, when another person than the one saving: the copy says so.
    const [last] = await tx<{ author: string | null }[]>`
      select author from note_revisions where user_id = ${t.owner} and note_id = ${t.note}
      order by edited desc limit 1`
    const writer = last?.author ?? t.owner
    const by = writer === t.author ? null : await nameOf(tx, writer)
    await tx`
      insert into notes (user_id, id, text, created, edited, gone)
      values (${t.author}, ${copyId}, ${input.text}, ${copyEdited}, ${copyEdited}, false)`
    await addRevision(tx, t.author, copyId, copyEdited, input.text, input, null)
    return {
      id: t.asked,
      edited: stored!.edited,
      text: stored!.text,
      copy: { id: copyId, edited: copyEdited, text: input.text, ...(by ? { by } : {}) },
    }
  }

  /** A revision; `t`, when the author is not the note's owner, records who wrote it. */
  async function addRevision(
    tx: Query,
    user: string,
    noteId: string,
    edited: number,
    text: string,
    input: SaveInput,
    t: Target | null,
  ): Promise<void> {
    const author = t !== null && t.author !== t.owner ? t.author : null
    await tx`
      insert into note_revisions (user_id, note_id, edited, text, at, local, device, author)
      values (${user}, ${noteId}, ${edited}, ${text}, ${input.at}, ${input.local}, ${input.device ?? null}, ${author})`
  }

  /** The owner and id of the note shared with `user` as `id`, with the access; null when it is not. */
  async function shareOf(
    user: string,
    id: string,
  ): Promise<{ owner: string; note: string; access: string } | null> {
    const [row] = await sql<{ owner: string; note: string; access: string }[]>`
      select owner_id as owner, note_id as note, access from note_shares
      where id = ${id} and sharee_id = ${user}`
    return row ?? null
  }

  return {
    async list(user, since, limit) {
      const rows = await sql<NoteRow[]>`
        select id, edited, gone from notes
        where user_id = ${user} and edited > ${since ?? -1}
        order by edited
        limit ${limit ?? null}`
      return [...rows]
    },

    async version(user) {
      const [row] = await sql<
        { last_edited: number }[]
      >`select last_edited from note_clocks where user_id = ${user}`
      return row?.last_edited ?? 0
    },

    async get(user, id) {
      const share = isSharedId(id) ? await shareOf(user, id) : null
      if (isSharedId(id) && share === null) return null
      const [row] = await sql<NoteView[]>`
        select id, text, edited, created from notes
        where user_id = ${share?.owner ?? user} and id = ${share?.note ?? id} and not gone`
      return row ? { ...row, id } : null
    },

    async save(user, input) {
      const refused = checkSave(input)
      if (refused) return refused
      if (isSharedId(input.id)) return sharedSave(user, input)
      const saved = (await quickSave(user, input)) ?? (await slowSave(user, input))
      deps.onSaved?.(user, input.id, { edited: saved.edited, gone: false })
      return saved
    },

    async changes(user, since) {
      const rows = await sql<{ id: string; edited: number; gone: boolean; text: string | null }[]>`
        select id, edited, gone, case when gone then null else text end as text from notes
        where user_id = ${user} and edited > ${since}
        order by edited
        limit ${MAX_CHANGES + 1}`
      const notes: Change[] = []
      let chars = 0
      for (const row of rows) {
        if (
          notes.length === MAX_CHANGES ||
          (notes.length > 0 && chars + (row.text?.length ?? 0) > MAX_CHANGE_CHARS)
        )
          break
        chars += row.text?.length ?? 0
        notes.push(
          row.gone
            ? { id: row.id, edited: row.edited, gone: true }
            : { id: row.id, edited: row.edited, gone: false, text: row.text! },
        )
      }
      return { notes, more: notes.length < rows.length }
    },

    async revisions(asker, asked) {
      let user = asker
      let id = asked
      if (isSharedId(asked)) {
        const share = await shareOf(asker, asked)
        if (share === null) return null
        user = share.owner
        id = share.note
      }
      const rows = await sql<
        (Omit<Revision, 'by'> & { name: string | null; login: string | null })[]
      >`
        select r.edited, r.at, r.local, r.device, r.text, p.name, p.login
        from notes n join note_revisions r on r.user_id = n.user_id and r.note_id = n.id
        left join note_people p on p.user_id = coalesce(r.author, r.user_id)
        where n.user_id = ${user} and n.id = ${id} and not n.gone
        order by r.edited desc
        limit ${MAX_REVISIONS}`
      if (rows.length === 0) {
        const [note] =
          await sql`select 1 from notes where user_id = ${user} and id = ${id} and not gone`
        return note ? [] : null
      }
      const out: Revision[] = []
      let chars = 0
      for (const row of rows) {
        if (out.length > 0 && chars + row.text.length > MAX_REVISION_CHARS) break
        chars += row.text.length
        out.push({
          edited: row.edited,
          at: row.at,
          local: row.local,
          device: row.device,
          text: row.text,
          by: row.name === null ? null : shownName(row.name, row.login),
        })
      }
      return out
    },

    async remove(user, input) {
      const refused = checkString('id', input.id) ?? checkTime('base', input.base)
      if (refused) return refused
      // A person the note is shared with deletes it from their own list only: the share ends
      // for them, and the owner's note stays (docs/notes-api.md, "Sharing with people").
      if (isSharedId(input.id)) {
        const left = await sql`
          delete from note_shares where id = ${input.id} and sharee_id = ${user} returning id`
        return left.length > 0 ? { ok: true } : refuse(403, SHARE.notShared)
      }
      let edited = 0
      const removed = await transaction(sql, async (tx): Promise<DeleteResult> => {
        edited = await nextEdited(tx, user)
        const [row] = await tx<{ text: string; edited: number; gone: boolean }[]>`
          select text, edited, gone from notes
          where user_id = ${user} and id = ${input.id}
          for update`
        if (!row || row.gone) return { ok: true }
        if (row.edited !== input.base)
          return { kept: true, id: input.id, edited: row.edited, text: row.text }
        await tx`update notes set gone = true, purged = false, edited = ${edited} where user_id = ${user} and id = ${input.id}`
        return { ok: true }
      })
      if ('ok' in removed && edited !== 0) deps.onSaved?.(user, input.id, { edited, gone: true })
      return removed
    },

    async trash(user) {
      const rows = await sql<{ id: string; edited: number; text: string }[]>`
        select id, edited, text from notes
        where user_id = ${user} and gone and not purged and edited >= ${clock() - TRASH_MS}
        order by edited desc
        limit ${MAX_TRASH}`
      const out: TrashedNote[] = []
      let chars = 0
      for (const row of rows) {
        if (out.length > 0 && chars + row.text.length > MAX_CHANGE_CHARS) break
        chars += row.text.length
        out.push({ id: row.id, deleted: row.edited, until: row.edited + TRASH_MS, text: row.text })
      }
      return out
    },

    async purge(user, before) {
      // One statement: a save that brings a note back meanwhile either commits first (the row is
      // no longer gone, so it is passed over) or waits for this one and writes its text anew.
      const rows = await sql<{ n: number }[]>`
        with purged as (
          update notes set text = '', purged = true
          where gone and not purged
            and (${user}::text is null or user_id = ${user})
            and (${before}::bigint is null or edited < ${before})
          returning user_id, id
        ), history as (
          delete from note_revisions r using purged p
          where r.user_id = p.user_id and r.note_id = p.id
        )
        select count(*)::int as n from purged`
      return rows[0]!.n
    },
  }
}

/**
 * What a save does to a note that exists (docs/notes-api.md, "Saves"): a tombstone is brought back
 * with the sent text (an edit beats a deletion); an identical text changes nothing; a matching
 * `base` replaces; otherwise the three texts merge, and a collision or an unknown `base` keeps
 * the stored text and makes the sent text a copy.
 */
function plan(stored: Stored, input: SaveInput): Plan {
  if (stored.gone) return { kind: 'write', text: input.text }
  if (stored.text === input.text) return { kind: 'keep' }
  if (stored.edited === input.base) return { kind: 'write', text: input.text }
  if (stored.baseText === null) return { kind: 'copy' }
  const merged = mergeText(stored.baseText, stored.text, input.text)
  if (!merged.ok) return { kind: 'copy' }
  return merged.text === stored.text ? { kind: 'keep' } : { kind: 'write', text: merged.text }
}

/** The note and the text at the save's `base`; `lock` takes the note row's lock. */
async function readStored(
  sql: Query,
  t: Target,
  base: number,
  lock: boolean,
): Promise<Stored | null> {
  const [row] = await sql<
    { text: string; edited: number; gone: boolean; base_text: string | null }[]
  >`
    select n.text, n.edited, n.gone, r.text as base_text
    from notes n
    left join note_revisions r on r.user_id = n.user_id and r.note_id = n.id and r.edited = ${base}
    where n.user_id = ${t.owner} and n.id = ${t.note}
    ${lock ? sql`for update of n` : sql``}`
  return row
    ? { text: row.text, edited: row.edited, gone: row.gone, baseText: row.base_text }
    : null
}

/** The name the app shows for `user`, or null when the service has not seen them sign in. */
async function nameOf(sql: Query, user: string): Promise<string | null> {
  const [row] = await sql<{ name: string; login: string | null }[]>`
    select name, login from note_people where user_id = ${user}`
  return row ? shownName(row.name, row.login) : null
}

/** A fresh id for a copy: the note's id (cut to 40) and 72 random bits, at most 58 characters. */
function copyIdFor(id: string): string {
  const stem = id.slice(0, 40).replace(/[\uD800-\uDBFF]$/, '')
  return `${stem}-copy-${randomToken(9)}`
}

/**
 * The store's checks of a save (docs/notes-api.md, "Checks of /api/notes, in order", item 7), in
 * the order of the fields.
 */
function checkSave(input: SaveInput): Refusal | null {
  return (
    checkString('id', input.id) ??
    checkString('local', input.local) ??
    checkText(input.text) ??
    checkTime('base', input.base) ??
    checkTime('at', input.at) ??
    (input.device === undefined ? null : checkDevice(input.device))
  )
}

/** A device's words for itself: at most {@link MAX_DEVICE} characters, something in them. */
function checkDevice(device: string): Refusal | null {
  if (device.trim() === '' || device.length > MAX_DEVICE) return refuse(400, FIELD.device, 'device')
  return checkCharacters('device', device)
}

function checkString(field: string, value: string): Refusal | null {
  if (value === '') return refuse(400, FIELD.empty(field), field)
  return checkCharacters(field, value)
}

function checkText(text: string): Refusal | null {
  if (text.length > MAX_TEXT) return refuse(400, FIELD.textTooLong, 'text')
  return checkCharacters('text', text)
}

// PostgreSQL text cannot hold U+0000, and a lone surrogate would be stored as U+FFFD: both are
// refused (src/http/text.ts) rather than failing in the database or changing the text silently.
function checkCharacters(field: string, value: string): Refusal | null {
  const defect = textDefect(value)
  return defect === null ? null : refuse(400, FIELD[defect](field), field)
}

/** A time: a whole number from 0 that a double holds exactly (bigint columns). */
function checkTime(field: string, value: number): Refusal | null {
  return Number.isSafeInteger(value) && value >= 0
    ? null
    : refuse(400, FIELD.wholeNumber(field), field)
}
