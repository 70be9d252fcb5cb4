/**
 * The words of the notifications page (docs/notifications.md, "In the app"): a ticket's unread
 * notifications in one sentence ("3 new comments on web#12"), and its newest one once read
 * ("ann commented on web#12").
 */
import {
  isDueReminder,
  reminderSentence,
  type Cause,
  type Reason,
} from '../rules/notification-reasons.ts'

const NOUNS: Record<Cause, [string, string]> = {
  created: ['new ticket', 'new tickets'],
  comment: ['new comment', 'new comments'],
  state: ['state change', 'state changes'],
  assign: ['assignment', 'assignments'],
  edit: ['edit', 'edits'],
  link: ['relation change', 'relation changes'],
  label: ['label change', 'label changes'],
  milestone: ['milestone change', 'milestone changes'],
  due: ['due date change', 'due date changes'],
  due_tomorrow: ['reminder', 'reminders'],
  due_today: ['reminder', 'reminders'],
}

/** "1 new comment", "3 state changes". */
function counted(kind: Cause, n: number): string {
  const [one, many] = NOUNS[kind]
  return `${n} ${n === 1 ? one : many}`
}

/** "a, b and c". */
function listed(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('')
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`
}

/**
 * A ticket's unread notifications: "3 new comments on web#12", "2 new comments and 1 state change
 * on web#12"; a creation alone: "New ticket web#12".
 */
export function unreadSentence(
  ref: string,
  kinds: readonly { kind: Cause; n: number }[],
  last?: { kind: Cause; at: number },
): string {
  if (kinds.length === 1 && kinds[0]!.kind === 'created' && kinds[0]!.n === 1)
    return `New ticket ${ref}`
  // A reminder alone, the newest: "web#12 is due tomorrow (2026-12-08)".
  if (kinds.length === 1 && kinds[0]!.n === 1 && last && isDueReminder(last.kind))
    return reminderSentence(ref, last.kind, last.at)
  return `${listed(kinds.map((k) => counted(k.kind, k.n)))} on ${ref}`
}

const VERBS: Record<Cause, string> = {
  created: 'created',
  comment: 'commented on',
  state: 'changed the state of',
  assign: 'changed the assignee of',
  edit: 'edited',
  link: 'changed the relations of',
  label: 'changed the labels of',
  milestone: 'changed the milestone of',
  due: 'changed the due date of',
  due_tomorrow: '',
  due_today: '',
}

/**
 * The newest notification of a ticket whose notifications are read: "ann commented on web#12";
 * a reminder: "web#12 is due today (2026-12-08)".
 */
export function readSentence(
  ref: string,
  last: { kind: Cause; actor: string; at: number },
): string {
  if (isDueReminder(last.kind)) return reminderSentence(ref, last.kind, last.at)
  return `${last.actor} ${VERBS[last.kind]} ${ref}`
}

/** Why a person was told, as the page labels it. */
export const REASON_WORDS: Record<Reason, string> = {
  assigned: 'assigned',
  mentioned: 'mentioned',
  watching: 'watching',
  due: 'due',
}
