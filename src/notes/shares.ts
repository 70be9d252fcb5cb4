/**
 * Notes shared between people (docs/notes-api.md, "Sharing with people"): the names the service
 * learns at each sign-in, finding a person by one of them, and the shares of a note. The note
 * itself stays its owner's one row of `notes`; its saves through a share are the store's
 * (src/notes/store.ts), which checks each against the share.
 *
 * What a person may learn of other accounts: nothing is listed. A lookup by a whole name (the
 * sign-in name or the display name, in any case) answers the people of exactly that name who
 * have signed in to notes, with their id and the name the app shows; the people a note of yours
 * is shared with, and the owners of the notes shared with you, are shown by that name too.
 *
 * @module
 */
import type { Sql } from '../db/client.ts'
import { randomToken } from '../base/random.ts'
import { shownName } from '../auth/shown-name.ts'
import { refuse, type Refusal } from '../http/refusal.ts'
import { API, SHARE } from './messages.ts'

/** The most people one note is shared with. */
export const MAX_SHARES_PER_NOTE = 50
/** The most people one lookup answers (one name may be several people's display name). */
export const MAX_FOUND = 10
/** The most notes `GET /api/notes/shared` lists. */
export const MAX_SHARED = 1000

export type Access = 'edit' | 'read'

/** A person as another sees them: the id to share with, the name the app shows. */
export interface Person {
  id: string
  name: string
}

/** A share of one of the owner's notes. */
export interface Share {
  /** The owner's note id. */
  note: string
  person: Person
  access: Access
}

/** A note shared with the asker, as `GET /api/notes/shared` lists it. */
export interface SharedNote {
  /** The id the asker reads and saves it under. */
  id: string
  edited: number
  gone: boolean
  access: Access
  /** The owner. */
  owner: Person
}

export type Shares = ReturnType<typeof createShares>

export function createShares(deps: { sql: Sql; clock: () => number }) {
  const { sql, clock } = deps
  const person = (id: string, name: string | null, login: string | null): Person => ({
    id,
    name: name === null ? 'someone' : shownName(name, login),
  })

  return {
    /** Keeps the names a sign-in gave for `user`. */
    async seen(user: string, name: string, login: string | null): Promise<void> {
      await sql`
        insert into note_people (user_id, name, login, seen) values (${user}, ${name}, ${login}, ${clock()})
        on conflict (user_id) do update set name = excluded.name, login = excluded.login, seen = excluded.seen`
    },

    /** The people other than `asker` whose sign-in or display name is `name`, in any case. */
    async find(asker: string, name: string): Promise<Person[]> {
      const rows = await sql<{ user_id: string; name: string; login: string | null }[]>`
        select user_id, name, login from note_people
        where (lower(login) = lower(${name}) or lower(name) = lower(${name})) and user_id <> ${asker}
        order by lower(login) = lower(${name}) desc, seen desc
        limit ${MAX_FOUND}`
      return rows.map((r) => person(r.user_id, r.name, r.login))
    },

    /** Every share of the owner's notes, by note, then by when it was made. */
    async ofOwner(owner: string): Promise<Share[]> {
      const rows = await sql<
        {
          note: string
          sharee: string
          access: Access
          name: string | null
          login: string | null
        }[]
      >`
        select s.note_id as note, s.sharee_id as sharee, s.access, p.name, p.login
        from note_shares s left join note_people p on p.user_id = s.sharee_id
        where s.owner_id = ${owner}
        order by s.note_id, s.created, s.id`
      return rows.map((r) => ({
        note: r.note,
        person: person(r.sharee, r.name, r.login),
        access: r.access,
      }))
    },

    /**
     * Shares the owner's live note with `sharee`, or changes the access of its share. Refused
     * when there is no such live note, no such person, the person is the owner, or the note is
     * shared with {@link MAX_SHARES_PER_NOTE} people already.
     */
    async share(
      owner: string,
      note: string,
      sharee: string,
      access: Access,
    ): Promise<Share | Refusal> {
      if (sharee === owner) return refuse(400, SHARE.self)
      const [found] = await sql<
        {
          live: boolean
          name: string | null
          login: string | null
          known: boolean
          count: number
        }[]
      >`
        select
          exists (select 1 from notes where user_id = ${owner} and id = ${note} and not gone) as live,
          p.name, p.login, p.user_id is not null as known,
          (select count(*)::int from note_shares where owner_id = ${owner} and note_id = ${note} and sharee_id <> ${sharee}) as count
        from (select 1) one left join note_people p on p.user_id = ${sharee}`
      if (!found!.live) return refuse(404, API.noSuchNote)
      if (!found!.known) return refuse(400, SHARE.noPerson, 'person')
      if (found!.count >= MAX_SHARES_PER_NOTE) return refuse(400, SHARE.tooMany)
      await sql`
        insert into note_shares (id, owner_id, note_id, sharee_id, access, created)
        values (${`shared-${randomToken(48)}`}, ${owner}, ${note}, ${sharee}, ${access}, ${clock()})
        on conflict (owner_id, note_id, sharee_id) do update set access = excluded.access`
      return { note, person: person(sharee, found!.name, found!.login), access }
    },

    /** Ends the share of the owner's note with `sharee`; false when there was none. */
    async unshare(owner: string, note: string, sharee: string): Promise<boolean> {
      const rows = await sql`
        delete from note_shares where owner_id = ${owner} and note_id = ${note} and sharee_id = ${sharee}
        returning id`
      return rows.length > 0
    },

    /** The notes shared with `user`, most recently edited first. */
    async sharedWith(user: string): Promise<SharedNote[]> {
      const rows = await sql<
        {
          id: string
          edited: number
          gone: boolean
          access: Access
          owner: string
          name: string | null
          login: string | null
        }[]
      >`
        select s.id, n.edited, n.gone, s.access, s.owner_id as owner, p.name, p.login
        from note_shares s
        join notes n on n.user_id = s.owner_id and n.id = s.note_id
        left join note_people p on p.user_id = s.owner_id
        where s.sharee_id = ${user}
        order by n.edited desc
        limit ${MAX_SHARED}`
      return rows.map((r) => ({
        id: r.id,
        edited: r.edited,
        gone: r.gone,
        access: r.access,
        owner: person(r.owner, r.name, r.login),
      }))
    },

    /**
     * The note `asked` names for `user` (their own note, or one shared with them): the key of its
     * wake-ups (owner and note id, a line apart), its `edited` and whether it is gone; null when
     * there is no such note, or no longer such a share. One indexed read.
     */
    async watched(
      user: string,
      asked: string,
      shared: boolean,
    ): Promise<{ key: string; edited: number; gone: boolean } | null> {
      const [row] = shared
        ? await sql<{ owner: string; note: string; edited: number; gone: boolean }[]>`
            select s.owner_id as owner, s.note_id as note, n.edited, n.gone from note_shares s
            join notes n on n.user_id = s.owner_id and n.id = s.note_id
            where s.id = ${asked} and s.sharee_id = ${user}`
        : await sql<{ owner: string; note: string; edited: number; gone: boolean }[]>`
            select user_id as owner, id as note, edited, gone from notes
            where user_id = ${user} and id = ${asked}`
      return row ? { key: `${row.owner}\n${row.note}`, edited: row.edited, gone: row.gone } : null
    },
  }
}
