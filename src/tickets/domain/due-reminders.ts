/**
 * Due-date reminders (docs/notifications.md, "Due dates"): the assignee of a ticket that is not
 * closed is told once the day before its due day (`due_tomorrow`) and once on the day
 * (`due_today`), with the reason `due`, in the app and by mail as they chose for that kind.
 * "The day" is the calendar day in UTC, as `is:overdue` reads it (docs/tickets-api.md, 4.14).
 *
 * The sweep (src/tickets/workers/due-sweep.ts) runs {@link sendDueReminders}; each reminder is
 * claimed by a row of its own in the same transaction as its notification
 * (src/tickets/store/due-reminders.ts), so it is sent once however many processes sweep. A due
 * day moved or removed before a reminder went means no reminder for the old day: the sweep reads
 * the tickets' due days as they are.
 */
import type { NewNotification } from '../store/notifications.ts'
import type { TicketTx } from '../store/ticket-store.ts'

/** The calendar day (UTC) of `ms`, `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/**
 * Sends the reminders due at `now` and not yet sent, in transaction `tx`: a notification for
 * each ticket's assignee (none when they want neither app nor mail for `due`; mail only when
 * `mail`, `SMTP_URL` set), and a `notificationsChanged` live event for each person with a new
 * one in the app. Answers how many reminders were claimed.
 */
export async function sendDueReminders(
  tx: TicketTx,
  now: number,
  options: { mail: boolean },
): Promise<number> {
  const claimed = await tx.dueReminders.claim(utcDay(now), now)
  if (claimed.length === 0) return 0
  const prefs = await tx.notifications.prefsOf([...new Set(claimed.map((c) => c.assigneeId))])
  const rows: NewNotification[] = []
  for (const c of claimed) {
    const wants = prefs.get(c.assigneeId)?.due
    if (!wants) continue
    const mail = wants.mail && options.mail
    if (!wants.app && !mail) continue
    rows.push({
      userId: c.assigneeId,
      ticketId: c.ticketId,
      eventId: null,
      kind: c.kind === 'today' ? 'due_today' : 'due_tomorrow',
      reason: 'due',
      actorId: null,
      actor: '',
      at: now,
      inApp: wants.app,
      mailState: mail ? 'pending' : 'none',
    })
  }
  for (const { userId, added } of await tx.notifications.insert(rows))
    await tx.emitTo(userId, 'notificationsChanged', [{ added }])
  return claimed.length
}
