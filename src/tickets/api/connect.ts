/**
 * Connecting an app (docs/tickets-api.md, 4.9; docs/connect-apps.md, "The three steps" and
 * "Decisions this document records").
 *
 * 1. `GET /connect?app&label&return&state` stores a request (10 minutes) under a fresh nonce and
 *    sends the browser to `/connect/<nonce>`.
 * 2. On that page a signed-in person picks a project they administer, or makes one, and the
 *    page's script confirms through `POST /api/connect/<nonce>/confirm`. That uses the request
 *    up, issues a code (5 minutes) and answers `{ location }`: the app's `return` address with
 *    `code` and `state` added, where the browser goes.
 * 3. The app's server exchanges the code once at `POST /api/connect/exchange` for a project key.
 *
 * Nonces, codes and keys are stored only as their SHA-256. Single use holds under concurrency
 * by one statement each: the confirm deletes the request (`DELETE ... RETURNING`), the exchange
 * marks the code (`UPDATE ... WHERE used is null and expires > now RETURNING`).
 */
import { json, text } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import { loginButtonUrl } from '../../auth/idp.ts'
import { randomToken, recordId } from '../../base/random.ts'
import { KEY_PREFIX } from '../credentials.ts'
import { hashSecret } from '../../base/random.ts'
import { checkBody } from '../rules/body.ts'
import { connectPage } from '../pages/connect-page.ts'
import type { Context } from '../context.ts'
import { answerRefusal, reason, refuse, type Refusal } from '../../http/refusal.ts'
import { refusalPage } from '../pages/message-page.ts'
import type { Actor } from '../rules/actor.ts'
import { refuseUnlessAdmin } from '../domain/projects.ts'
import { confirmConnection } from '../domain/connections.ts'
import type { Connection } from '../store/connections.ts'
import {
  mustBeAtMost,
  BAD_CODE,
  BAD_RETURN,
  CONNECT,
  GET_ONLY,
  givenTwice,
  hasControl,
  lengthBetween,
  NO_SUCH_CONNECTION,
  NO_SUCH_PROJECT,
  NO_SUCH_REQUEST,
  PROJECT_OR_TITLE,
  RETURN_HAS_EXTRA,
  RETURN_HAS_PARAMS,
} from '../rules/messages.ts'
import { acceptWrite } from './accept-write.ts'
import { shownName } from '../../auth/shown-name.ts'

/** `app` and `label`: 1 to 80 characters. */
export const NAME_MAX = 80
/** `state`: at most 500 characters (absent means empty). */
export const STATE_MAX = 500
/** `return`: at most 2000 characters, a length every browser keeps in an address. */
export const RETURN_MAX = 2000
/** A stored request waits this long for the person's confirmation. */
export const REQUEST_MS = 10 * 60 * 1000

// 192 random bits: more than the 128 asked for, and still a short address.
const NONCE_BYTES = 24
const NO_STORE = { 'cache-control': 'no-store' } as const
// Plain http is accepted only for the machine the browser runs on (an app in development).
const LOOPBACK: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]'])
// C0 and C1 controls, and the bidirectional overrides that could make a name shown to the person
// read as another (U+202A to U+202E, U+2066 to U+2069).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** A connect request as `GET /connect` accepted it. */
interface ConnectRequest {
  app: string
  label: string
  /** The normalised absolute `return` address. */
  returnUrl: string
  state: string
}

/** Characters as a person counts them: code points, not UTF-16 units. */
function characters(value: string): number {
  let n = 0
  for (const _ of value) n++
  return n
}

/**
 * Checks the query of `GET /connect`, field by field in the order `app`, `label`, `return`,
 * `state`; answers the request or the first error text.
 */
