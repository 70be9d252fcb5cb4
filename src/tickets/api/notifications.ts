/**
 * Notifications (docs/tickets-api.md, "Notifications"; docs/notifications.md): the person's
 * list and unread count, marking read, their choices of app and mail per kind (and the owner's
 * default for new people), and Watch / Unwatch of a ticket and Watch all of a project. For
 * people only: a connected app's project key is refused as on every route for people.
 */
import { json, PRIVATE_NO_STORE, type Response } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import { cursors, parseLimit } from '../../http/paging.ts'
import { answerRefusal, refuse, Refusal } from '../../http/refusal.ts'
import type { Context } from '../context.ts'
import {
  BAD_LIMIT,
  BAD_NOTIFICATIONS_AFTER,
  badPref,
  DEFAULTS_OWNER_ONLY,
  NO_SUCH_PROJECT,
  NO_SUCH_TICKET,
  READ_ALL_TRUE,
  READ_WHAT,
} from '../rules/messages.ts'
import type { Body } from '../rules/body.ts'
import {
  readAll,
  readOne,
  savePrefs,
  setWatching,
  setWatchingProject,
} from '../domain/notifications.ts'
import { KINDS, type Notification, type Prefs } from '../store/notifications.ts'
import { acceptWrite } from './accept-write.ts'

export interface NotificationHandlers {
  list: Handler
  read: Handler
  prefs: Handler
  setPrefs: Handler
  setDefaults: Handler
  watchTicket: Handler
  watchProject: Handler
}

/** The largest page (as the ticket lists'). */
const MAX_LIMIT = 1000
/** Notifications read per statement when the whole list is asked for. */
const STREAM_BATCH = 500

/** The cursor of a place in the list: the id of the last notification of a page. */
const notificationCursors = cursors<number>(
  (id) => `n${id}`,
  (text) => {
    const match = /^n([1-9][0-9]{0,15})$/.exec(text)
    const id = match ? Number(match[1]) : NaN
    return Number.isSafeInteger(id) ? id : null
  },
  40,
)

/**
 * The kinds a body may leave out, keeping what was chosen: `due` came after the first three, and
 * a script that sends those six fields keeps working.
 */
const OPTIONAL_KINDS: ReadonlySet<string> = new Set(['due'])

/** The fields of the choices: `<kind>_app` and `<kind>_mail`, each "true" or "false". */
const PREF_FIELDS = Object.fromEntries(
  KINDS.flatMap((k) => {
    const presence = OPTIONAL_KINDS.has(k) ? 'optional' : 'required'
    return [
      [`${k}_app`, presence],
      [`${k}_mail`, presence],
    ]
  }),
) as Record<string, 'required' | 'optional'>

/**
 * The choices of a checked body (a field of an optional kind left out keeps its value in
 * `current`), or the refusal of the first field that is not "true" or "false".
 */
function prefsOf(body: Body, current: Prefs): Prefs | Refusal {
  const prefs = {} as Prefs
  for (const k of KINDS) {
    const pair = { app: false, mail: false }
    for (const part of ['app', 'mail'] as const) {
      const name = `${k}_${part}`
      const value = body[name] ?? (OPTIONAL_KINDS.has(k) ? String(current[k][part]) : undefined)
      if (value !== 'true' && value !== 'false') return refuse(400, badPref(name), name)
      pair[part] = value === 'true'
    }
    prefs[k] = pair
  }
  return prefs
}

/** The choices as the API shows them: per kind, `{ app, mail }`. */
function prefsAnswer(prefs: Prefs) {
  return Object.fromEntries(KINDS.map((k) => [k, { app: prefs[k].app, mail: prefs[k].mail }]))
}

