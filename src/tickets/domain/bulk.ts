/**
 * Bulk changes (docs/tickets-api.md, "Bulk changes"): one field set on every ticket a search
 * finds, at most {@link BULK_MAX} at once, in one transaction. Each changed ticket gets its own
 * history event and `ticketEvent` (so live pages, webhooks and the history see each ticket's
 * change, as if it had been changed alone), and the change is kept so that one Undo gives every
 * ticket back what it had, unless it was changed again since.
 *
 * Who may: the role a change of one ticket needs (state: `use`; assignee, labels and milestone:
 * `edit`). A bulk state change does not assign anyone, unlike a state change of one ticket
 * (docs/tickets-api.md, 4.4): each ticket gets one event, the state change asked for.
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import {
  NO_SUCH_BULK_CHANGE,
  noSuchLabel,
  noSuchMilestone,
  tooManyToChange,
  unknownState,
} from '../rules/messages.ts'
import type { TicketQuery } from '../rules/query.ts'
import { refuseRole, type Role } from '../rules/roles.ts'
import { isState, DEFAULT_FILTER } from '../rules/states.ts'
import { ticketAnswer, ticketAnswers } from '../representations/json.ts'
import type { BulkChanged, BulkField, BulkItem } from '../store/bulk.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import { EDIT, USE } from './tickets.ts'
import { BULK_MAX } from '../rules/organise.ts'

export { BULK_MAX }

/**
 * What a bulk change sets: a state; an assignee (a user reference, '' for nobody); a milestone
 * (its title, '' for none); a label added or taken off (its name). `field` is the body's field.
 */
export interface BulkChange {
  field: 'state' | 'assignee' | 'milestone' | 'addLabel' | 'removeLabel'
  value: string
}

/** Which tickets: a search of the project, and of its tickets only those numbered, when given. */
export interface BulkTarget {
  projectId: string
  query: TicketQuery
  /** The signed-in person's id, for `me` in the search. */
  me: string | null
  numbers: readonly number[] | null
}

/** A bulk change's answer: how many tickets changed, and the id its Undo names (null when none did). */
export type BulkDone = { ok: true; changed: number; undo: string | null } | Refusal

const NEEDS: Record<BulkChange['field'], Role> = {
  state: USE,
  assignee: EDIT,
  milestone: EDIT,
  addLabel: EDIT,
  removeLabel: EDIT,
}

/** What a change does once its value is known: a column set, or a label added or taken off. */
type Resolved =
  | { kind: 'column'; field: BulkField; value: string | null }
  | { kind: 'label'; label: { id: string; name: string }; add: boolean }

/** The value a change names, as stored, or the refusal of an unknown one. */
async function resolve(
  tx: TicketTx,
  projectId: string,
  change: BulkChange,
): Promise<Resolved | Refusal> {
  const value = change.value.trim()
  switch (change.field) {
    case 'state':
      if (!isState(change.value)) return refuse(400, unknownState(change.value), 'state')
      return { kind: 'column', field: 'state', value: change.value }
    case 'assignee': {
      if (change.value === '') return { kind: 'column', field: 'assignee', value: null }
      const found = await tx.users.resolve(change.value, 'assignee', projectId)
      if (!found.ok) return found
      return { kind: 'column', field: 'assignee', value: found.user.id }
    }
    case 'milestone': {
      if (value === '') return { kind: 'column', field: 'milestone', value: null }
      const found = await tx.milestones.byTitle(projectId, value)
      if (!found) return refuse(400, noSuchMilestone(value), 'milestone')
      return { kind: 'column', field: 'milestone', value: found.id }
    }
    case 'addLabel':
    case 'removeLabel': {
      const label = await tx.labels.byName(projectId, value)
      if (!label) return refuse(400, noSuchLabel(value), change.field)
      return { kind: 'label', label, add: change.field === 'addLabel' }
    }
  }
}

/** Sets `change` on the tickets of `target`, as `actor`. */
export async function bulkChange(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  target: BulkTarget,
  change: BulkChange,
): Promise<BulkDone> {
  const role = await tx.projects.roleOf(target.projectId, actor.user.id)
  const refused = refuseRole(role, NEEDS[change.field], change.field)
  if (refused) return refused
  const resolved = await resolve(tx, target.projectId, change)
  if (!('kind' in resolved)) return resolved
  const ids = await tx.bulk.lockMatching(
    target.query,
    { states: DEFAULT_FILTER, me: target.me, projectId: target.projectId },
    target.numbers,
    BULK_MAX,
  )
  if (ids.length > BULK_MAX) return refuse(400, tooManyToChange(BULK_MAX), 'q')
  if (resolved.kind === 'label') {
    const changed = await tx.bulk.labelEach(
      resolved.label,
      resolved.add,
      ids,
      authorOf(actor),
      actor.now,
    )
    const to = resolved.add ? 'on' : 'off'
    return finish(
      tx,
      publicUrl,
      actor,
      target.projectId,
      `label:${resolved.label.id}`,
      changed,
      () => to,
    )
  }
  const items: BulkItem[] = ids.map((id) => ({ id, target: resolved.value }))
  const changed = await tx.bulk.changeEach(resolved.field, items, authorOf(actor), actor.now)
  return finish(
    tx,
    publicUrl,
    actor,
    target.projectId,
    resolved.field,
    changed,
    () => resolved.value,
  )
}

