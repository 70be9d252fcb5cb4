/**
 * A person's pinned notes (docs/notes-api.md, "Pins"): kept on the server so a note pinned on
 * one device is pinned on every device of theirs. Each Pin or Unpin carries the device's time;
 * the later choice of a note wins, so choices made offline settle the same everywhere.
 *
 * @module
 */
import type { Sql } from '../db/client.ts'

/** The most notes one person has pinned (the list answers the most recent choices). */
export const MAX_PINS = 1000

export type Pins = ReturnType<typeof createPins>

export function createPins(deps: { sql: Sql }) {
  const { sql } = deps
  return {
    /** The ids of the person's pinned notes, last pinned first. */
    async list(user: string): Promise<string[]> {
      const rows = await sql<{ note_id: string }[]>`
        select note_id from note_pins where user_id = ${user} and pinned
        order by at desc, note_id
        limit ${MAX_PINS}`
      return rows.map((r) => r.note_id)
    },

    /** Pins or unpins note `note` as chosen at `at`; a choice older than the kept one changes nothing. */
    async choose(user: string, note: string, pinned: boolean, at: number): Promise<void> {
      await sql`
        insert into note_pins (user_id, note_id, pinned, at) values (${user}, ${note}, ${pinned}, ${at})
        on conflict (user_id, note_id) do update set pinned = excluded.pinned, at = excluded.at
        where note_pins.at <= excluded.at`
    },
  }
}
