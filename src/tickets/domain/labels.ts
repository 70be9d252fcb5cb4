/**
 * A project's labels (docs/tickets-api.md, "Labels, milestones and due dates"): admins create,
 * rename, recolour and delete them; a name is unique in the project whatever its case. Each
 * change emits `labelsChanged` with the project's slug, so open pages of the project redraw.
 * Giving tickets labels is src/tickets/domain/organise.ts.
 */
import { isRefusal, refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import {
  BAD_COLOR,
  BAD_LABEL_NAME,
  fieldTooLong,
  LABEL_CHANGE_NEEDED,
  labelTaken,
  NO_SUCH_LABEL,
  tooManyLabels,
} from '../rules/messages.ts'
import {
  cleanColor,
  cleanName,
  LABEL_DESCRIPTION_MAX,
  LABEL_NAME_MAX,
  LABELS_MAX,
} from '../rules/organise.ts'
import type { Label, StoredLabel } from '../store/labels.ts'
import type { Project } from '../store/projects.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import { refuseUnlessAdmin } from './projects.ts'

export type LabelDone = { ok: true; label: Label } | Refusal

/** What a request gives of a label: every field as sent, absent when not given. */
export interface LabelInput {
  name?: string
  color?: string
  description?: string
}

/** The label of `input` over `base`, checked; or the refusal naming the field. */
function checked(input: LabelInput, base: Label): Label | Refusal {
  let name = base.name
  if (input.name !== undefined) {
    const clean = cleanName(input.name, LABEL_NAME_MAX)
    if (clean === null) return refuse(400, BAD_LABEL_NAME, 'name')
    name = clean
  }
  let color = base.color
  if (input.color !== undefined) {
    const clean = cleanColor(input.color)
    if (clean === null) return refuse(400, BAD_COLOR, 'color')
    color = clean
  }
  const description = input.description?.trim() ?? base.description
  if (description.length > LABEL_DESCRIPTION_MAX)
    return refuse(400, fieldTooLong('description', LABEL_DESCRIPTION_MAX), 'description')
  return { name, color, description }
}

/**
 * The label named `name` (any case) of `project`, its labels locked for a change, when the actor
 * is an admin; else the refusal, in the interface's order: 404 for no such label, then 403.
 */
async function adminsLabel(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  name: string,
): Promise<StoredLabel | Refusal> {
  await tx.labels.lock(project.id)
  const found = await tx.labels.byName(project.id, name)
  if (!found) return refuse(404, NO_SUCH_LABEL)
  return (await refuseUnlessAdmin(tx, project.id, actor.user.id)) ?? found
}

/** Creates a label in `project`, as an admin. */
export async function createLabel(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  input: LabelInput,
): Promise<LabelDone> {
  const refused = await refuseUnlessAdmin(tx, project.id, actor.user.id)
  if (refused) return refused
  const label = checked(input, { name: '', color: '', description: '' })
  if (isRefusal(label)) return label
  await tx.labels.lock(project.id)
  if (await tx.labels.byName(project.id, label.name))
    return refuse(400, labelTaken(label.name), 'name')
  if ((await tx.labels.of(project.id)).length >= LABELS_MAX)
    return refuse(400, tooManyLabels(LABELS_MAX), 'name')
  const made = await tx.labels.insert(project.id, label, actor.now)
  await tx.emit(project.id, 'labelsChanged', [project.slug])
  return { ok: true, label: shown(made) }
}

/** Renames, recolours or describes the label named `current` (any case), as an admin. */
export async function updateLabel(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  current: string,
  input: LabelInput,
): Promise<LabelDone> {
  const found = await adminsLabel(tx, actor, project, current)
  if (isRefusal(found)) return found
  if (input.name === undefined && input.color === undefined && input.description === undefined)
    return refuse(400, LABEL_CHANGE_NEEDED, 'name')
  const label = checked(input, found)
  if (isRefusal(label)) return label
  const other = await tx.labels.byName(project.id, label.name)
  if (other && other.id !== found.id) return refuse(400, labelTaken(label.name), 'name')
  const changed = await tx.labels.update(found.id, label)
  await tx.emit(project.id, 'labelsChanged', [project.slug])
  return { ok: true, label: shown(changed) }
}

/** Deletes the label named `name` (any case), taking it off every ticket, as an admin. */
export async function deleteLabel(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  name: string,
): Promise<LabelDone> {
  const found = await adminsLabel(tx, actor, project, name)
  if (isRefusal(found)) return found
  await tx.labels.remove(found.id)
  await tx.emit(project.id, 'labelsChanged', [project.slug])
  return { ok: true, label: shown(found) }
}

/** A label as the API shows it, without the store's id. */
export function shown(label: Label): Label {
  return { name: label.name, color: label.color, description: label.description }
}
