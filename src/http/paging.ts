/**
 * Paging of the lists (docs/tickets-api.md and docs/notes-api.md, "Pages: `limit` and `after`";
 * docs/live-events.md): the `limit` a request asks for, the opaque cursors a list hands out in
 * its `Link`, and the numeric cursor of the live events.
 *
 * @module
 */

/** A `limit`: a whole number from 1 to `max` (at most 9999) in decimal, or null. */
export function parseLimit(text: string, max: number): number | null {
  const limit = /^[0-9]{1,4}$/.test(text) ? Number(text) : NaN
  return limit >= 1 && limit <= max ? limit : null
}

/**
 * An opaque cursor: a value written as text (`format`) and sent as base64url. Opaque to clients
 * (the interfaces promise nothing about its form), so the form may change.
 */
export interface Cursors<T> {
  /** The cursor of `value`. */
  write(value: T): string
  /** The value a cursor of {@link write} stands for, or null for anything it did not make. */
  read(cursor: string): T | null
}

/**
 * Cursors of `T`: `format` writes a value as text, `parse` reads that text back (null when it
 * is not one). A cursor is read only when writing its value again gives the same cursor, so
 * every value has one cursor and nothing else is read as one.
 */
export function cursors<T>(
  format: (value: T) => string,
  parse: (text: string) => T | null,
  maxLength: number,
): Cursors<T> {
  const write = (value: T) => Buffer.from(format(value)).toString('base64url')
  return {
    write,
    read(cursor) {
      if (cursor.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null
      const value = parse(Buffer.from(cursor, 'base64url').toString('latin1'))
      return value !== null && write(value) === cursor ? value : null
    },
  }
}

/**
 * A cursor that is a place in a sequence (the live events' `seq`): a whole number from 0 in
 * decimal, without leading zeros, that a double holds exactly; or null.
 */
export function parseSequenceCursor(text: string): number | null {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) return null
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : null
}
