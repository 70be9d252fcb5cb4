/**
 * What a notification says of itself (docs/notifications.md): why the person was told and what
 * caused it. Values shared by the store, the domain and the pages' words.
 */
import type { TicketEvent } from './ticket-event.ts'

/** Why a person is told: `due` is the reminder of a due day (docs/notifications.md, "Due dates"). */
export type Reason = 'assigned' | 'mentioned' | 'watching' | 'due'

/** The reasons a person chooses app and mail for. */
export const KINDS = ['assigned', 'mentioned', 'watching', 'due'] as const
export type Kind = (typeof KINDS)[number]

export function isKind(text: string): text is Kind {
  return (KINDS as readonly string[]).includes(text)
}

/**
 * What caused a notification: a ticket's creation, the kind of its history event, or a due-date
 * reminder (the day before the due day, or the day itself; reason `due`).
 */
export type Cause = 'created' | TicketEvent['kind'] | DueReminder

/** The kinds of a due-date reminder. */
export type DueReminder = 'due_tomorrow' | 'due_today'

export function isDueReminder(kind: string): kind is DueReminder {
  return kind === 'due_tomorrow' || kind === 'due_today'
}

/**
 * The due day a reminder made at `at` names: the day after `at`'s (UTC) for `due_tomorrow`,
 * `at`'s own for `due_today` (the sweep makes it at the time it reads the day).
 */
export function reminderDay(kind: DueReminder, at: number): string {
  const day = new Date(at)
  if (kind === 'due_tomorrow') day.setUTCDate(day.getUTCDate() + 1)
  return day.toISOString().slice(0, 10)
}

/** "web#12 is due tomorrow (2026-12-08)", "web#12 is due today (2026-12-08)". */
export function reminderSentence(ref: string, kind: DueReminder, at: number): string {
  return `${ref} is due ${kind === 'due_today' ? 'today' : 'tomorrow'} (${reminderDay(kind, at)})`
}
