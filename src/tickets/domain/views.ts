/**
 * Saved views (docs/tickets-app.md, "Saved views"; docs/tickets-api.md, "Saved views"): who may
 * save, rename and remove them, and their limits.
 *
 * - A person's own view: any signed-in person may save one of any project they can read (reads
 *   are public); only they see it, rename it and remove it.
 * - A shared view: the project's, seen by every reader; members with role `edit` or `admin`
 *   save, rename and remove them. A change of one is emitted as `viewsChanged`, so open project
 *   pages show it.
 *
 * A view is its search as typed: its `q` must parse (src/tickets/rules/query.ts) when saved.
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import type { Actor } from '../rules/actor.ts'
import { NO_SUCH_VIEW, tooManyViews, viewNameLength, viewNameTaken } from '../rules/messages.ts'
import { refuseRole } from '../rules/roles.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { SavedView } from '../store/views.ts'
import { EDIT } from './tickets.ts'

/** A view's name is at most this long. */
export const VIEW_NAME_MAX = 50
/** At most this many views a person has of a project, and a project shares. */
export const VIEWS_MAX = 50

export type ViewDone = { ok: true; view: SavedView } | Refusal

/** The name as kept (without surrounding spaces), or the refusal of its length. */
function nameOf(name: string): { ok: true; name: string } | Refusal {
  const trimmed = name.trim()
  if (trimmed.length === 0 || trimmed.length > VIEW_NAME_MAX)
    return refuse(400, viewNameLength(VIEW_NAME_MAX), 'name')
  return { ok: true, name: trimmed }
}

/** Saves a search `q` under `name`, the actor's own or (`shared`) the project's. */
export async function saveView(
  tx: TicketTx,
  actor: Actor,
  projectId: string,
  input: { name: string; q: string; shared: boolean },
): Promise<ViewDone> {
  if (input.shared) {
    const refused = refuseRole(await tx.projects.roleOf(projectId, actor.user.id), EDIT, 'scope')
    if (refused) return refused
  }
  const named = nameOf(input.name)
  if (!named.ok) return named
  const owner = input.shared ? null : actor.user.id
  if ((await tx.views.countOf(projectId, owner)) >= VIEWS_MAX)
    return refuse(400, tooManyViews(VIEWS_MAX), 'name')
  const taken = () => refuse(400, viewNameTaken(named.name), 'name')
  if (!(await tx.views.nameFree(projectId, owner, named.name))) return taken()
  const view = await tx.views.insert(projectId, owner, named.name, input.q.trim())
  if (!view) return taken()
  if (view.shared) await tx.emit(projectId, 'viewsChanged', [view.id])
  return { ok: true, view }
}

/**
 * The view `id` of the project if the actor may change it: their own, or a shared one for role
 * `edit` or `admin`. Another person's view is answered as no view at all.
 */
async function changeable(
  tx: TicketTx,
  actor: Actor,
  projectId: string,
  id: string,
): Promise<{ ok: true; view: SavedView & { owner: string | null } } | Refusal> {
  const view = await tx.views.byId(projectId, id)
  if (!view || (view.owner !== null && view.owner !== actor.user.id))
    return refuse(404, NO_SUCH_VIEW)
  if (view.owner === null) {
    const refused = refuseRole(await tx.projects.roleOf(projectId, actor.user.id), EDIT)
    if (refused) return refused
  }
  return { ok: true, view }
}

/** Renames a view or changes its search. */
export async function changeView(
  tx: TicketTx,
  actor: Actor,
  projectId: string,
  id: string,
  change: { name?: string; q?: string },
): Promise<ViewDone> {
  const found = await changeable(tx, actor, projectId, id)
  if (!found.ok) return found
  const { owner, ...view } = found.view
  let name = view.name
  if (change.name !== undefined) {
    const named = nameOf(change.name)
    if (!named.ok) return named
    name = named.name
    if (!(await tx.views.nameFree(projectId, owner, name, id)))
      return refuse(400, viewNameTaken(name), 'name')
  }
  const q = change.q === undefined ? view.q : change.q.trim()
  await tx.views.update(id, { name, q })
  if (view.shared) await tx.emit(projectId, 'viewsChanged', [id])
  return { ok: true, view: { ...view, name, q } }
}

/** Removes a view. */
export async function removeView(
  tx: TicketTx,
  actor: Actor,
  projectId: string,
  id: string,
): Promise<{ ok: true; removed: string } | Refusal> {
  const found = await changeable(tx, actor, projectId, id)
  if (!found.ok) return found
  await tx.views.remove(id)
  if (found.view.shared) await tx.emit(projectId, 'viewsChanged', [id])
  return { ok: true, removed: id }
}
