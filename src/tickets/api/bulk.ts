/**
 * `POST /api/projects/<slug>/tickets/bulk` (docs/tickets-api.md, "Bulk changes"): one change
 * on every ticket a search finds, or the Undo of an earlier one. Checks in the interface's
 * order: 405 (the router's), credential (401), body (400: its shape, exactly one change, the
 * search and the numbers), the project (404), then the domain (src/tickets/domain/bulk.ts): the
 * role (403), the change's value and the number of tickets (400).
 */
import type { Handler } from '../../http/handler.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import { json } from '../../http/response.ts'
import type { Context } from '../context.ts'
import { bulkChange, undoBulkChange, BULK_MAX, type BulkChange } from '../domain/bulk.ts'
import type { Actor } from '../rules/actor.ts'
import type { Body } from '../rules/body.ts'
import { BAD_NUMBERS, BULK_NEEDS_Q, NO_SUCH_PROJECT, ONE_BULK_CHANGE } from '../rules/messages.ts'
import { ME_NEEDS_SIGN_IN, needsMe, parseQuery } from '../rules/query.ts'
import { DEFAULT_FILTER } from '../rules/states.ts'
import { acceptWrite } from './accept-write.ts'

/** The body fields that each name a change, in the order a refusal names them. */
const CHANGES = ['state', 'assignee', 'addLabel', 'removeLabel', 'milestone', 'undo'] as const

const SHAPE = {
  q: 'optional',
  numbers: 'optional',
  state: 'optional',
  assignee: 'optional',
  addLabel: 'optional',
  removeLabel: 'optional',
  milestone: 'optional',
  undo: 'optional',
} as const

/** `12,13,20`: at most {@link BULK_MAX} ticket numbers; null when the text is not that. */
export function parseNumbers(text: string): number[] | null {
  if (!/^\d{1,9}(,\d{1,9})*$/.test(text)) return null
  const numbers = [...new Set(text.split(',').map(Number))]
  return numbers.length <= BULK_MAX ? numbers : null
}

/** The one change a body names, or the field a refusal names when it names none or several. */
function changeOf(
  body: Body,
): { ok: true; name: (typeof CHANGES)[number] } | { ok: false; field: string } {
  const given = CHANGES.filter((name) => body[name] !== undefined)
  if (given.length === 1) return { ok: true, name: given[0]! }
  return { ok: false, field: given.length === 0 ? 'state' : given[1]! }
}

export function createBulkHandler(ctx: Context): Handler {
  const { store, publicUrl, clock } = ctx
  return async (req) => {
    const w = await acceptWrite(ctx, req, 'user', SHAPE)
    if (!w.ok) return answerRefusal(w)
    const body = w.body
    const change = changeOf(body)
    if (!change.ok) return answerRefusal(refuse(400, ONE_BULK_CHANGE, change.field))
    const undo = change.name === 'undo'
    if (undo && (body.q !== undefined || body.numbers !== undefined))
      return answerRefusal(refuse(400, ONE_BULK_CHANGE, body.q !== undefined ? 'q' : 'numbers'))
    if (!undo && body.q === undefined) return answerRefusal(refuse(400, BULK_NEEDS_Q, 'q'))
    const parsed = parseQuery(body.q ?? '')
    if (!parsed.ok) return answerRefusal(parsed)
    const numbers = body.numbers === undefined ? null : parseNumbers(body.numbers)
    if (body.numbers !== undefined && numbers === null)
      return answerRefusal(refuse(400, BAD_NUMBERS, 'numbers'))
    const project = await store.projects.find(req.params.slug!)
    if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
    const actor: Actor = { user: w.caller.user, app: null, now: clock() }
    const result = await store.transact((tx) =>
      undo
        ? undoBulkChange(tx, publicUrl, actor, project.id, body.undo!)
        : bulkChange(
            tx,
            publicUrl,
            actor,
            { projectId: project.id, query: parsed.query, me: actor.user.id, numbers },
            { field: change.name as BulkChange['field'], value: body[change.name]! },
          ),
    )
    if (!result.ok) return answerRefusal(result)
    return json(200, { changed: result.changed, undo: result.undo })
  }
}

/**
 * `GET /api/projects/<slug>/tickets/count?q=<search>` (docs/tickets-api.md, "Bulk changes"): how
 * many tickets a bulk change of `q` would reach, up to {@link BULK_MAX}, and whether more. The
 * project page asks it when a person has ticked every row of a page, for **Select all N
 * matching**, rather than counting for every reader of every search page. A read: no credential
 * needed, but `me` in the search needs one. Checks: 405 (the router's), the search (400), the
 * project (404).
 */
export function createBulkCountHandler(ctx: Context): Handler {
  const { store } = ctx
  return async (req) => {
    const parsed = parseQuery(req.query.get('q') ?? '')
    if (!parsed.ok) return answerRefusal(parsed)
    const me = needsMe(parsed.query) ? await ctx.credentials.reader(req) : null
    if (needsMe(parsed.query) && me === null)
      return answerRefusal(refuse(400, ME_NEEDS_SIGN_IN, 'q'))
    const project = await store.projects.find(req.params.slug!)
    if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
    // As the bulk change reads `q` (src/tickets/domain/bulk.ts): the list's states without a
    // `state:` term.
    const [found] = await store.views.counts([
      { query: parsed.query, search: { states: DEFAULT_FILTER, me, projectId: project.id } },
    ])
    return json(200, found!, {
      'cache-control': 'private, no-cache',
      vary: 'Authorization, Cookie',
    })
  }
}