function checkConnectQuery(
  query: URLSearchParams,
): { ok: true; request: ConnectRequest } | Refusal {
  const fields: Record<string, string> = Object.create(null)
  for (const name of ['app', 'label', 'return', 'state']) {
    const values = query.getAll(name)
    if (values.length > 1) return refuse(400, givenTwice(name))
    fields[name] = values[0] ?? ''
  }
  for (const name of ['app', 'label']) {
    const value = fields[name]!
    const n = characters(value)
    if (n < 1 || n > NAME_MAX) return refuse(400, lengthBetween(name, 1, NAME_MAX))
    if (CONTROL.test(value)) return refuse(400, hasControl(name))
  }
  const returned = checkReturn(fields.return!)
  if (!returned.ok) return returned
  const state = fields.state!
  if (characters(state) > STATE_MAX)
    return refuse(400, reason('too_long', mustBeAtMost('state', STATE_MAX)))
  if (CONTROL.test(state)) return refuse(400, hasControl('state'))
  return {
    ok: true,
    request: { app: fields.app!, label: fields.label!, returnUrl: returned.url, state },
  }
}

/**
 * Checks a `return` address: absolute https (http only for localhost, 127.0.0.1 and [::1]), no
 * user name, password or fragment, and no `code` or `state` of its own in the query (they are
 * added). Answers the normalised address, which is also what the person is shown.
 */
function checkReturn(value: string): { ok: true; url: string } | Refusal {
  if (value.length > RETURN_MAX)
    return refuse(400, reason('too_long', mustBeAtMost('return', RETURN_MAX)))
  // The text itself must be absolute: the URL parser would also take `https:host` or ` https://`.
  if (!/^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i.test(value)) return refuse(400, BAD_RETURN)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return refuse(400, BAD_RETURN)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
    return refuse(400, BAD_RETURN)
  if (url.username !== '' || url.password !== '' || value.includes('#'))
    return refuse(400, RETURN_HAS_EXTRA)
  if (url.searchParams.has('code') || url.searchParams.has('state'))
    return refuse(400, RETURN_HAS_PARAMS)
  return { ok: true, url: url.href }
}

/** The exchange's answer: the key, shown this once. */
interface Exchanged {
  key: string
  /** The project's slug. */
  project: string
  title: string
  /** `<public_url>/api`. */
  api: string
}

export interface ConnectHandlers {
  /** `GET /connect` (every method: its 405 is an HTML page). */
  start: Handler
  /** The page `/connect/<nonce>`. */
  page: Handler
  /** `POST /api/connect/<nonce>/confirm`. */
  confirm: Handler
  /** `POST /api/connect/exchange`. */
  exchange: Handler
  /** `GET /api/projects/<slug>/connections`. */
  list: Handler
  /** `POST /api/projects/<slug>/connections/remove`. */
  remove: Handler
}

/**
 * `files` answers the addresses of the web app's stylesheet, which the connect page uses too,
 * and of the connect page's script.
 */
