/**
 * A ticket's labels, milestone and due day (docs/tickets-api.md, "Labels, milestones and due
 * dates"): editors and admins add and remove labels, set or remove the milestone and the due
 * day. Each change is one history event (`label`, `milestone`, `due`), emitted as `ticketEvent`
 * in the same transaction, which webhooks send as `ticket.labeled`, `ticket.milestoned` and
 * `ticket.due_changed`. The checks run in the interface's order after the ticket is found: the
 * role (403), then the rules (400 naming the field).
 *
 * Bulk changes call these once a ticket, inside their one transaction.
 */
import { refuse } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import {
  ALREADY_NO_DUE,
  ALREADY_NO_MILESTONE,
  alreadyDue,
  alreadyInMilestone,
  alreadyLabeled,
  badDay,
  noSuchLabel,
  noSuchMilestone,
  notLabeled,
} from '../rules/messages.ts'
import { isDay } from '../rules/organise.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import { changeAsEditor, type Changed } from './changes.ts'

/** Adds (`add`) or removes (`remove`) the label named `name` (any case) on a ticket. */
export async function changeLabel(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticketId: string,
  action: 'add' | 'remove',
  name: string,
): Promise<Changed> {
  return changeAsEditor(tx, publicUrl, actor, ticketId, async (t) => {
    const label = await tx.labels.byName(t.projectId, name.trim())
    if (!label) return refuse(400, noSuchLabel(name.trim()), action)
    const done =
      action === 'add'
        ? await tx.labels.addToTicket(t.id, label.id)
        : await tx.labels.removeFromTicket(t.id, label.id)
    if (!done)
      return refuse(
        400,
        action === 'add' ? alreadyLabeled(label.name) : notLabeled(label.name),
        action,
      )
    const data = { action: action === 'add' ? 'added' : 'removed', label: label.name }
    return { change: {}, event: { kind: 'label', data } }
  })
}

/** Puts a ticket in the milestone titled `title` (any case), or in none for an empty one. */
export async function setMilestone(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticketId: string,
  title: string,
): Promise<Changed> {
  return changeAsEditor(tx, publicUrl, actor, ticketId, async (t) => {
    let to: { id: string; title: string } | null = null
    if (title.trim() !== '') {
      const found = await tx.milestones.byTitle(t.projectId, title.trim())
      if (!found) return refuse(400, noSuchMilestone(title.trim()), 'milestone')
      to = { id: found.id, title: found.title }
    }
    if ((to?.id ?? null) === (t.milestone?.id ?? null))
      return refuse(400, to ? alreadyInMilestone(to.title) : ALREADY_NO_MILESTONE, 'milestone')
    const data = { from: t.milestone?.title ?? null, to: to?.title ?? null }
    return { change: { milestoneId: to?.id ?? null }, event: { kind: 'milestone', data } }
  })
}

/** Sets a ticket's due day (`YYYY-MM-DD`), or removes it for an empty one. */
export async function setDue(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  ticketId: string,
  due: string,
): Promise<Changed> {
  return changeAsEditor(tx, publicUrl, actor, ticketId, async (t) => {
    const day = due.trim()
    if (day !== '' && !isDay(day)) return refuse(400, badDay('due'), 'due')
    const to = day === '' ? null : day
    if (to === t.due) return refuse(400, to ? alreadyDue(to) : ALREADY_NO_DUE, 'due')
    return { change: { due: to }, event: { kind: 'due', data: { from: t.due, to } } }
  })
}
