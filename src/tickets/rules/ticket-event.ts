/**
 * The shape of a history event as the API answers it and the pages and the browser script read
 * it: the kind's fields beside who made it and when. Its own module, so that the browser code
 * and the pure rules share it without importing the store (src/tickets/store/history.ts, which
 * reads and writes the `ticket_events` rows it is made from).
 *
 * The kinds' own fields: `comment` `text`; `state` `from`, `to`, `text`?; `assign` `from`, `to`
 * (users or null); `edit` the changed fields' `{ from, to }`; `link` `relation`, `action`,
 * `ticket`; `label` `action` (`added` or `removed`) and `label` (its name); `milestone` and
 * `due` `from` and `to` (a title or a day `YYYY-MM-DD`, or null).
 */

/** A history event: the kind's fields beside who made it and when. */
export interface TicketEvent {
  id: number
  kind: 'comment' | 'state' | 'assign' | 'edit' | 'link' | 'label' | 'milestone' | 'due'
  /** The acting person's name at the time. */
  by: string
  /** The acting person's user id (null for imported history). */
  user: string | null
  /** The label of the connected app the event was made through; null when a person made it. */
  app: string | null
  created: number
  [field: string]: unknown
}
