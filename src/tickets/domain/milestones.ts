/**
 * A project's milestones (docs/tickets-api.md, "Labels, milestones and due dates"): editors and
 * admins create, change, close, reopen and delete them; a title is unique in the project
 * whatever its case. Each change emits `milestonesChanged` with the project's slug. Putting a
 * ticket in a milestone is src/tickets/domain/organise.ts.
 */
import { isRefusal, refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import {
  BAD_MILESTONE_STATE,
  BAD_MILESTONE_TITLE,
  badDay,
  fieldTooLong,
  MILESTONE_CHANGE_NEEDED,
  milestoneTaken,
  NO_SUCH_MILESTONE,
  tooManyMilestones,
} from '../rules/messages.ts'
import { DESCRIPTION_MAX } from '../rules/lengths.ts'
import { cleanName, isDay, MILESTONE_TITLE_MAX, MILESTONES_MAX } from '../rules/organise.ts'
import { refuseRole } from '../rules/roles.ts'
import type { Milestone, MilestoneFields, StoredMilestone } from '../store/milestones.ts'
import type { Project } from '../store/projects.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import { EDIT } from './tickets.ts'

export type MilestoneDone = { ok: true; milestone: Milestone } | Refusal

/** What a request gives of a milestone: every field as sent, absent when not given. */
export interface MilestoneInput {
  title?: string
  /** `YYYY-MM-DD`, or empty for none. */
  due?: string
  description?: string
  /** `open` or `closed`. */
  state?: string
}

function checked(input: MilestoneInput, base: MilestoneFields): MilestoneFields | Refusal {
  let title = base.title
  if (input.title !== undefined) {
    const clean = cleanName(input.title, MILESTONE_TITLE_MAX)
    if (clean === null) return refuse(400, BAD_MILESTONE_TITLE, 'title')
    title = clean
  }
  let due = base.due
  if (input.due !== undefined) {
    const day = input.due.trim()
    if (day !== '' && !isDay(day)) return refuse(400, badDay('due'), 'due')
    due = day === '' ? null : day
  }
  const description = input.description ?? base.description
  if (description.length > DESCRIPTION_MAX)
    return refuse(400, fieldTooLong('description', DESCRIPTION_MAX), 'description')
  let closed = base.closed
  if (input.state !== undefined) {
    if (input.state !== 'open' && input.state !== 'closed')
      return refuse(400, BAD_MILESTONE_STATE, 'state')
    closed = input.state === 'closed'
  }
  return { title, due, description, closed }
}

async function refuseUnlessEditor(tx: TicketTx, project: Project, actor: Actor) {
  return refuseRole(await tx.projects.roleOf(project.id, actor.user.id), EDIT, 'project')
}

/**
 * The milestone titled `title` (any case) of `project`, its milestones locked for a change, when
 * the actor is an editor or admin; else the refusal, in the interface's order: 404, then 403.
 */
async function editorsMilestone(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  title: string,
): Promise<StoredMilestone | Refusal> {
  await tx.milestones.lock(project.id)
  const found = await tx.milestones.byTitle(project.id, title)
  if (!found) return refuse(404, NO_SUCH_MILESTONE)
  return (await refuseUnlessEditor(tx, project, actor)) ?? found
}

/** Creates a milestone in `project`, as an editor or admin. */
export async function createMilestone(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  input: MilestoneInput,
): Promise<MilestoneDone> {
  const refused = await refuseUnlessEditor(tx, project, actor)
  if (refused) return refused
  const fields = checked(
    { ...input, state: input.state ?? 'open' },
    { title: '', due: null, description: '', closed: false },
  )
  if (isRefusal(fields)) return fields
  await tx.milestones.lock(project.id)
  if (await tx.milestones.byTitle(project.id, fields.title))
    return refuse(400, milestoneTaken(fields.title), 'title')
  if ((await tx.milestones.of(project.id)).length >= MILESTONES_MAX)
    return refuse(400, tooManyMilestones(MILESTONES_MAX), 'title')
  const id = await tx.milestones.insert(project.id, fields, actor.now)
  await tx.emit(project.id, 'milestonesChanged', [project.slug])
  return { ok: true, milestone: shown((await tx.milestones.byId(id))!) }
}

/** Changes, closes or reopens the milestone titled `current` (any case), as an editor or admin. */
export async function updateMilestone(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  current: string,
  input: MilestoneInput,
): Promise<MilestoneDone> {
  const found = await editorsMilestone(tx, actor, project, current)
  if (isRefusal(found)) return found
  if (Object.values(input).every((v) => v === undefined))
    return refuse(400, MILESTONE_CHANGE_NEEDED, 'title')
  const fields = checked(input, { ...found, closed: found.state === 'closed' })
  if (isRefusal(fields)) return fields
  const other = await tx.milestones.byTitle(project.id, fields.title)
  if (other && other.id !== found.id) return refuse(400, milestoneTaken(fields.title), 'title')
  await tx.milestones.update(found.id, fields)
  await tx.emit(project.id, 'milestonesChanged', [project.slug])
  return { ok: true, milestone: shown((await tx.milestones.byId(found.id))!) }
}

/** Deletes the milestone titled `title` (any case), leaving its tickets without one. */
export async function deleteMilestone(
  tx: TicketTx,
  actor: Actor,
  project: Project,
  title: string,
): Promise<MilestoneDone> {
  const found = await editorsMilestone(tx, actor, project, title)
  if (isRefusal(found)) return found
  await tx.milestones.remove(found.id)
  await tx.emit(project.id, 'milestonesChanged', [project.slug])
  return { ok: true, milestone: shown(found) }
}

/** A milestone as the API shows it, without the store's id. */
export function shown(m: StoredMilestone): Milestone {
  return {
    title: m.title,
    due: m.due,
    description: m.description,
    state: m.state,
    progress: m.progress,
  }
}
