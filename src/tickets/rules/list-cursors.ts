/**
 * The cursor of a place in a ticket list (docs/tickets-api.md, "Pages: `limit` and `after`"):
 * the list's sort key, the ticket's number and its id (and, in the inbox, the due day's key
 * before them), opaque to clients. The API's `after` and
 * the inbox page's pages use it.
 *
 * @module
 */
import { cursors } from '../../http/paging.ts'
import type { ListPosition } from '../store/tickets.ts'

export const listCursors = cursors<ListPosition>(
  (p) => `${p.due === undefined ? '' : `${p.due}~`}${p.key}.${p.number}.${p.id}`,
  (text) => {
    const match =
      /^(?:([0-9]{1,10})~)?([0-9]{1,16})\.([0-9]{1,9})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(
        text,
      )
    if (match === null) return null
    const p: ListPosition = { key: Number(match[2]), number: Number(match[3]), id: match[4]! }
    if (match[1] !== undefined) p.due = Number(match[1])
    return Number.isSafeInteger(p.key) ? p : null
  },
  100,
)