export function createNotificationHandlers(ctx: Context): NotificationHandlers {
  const { store, publicUrl } = ctx

  /** A notification as the API answers it. */
  function answer(n: Notification) {
    return {
      id: n.id,
      ticket: {
        id: n.ticket.id,
        project: n.ticket.project,
        number: n.ticket.number,
        subject: n.ticket.subject,
        ref: `${n.ticket.slug}#${n.ticket.number}`,
        url: `${publicUrl}/${n.ticket.slug}/${n.ticket.number}`,
      },
      reason: n.reason,
      kind: n.kind,
      event: n.event,
      actor: n.actor,
      at: n.at,
      read: n.read,
    }
  }

  async function list(req: Request): Promise<Response> {
    const who = await ctx.credentials.resolve(req, 'user')
    if (!who.ok) return answerRefusal(who)
    const limitText = req.query.get('limit')
    const limit = limitText === null ? undefined : parseLimit(limitText, MAX_LIMIT)
    if (limit === null) return answerRefusal(refuse(400, BAD_LIMIT, 'limit'))
    const afterText = req.query.get('after')
    const after = afterText === null ? null : notificationCursors.read(afterText)
    if (after === null && afterText !== null)
      return answerRefusal(refuse(400, BAD_NOTIFICATIONS_AFTER, 'after'))
    const me = who.caller.user.id
    const unread = await store.notifications.unread(me)
    if (limit === undefined) {
      // Every notification, newest first, read in batches and sent as they come.
      const rows: ReturnType<typeof answer>[] = []
      let before = after
      for (;;) {
        const batch = await store.notifications.list(me, STREAM_BATCH, before)
        rows.push(...batch.map(answer))
        if (batch.length < STREAM_BATCH) break
        before = Number(batch[batch.length - 1]!.id)
      }
      return json(200, { notifications: rows, unread }, PRIVATE_NO_STORE)
    }
    const rows = await store.notifications.list(me, limit + 1, after)
    let next: string | null = null
    if (rows.length > limit) {
      const params = new URLSearchParams(req.query)
      params.delete('limit')
      params.delete('after')
      params.set('limit', String(limit))
      params.set('after', notificationCursors.write(Number(rows[limit - 1]!.id)))
      next = `${publicUrl}${req.path}?${params}`
    }
    return json(
      200,
      { notifications: rows.slice(0, limit).map(answer), unread, next },
      { ...PRIVATE_NO_STORE, ...(next === null ? {} : { link: `<${next}>; rel="next"` }) },
    )
  }

  return {
    list,

    async read(req) {
      const w = await acceptWrite(ctx, req, 'user', { id: 'optional', all: 'optional' })
      if (!w.ok) return answerRefusal(w)
      const me = w.caller.user.id
      const { id, all } = w.body
      if (all !== undefined) {
        if (all !== 'true') return answerRefusal(refuse(400, READ_ALL_TRUE, 'all'))
        return json(200, await store.transact((tx) => readAll(tx, me)), PRIVATE_NO_STORE)
      }
      if (id === undefined || id === '') return answerRefusal(refuse(400, READ_WHAT, 'id'))
      const done = await store.transact((tx) => readOne(tx, me, id))
      if (done instanceof Refusal) return answerRefusal(done)
      return json(200, done, PRIVATE_NO_STORE)
    },

    async prefs(req) {
      const who = await ctx.credentials.resolve(req, 'user')
      if (!who.ok) return answerRefusal(who)
      const [mine, defaults] = await Promise.all([
        store.notifications.prefs(who.caller.user.id),
        store.notifications.defaults(),
      ])
      return json(
        200,
        {
          prefs: prefsAnswer(mine!),
          defaults: prefsAnswer(defaults),
          mail: ctx.mailer !== null,
        },
        PRIVATE_NO_STORE,
      )
    },

    async setPrefs(req) {
      const w = await acceptWrite(ctx, req, 'user', PREF_FIELDS)
      if (!w.ok) return answerRefusal(w)
      const current = await store.notifications.prefs(w.caller.user.id)
      const prefs = prefsOf(w.body, current!)
      if (prefs instanceof Refusal) return answerRefusal(prefs)
      await store.transact((tx) => savePrefs(tx, w.caller.user.id, prefs))
      return json(200, { prefs: prefsAnswer(prefs) }, PRIVATE_NO_STORE)
    },

    async setDefaults(req) {
      const w = await acceptWrite(ctx, req, 'user', PREF_FIELDS)
      if (!w.ok) return answerRefusal(w)
      // The owner is known from the session the built-in provider signed them in with.
      const { session } = await ctx.credentials.session(req)
      if (w.caller.via !== 'session' || session?.data.owner !== true)
        return answerRefusal(refuse(403, DEFAULTS_OWNER_ONLY))
      const prefs = prefsOf(w.body, await store.notifications.defaults())
      if (prefs instanceof Refusal) return answerRefusal(prefs)
      await store.transact((tx) => tx.notifications.setDefaults(prefs))
      return json(200, { defaults: prefsAnswer(prefs) }, PRIVATE_NO_STORE)
    },

    async watchTicket(req) {
      const w = await acceptWrite(ctx, req, 'user', { watching: 'required' })
      if (!w.ok) return answerRefusal(w)
      const watching = w.body.watching
      if (watching !== 'true' && watching !== 'false')
        return answerRefusal(refuse(400, badPref('watching'), 'watching'))
      const ticket = await store.tickets.locate(req.params)
      if (!ticket) return answerRefusal(refuse(404, NO_SUCH_TICKET))
      const me = w.caller.user.id
      await store.transact((tx) => setWatching(tx, me, ticket.id, watching === 'true'))
      return json(200, { watching: await store.notifications.isWatching(ticket.id, me) })
    },

    async watchProject(req) {
      const w = await acceptWrite(ctx, req, 'user', { all: 'required' })
      if (!w.ok) return answerRefusal(w)
      const all = w.body.all
      if (all !== 'true' && all !== 'false')
        return answerRefusal(refuse(400, badPref('all'), 'all'))
      const project = await store.projects.find(req.params.slug!)
      if (!project) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      const me = w.caller.user.id
      await store.transact((tx) => setWatchingProject(tx, me, project.id, all === 'true'))
      return json(200, { all: await store.notifications.watchesProject(project.id, me) })
    },
  }
}