export function createConnectHandlers(
  ctx: Context,
  files: () => Promise<{ style: string; script: string }> = async () => ({ style: '', script: '' }),
): ConnectHandlers {
  const { store, publicUrl, clock } = ctx

  /** The login button (docs/core.md, "Identity provider"), coming back to this page. */
  function loginUrl(nonce: string): string {
    return loginButtonUrl(ctx.idp, publicUrl, `/connect/${encodeURIComponent(nonce)}`)
  }

  return {
    async start(req) {
      // HEAD too: it would store a request.
      if (req.method !== 'GET') return refusalPage(CONNECT, refuse(405, GET_ONLY), { allow: 'GET' })
      const checked = checkConnectQuery(req.query)
      if (!checked.ok) return refusalPage(CONNECT, checked, NO_STORE)
      const { app, label, returnUrl, state } = checked.request
      const nonce = randomToken(NONCE_BYTES)
      // Requests and codes nobody can use any more go as new ones come.
      await store.connections.insertRequest(
        { hash: hashSecret(nonce), app, label, returnUrl, state },
        REQUEST_MS,
      )
      const path = `/connect/${nonce}`
      return text(302, `continue at ${path}`, { location: path, ...NO_STORE })
    },

    async page(req) {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return refusalPage(CONNECT, refuse(405, GET_ONLY), { allow: 'GET, HEAD' })
      const nonce = req.params.nonce!
      const request = await store.connections.waitingRequest(hashSecret(nonce))
      if (!request) return refusalPage(CONNECT, refuse(404, NO_SUCH_REQUEST), NO_STORE)
      const { session, user } = await ctx.credentials.session(req)
      const tag = typeof session?.data.tag === 'string' ? session.data.tag : null
      const { style: stylesheet, script } = await files()
      if (user === null || tag === null)
        return connectPage({ request, signIn: loginUrl(nonce), stylesheet })
      return connectPage({
        request,
        stylesheet,
        script,
        // The account's unique name beside the display name, as every page says who you are.
        person: {
          name: shownName(user.name, session?.data.login),
          tag,
          projects: await store.connections.adminProjects(user.id),
        },
        confirmPath: `/api/connect/${encodeURIComponent(nonce)}/confirm`,
      })
    },

    async confirm(req) {
      const w = await acceptWrite(ctx, req, 'user', { project: 'optional', title: 'optional' })
      if (!w.ok) return answerRefusal(w)
      const project = w.body.project || undefined
      const title = w.body.title || undefined
      if ((project === undefined) === (title === undefined))
        return answerRefusal(refuse(400, PROJECT_OR_TITLE, project ? 'title' : 'project'))
      const actor: Actor = { user: w.caller.user, app: null, now: clock() }
      const result = await store.transact((tx) =>
        confirmConnection(tx, actor, { nonce: req.params.nonce!, project, title }),
      )
      return result.ok
        ? json(200, { location: result.location }, NO_STORE)
        : answerRefusal(result, NO_STORE)
    },

    async exchange(req) {
      // No credential: the code is the credential.
      const checked = checkBody(await req.body(), { code: 'required' })
      if (!checked.ok) return answerRefusal(checked, NO_STORE)
      const code = checked.body.code!
      const result = await store.transact(
        async (tx): Promise<{ ok: true; answer: Exchanged } | Refusal> => {
          const used = await tx.connections.useCode(hashSecret(code))
          if (!used) return refuse(400, BAD_CODE, 'code')
          const { projectId } = used
          const key = KEY_PREFIX + randomToken(32)
          await tx.connections.insert({
            id: recordId(),
            projectId,
            userId: used.userId,
            app: used.app,
            label: used.label,
            hash: hashSecret(key),
          })
          const project = (await tx.projects.byId(projectId))!
          await tx.emit(projectId, 'connectionsChanged', [project.slug])
          return {
            ok: true,
            answer: { key, project: project.slug, title: project.title, api: `${publicUrl}/api` },
          }
        },
      )
      return result.ok ? json(200, result.answer, NO_STORE) : answerRefusal(result, NO_STORE)
    },

    async list(req) {
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return json(200, { connections: await store.connections.of(project.id) })
    },

    async remove(req) {
      const w = await acceptWrite(ctx, req, 'user', { id: 'required' })
      if (!w.ok) return answerRefusal(w)
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      const result = await store.transact(
        async (
          tx,
        ): Promise<{ ok: true; removed: Connection; connections: Connection[] } | Refusal> => {
          const refused = await refuseUnlessAdmin(tx, project.id, w.caller.user.id)
          if (refused) return refused
          const [removed] = await tx.connections.of(project.id, w.body.id)
          if (!removed) return refuse(400, NO_SUCH_CONNECTION, 'id')
          await tx.connections.delete(removed.id)
          await tx.emit(project.id, 'connectionsChanged', [project.slug])
          return { ok: true, removed, connections: await tx.connections.of(project.id) }
        },
      )
      return result.ok
        ? json(200, { removed: result.removed, connections: result.connections })
        : answerRefusal(result)
    },
  }
}
