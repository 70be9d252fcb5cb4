/**
 * What a notification says of itself (docs/notifications.md): why the person was told and what
 * caused it. Values shared by the store, the domain and the pages' words.
 */
import type { TicketEvent } from './ticket-event.ts'

/** Why a person is told. `due` belongs to due dates (another issue), kept here for their rows. */
export type Reason = 'assigned' | 'mentioned' | 'watching' | 'due'

/** The reasons a person chooses app and mail for. */
export const KINDS = ['assigned', 'mentioned', 'watching'] as const
export type Kind = (typeof KINDS)[number]

export function isKind(text: string): text is Kind {
  return (KINDS as readonly string[]).includes(text)
}

/** What caused a notification: a ticket's creation, or the kind of its history event. */
export type Cause = 'created' | TicketEvent['kind'] | 'due'
