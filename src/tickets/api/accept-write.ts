/**
 * The front half of every write route, in the order of docs/tickets-api.md, "Conventions":
 * credential (401, and 403 for a cookie without its `x-tag`), then the body (400). The method
 * (405) was checked by the router; existence (404) and rules come after, in the route.
 */
import type { Request } from '../../http/request.ts'
import { refuseContentType } from '../../http/guards.ts'
import type { Caller, Callers, UserCaller } from '../credentials.ts'
import { checkBody, type Body, type Shape } from '../rules/body.ts'
import type { Context } from '../context.ts'
import type { Refusal } from '../../http/refusal.ts'

export type Accepted<C extends Caller = Caller> = { ok: true; caller: C; body: Body } | Refusal

/**
 * Resolves the caller before the body is read, then reads and checks the body against `shape`.
 * Writes made with the session cookie must send their body as `application/json` (415), the
 * cross-site guard of docs/core.md, "Sessions and credentials"; token writes need not, for curl's
 * sake.
 */
export async function acceptWrite(
  ctx: Context,
  req: Request,
  callers: 'user',
  shape: Shape,
): Promise<Accepted<UserCaller>>
export async function acceptWrite(
  ctx: Context,
  req: Request,
  callers: Callers,
  shape: Shape,
): Promise<Accepted>
export async function acceptWrite(
  ctx: Context,
  req: Request,
  callers: Callers,
  shape: Shape,
): Promise<Accepted> {
  const who = await ctx.credentials.resolve(req, callers)
  if (!who.ok) return who
  const bytes = await req.body()
  if (who.caller.via === 'session') {
    const refusal = refuseContentType(req, bytes)
    if (refusal) return refusal
  }
  const checked = checkBody(bytes, shape)
  if (!checked.ok) return checked
  return { ok: true, caller: who.caller, body: checked.body }
}
