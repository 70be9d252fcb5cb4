/**
 * The shape of a history event as the API answers it and the pages and the browser script read
 * it: the kind's fields beside who made it and when. Its own module, so that the browser code
 * and the pure rules share it without importing the store (src/tickets/store/history.ts, which
 * reads and writes the `ticket_events` rows it is made from).
 */

/** A history event: the kind's fields beside who made it and when. */
export interface TicketEvent {
  id: number
  kind: 'comment' | 'state' | 'assign' | 'edit' | 'link'
  /** The acting person's name at the time. */
  by: string
  /** The acting person's user id (null for imported history). */
  user: string | null
  /** The label of the connected app the event was made through; null when a person made it. */
  app: string | null
  created: number
  [field: string]: unknown
}
