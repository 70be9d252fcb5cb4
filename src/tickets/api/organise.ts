/**
 * The routes of labels, milestones and due dates (docs/tickets-api.md, "Labels, milestones and
 * due dates"): a project's labels and milestones, and a ticket's labels, milestone and due day.
 * Each reads its request in the interface's order of checks (405 by the router, 401, 400 for the
 * body's shape, 404 for the project or ticket) and hands the change to the domain
 * (src/tickets/domain/labels.ts, milestones.ts, organise.ts), which checks the role (403) and
 * the rules (400 naming the field).
 */
import { json, type Response } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import type { Actor } from '../rules/actor.ts'
import type { Context } from '../context.ts'
import { answerRefusal, refuse, Refusal } from '../../http/refusal.ts'
import { ADD_OR_REMOVE, NO_SUCH_PROJECT, NO_SUCH_TICKET } from '../rules/messages.ts'
import type { Shape } from '../rules/body.ts'
import type { Project } from '../store/projects.ts'
import type { TicketTx } from '../store/ticket-store.ts'
import type { Changed } from '../domain/changes.ts'
import { createLabel, deleteLabel, shown as labelShown, updateLabel } from '../domain/labels.ts'
import {
  createMilestone,
  deleteMilestone,
  shown as milestoneShown,
  updateMilestone,
} from '../domain/milestones.ts'
import { changeLabel, setDue, setMilestone } from '../domain/organise.ts'
import { acceptWrite, type Accepted } from './accept-write.ts'
import type { UserCaller } from '../credentials.ts'

export interface OrganiseHandlers {
  labels: Handler
  createLabel: Handler
  updateLabel: Handler
  removeLabel: Handler
  milestones: Handler
  createMilestone: Handler
  updateMilestone: Handler
  removeMilestone: Handler
  ticketLabels: Handler
  ticketMilestone: Handler
  ticketDue: Handler
}

