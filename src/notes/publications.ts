/**
 * Published notes: a note made readable by anyone holding its address, `/p/<id>`, with `id` 128
 * random bits. The page reads the note's text at each request, so it follows the owner's later
 * saves; unpublishing deletes the row, so every process answers 404 at once. A deleted note's
 * page answers 404 too (and comes back if the note is restored while still published).
 *
 * @module
 */
import type { Sql } from '../db/client.ts'
import { randomToken } from '../base/random.ts'

/** A publication as the owner's app sees it: which note, and its page's id. */
export interface Publication {
  /** The note's id. */
  note: string
  /** The page's id: its address is `/p/<id>`. */
  id: string
}

/** What a published page shows. */
export interface PublishedNote {
  text: string
  edited: number
}

export type Publications = ReturnType<typeof createPublications>

/** The publications on `sql`; `clock` stamps when each was made. */
export function createPublications(deps: { sql: Sql; clock: () => number }) {
  const { sql, clock } = deps
  return {
    /** The user's published notes, oldest publication first. */
    async list(user: string): Promise<Publication[]> {
      return [
        ...(await sql<Publication[]>`
        select note_id as note, id from note_publications
        where user_id = ${user}
        order by created, id`),
      ]
    },

    /**
     * Publishes the user's live note `note` (the same id again when it already is); null when the
     * user has no such live note.
     */
    async publish(user: string, note: string): Promise<Publication | null> {
      const [row] = await sql<Publication[]>`
        with live as (
          select id from notes where user_id = ${user} and id = ${note} and not gone
        ), made as (
          insert into note_publications (id, user_id, note_id, created)
          select ${randomToken(16)}, ${user}, live.id, ${clock()} from live
          on conflict (user_id, note_id) do nothing
          returning note_id as note, id
        )
        select note, id from made
        union all
        select note_id as note, id from note_publications
        where user_id = ${user} and note_id = ${note} and exists (select 1 from live)
        limit 1`
      if (row) return row
      // Published at the same moment by another request, whose row this statement's snapshot
      // could not see: read again.
      const [other] = await sql<Publication[]>`
        select note_id as note, id from note_publications where user_id = ${user} and note_id = ${note}`
      return other ?? null
    },

    /** Ends the publication of the user's note `note`; false when it was not published. */
    async unpublish(user: string, note: string): Promise<boolean> {
      const rows =
        await sql`delete from note_publications where user_id = ${user} and note_id = ${note} returning id`
      return rows.length > 0
    },

    /** The note published under `id`, when it is published and live. */
    async page(id: string): Promise<PublishedNote | null> {
      const [row] = await sql<PublishedNote[]>`
        select n.text, n.edited from note_publications p
        join notes n on n.user_id = p.user_id and n.id = p.note_id
        where p.id = ${id} and not n.gone`
      return row ?? null
    },
  }
}