/**
 * Undoes the bulk change `id` of the project, made by `actor`: each of its tickets that still
 * has the value the change set gets back the one it had, with an event of its own; a ticket
 * changed again since is left as it is. The Undo is a bulk change too, and can be undone.
 */
export async function undoBulkChange(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  projectId: string,
  id: string,
): Promise<BulkDone> {
  const role = await tx.projects.roleOf(projectId, actor.user.id)
  const refusedMember = refuseRole(role, USE, 'undo')
  if (refusedMember) return refusedMember
  const kept = await tx.bulk.undoable(id, projectId, actor.user.id, actor.now)
  if (!kept) return refuse(400, NO_SUCH_BULK_CHANGE, 'undo')
  await tx.bulk.markUndone(id)
  if (kept.field.startsWith('label:')) {
    // The role the change needed is needed to undo it: a role lowered since cannot.
    const refused = refuseRole(role, EDIT, 'undo')
    if (refused) return refused
    const label = await tx.bulk.label(kept.field.slice('label:'.length))
    if (!label) return refuse(400, NO_SUCH_BULK_CHANGE, 'undo')
    const add = kept.items[0]?.from === 'on'
    const ids = kept.items.map((i) => i.id)
    const changed = await tx.bulk.labelEach(label, add, ids, authorOf(actor), actor.now)
    return finish(tx, publicUrl, actor, projectId, kept.field, changed, () => (add ? 'on' : 'off'))
  }
  const field = kept.field as BulkField
  const refused = refuseRole(role, field === 'state' ? USE : EDIT, 'undo')
  if (refused) return refused
  const items = kept.items.map((i) => ({ id: i.id, target: i.from, expect: { value: i.to } }))
  const targets = new Map(items.map((i) => [i.id, i.target]))
  const changed = await tx.bulk.changeEach(field, items, authorOf(actor), actor.now)
  return finish(
    tx,
    publicUrl,
    actor,
    projectId,
    field,
    changed,
    (c) => targets.get(c.ticket.id) ?? null,
  )
}

/** Emits the changes' events and keeps the change for its Undo; answers how many changed. */
async function finish(
  tx: TicketTx,
  publicUrl: string,
  actor: Actor,
  projectId: string,
  field: string,
  changed: readonly BulkChanged[],
  valueOf: (c: BulkChanged) => string | null,
): Promise<BulkDone> {
  await emitChanges(tx, publicUrl, projectId, field, changed)
  if (changed.length === 0) return { ok: true, changed: 0, undo: null }
  const undo = await tx.bulk.record({
    projectId,
    userId: actor.user.id,
    field,
    items: changed.map((c) => ({ id: c.ticket.id, from: c.before, to: valueOf(c) })),
    created: actor.now,
  })
  return { ok: true, changed: changed.length, undo }
}

/** Who a history event names: the actor's user and the connected app's label. */
const authorOf = (actor: Actor) => ({ id: actor.user.id, name: actor.user.name, app: actor.app })

/**
 * A `ticketEvent` for each changed ticket, and for a state change one `ticketsRelated` with the
 * tickets whose pages show a changed one (its parent, children, blockers and the tickets it
 * blocks) that were not changed themselves.
 */
async function emitChanges(
  tx: TicketTx,
  publicUrl: string,
  projectId: string,
  field: string,
  changed: readonly BulkChanged[],
): Promise<void> {
  for (const c of changed) {
    const ticket = ticketAnswer(publicUrl, c.ticket)
    await tx.emit(projectId, 'ticketEvent', [ticket.id, c.event, ticket])
  }
  if (field !== 'state' || changed.length === 0) return
  const ids = new Set(changed.map((c) => c.ticket.id))
  const neighbours = (await tx.tickets.related([...ids])).filter((t) => !ids.has(t.id))
  if (neighbours.length > 0)
    await tx.emit(projectId, 'ticketsRelated', [ticketAnswers(publicUrl, neighbours)])
}