export function createOrganiseHandlers(ctx: Context): OrganiseHandlers {
  const { store, publicUrl, clock } = ctx
  const actorOf = (caller: UserCaller): Actor => ({ user: caller.user, app: null, now: clock() })

  /** The front checks of a write on the path's project (401, 400), then the project (404). */
  async function projectWrite(
    req: Request,
    shape: Shape,
  ): Promise<(Accepted<UserCaller> & { ok: true; project: Project }) | Refusal> {
    const w = await acceptWrite(ctx, req, 'user', shape)
    if (!w.ok) return w
    const project = await store.projects.find(req.params.slug!)
    if (!project) return refuse(404, NO_SUCH_PROJECT)
    return { ...w, project }
  }

  /**
   * A change of a ticket: 401 and the body's shape (with `check`, a shape the body check cannot
   * say), then the ticket (404), then the domain's role and rules.
   */
  function ticketRoute(
    shape: Shape,
    run: (
      tx: TicketTx,
      actor: Actor,
      ticketId: string,
      body: Record<string, string>,
    ) => Promise<Changed>,
    check: (body: Record<string, string>) => Refusal | null = () => null,
  ): Handler {
    return async (req: Request): Promise<Response> => {
      const w = await acceptWrite(ctx, req, 'user', shape)
      if (!w.ok) return answerRefusal(w)
      const refused = check(w.body)
      if (refused) return answerRefusal(refused)
      const ticket = await store.tickets.locate(req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const actor = actorOf(w.caller)
      const result = await store.transact((tx) => run(tx, actor, ticket.id, w.body))
      if (!result.ok) return answerRefusal(result)
      return json(201, { ticket: result.ticket, event: result.event })
    }
  }

  async function read<T>(req: Request, list: (project: Project) => Promise<T>) {
    const project = await store.projects.find(req.params.slug!)
    if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
    return json(200, await list(project))
  }

  /**
   * The create (201), update and remove (200) routes of one kind of a project's things, each
   * named in the path by `param`: the front checks and the project, then the domain's change in
   * a transaction. They answer `{ [key]: thing }`, and a removal `{ removed: thing }`.
   */
  function projectThings<D extends { ok: true } | Refusal>(
    key: string,
    param: string,
    shapes: { create: Shape; update: Shape },
    domain: {
      create(tx: TicketTx, actor: Actor, project: Project, body: Record<string, string>): Promise<D>
      update(
        tx: TicketTx,
        actor: Actor,
        project: Project,
        current: string,
        body: Record<string, string>,
      ): Promise<D>
      remove(tx: TicketTx, actor: Actor, project: Project, current: string): Promise<D>
    },
    thing: (done: Exclude<D, Refusal>) => unknown,
  ): { create: Handler; update: Handler; remove: Handler } {
    type Write = { actor: Actor; project: Project; body: Record<string, string> }
    const route =
      (
        shape: Shape,
        status: 200 | 201,
        answerKey: string,
        run: (tx: TicketTx, w: Write, current: string) => Promise<D>,
      ): Handler =>
      async (req) => {
        const w = await projectWrite(req, shape)
        if (!w.ok) return answerRefusal(w)
        const actor = actorOf(w.caller)
        const result = await store.transact((tx) =>
          run(tx, { actor, project: w.project, body: w.body }, req.params[param] ?? ''),
        )
        if (result instanceof Refusal) return answerRefusal(result)
        return json(status, { [answerKey]: thing(result as Exclude<D, Refusal>) })
      }
    return {
      create: route(shapes.create, 201, key, (tx, w) =>
        domain.create(tx, w.actor, w.project, w.body),
      ),
      update: route(shapes.update, 200, key, (tx, w, current) =>
        domain.update(tx, w.actor, w.project, current, w.body),
      ),
      remove: route({}, 200, 'removed', (tx, w, current) =>
        domain.remove(tx, w.actor, w.project, current),
      ),
    }
  }

  const labels = projectThings(
    'label',
    'name',
    {
      create: { name: 'required', color: 'required', description: 'optional' },
      update: { name: 'optional', color: 'optional', description: 'optional' },
    },
    { create: createLabel, update: updateLabel, remove: deleteLabel },
    (done) => done.label,
  )
  const milestones = projectThings(
    'milestone',
    'title',
    {
      create: { title: 'required', due: 'optional', description: 'optional', state: 'optional' },
      update: { title: 'optional', due: 'optional', description: 'optional', state: 'optional' },
    },
    { create: createMilestone, update: updateMilestone, remove: deleteMilestone },
    (done) => done.milestone,
  )

  return {
    labels: (req) =>
      read(req, async (p) => ({ labels: (await store.labels.of(p.id)).map(labelShown) })),

    createLabel: labels.create,
    updateLabel: labels.update,
    removeLabel: labels.remove,

    milestones: (req) =>
      read(req, async (p) => ({
        milestones: (await store.milestones.of(p.id)).map(milestoneShown),
      })),

    createMilestone: milestones.create,
    updateMilestone: milestones.update,
    removeMilestone: milestones.remove,

    ticketLabels: ticketRoute(
      { add: 'optional', remove: 'optional' },
      (tx, actor, id, body) =>
        body.add
          ? changeLabel(tx, publicUrl, actor, id, 'add', body.add)
          : changeLabel(tx, publicUrl, actor, id, 'remove', body.remove!),
      // Exactly one of them, as blocked-by asks (docs/tickets-api.md, 4.7).
      ({ add, remove }) =>
        !add === !remove ? refuse(400, ADD_OR_REMOVE, add ? 'remove' : 'add') : null,
    ),
    ticketMilestone: ticketRoute({ milestone: 'present' }, (tx, actor, id, body) =>
      setMilestone(tx, publicUrl, actor, id, body.milestone!),
    ),
    ticketDue: ticketRoute({ due: 'present' }, (tx, actor, id, body) =>
      setDue(tx, publicUrl, actor, id, body.due!),
    ),
  }
}
