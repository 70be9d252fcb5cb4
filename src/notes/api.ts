/**
 * The notes JSON API (docs/notes-api.md, "Signing in" and "Checks of /api/notes, in order"):
 * `GET /api/me` and `/api/notes`, whose checks run in the order of that list, with the
 * cross-site and content-type checks (docs/core.md, "Sessions and credentials") right after the
 * sign-in check for POST.
 */
import { etagOf, matches, notModified } from '../http/conditional.ts'
import { originOf, refuseContentType, refuseCrossSite } from '../http/guards.ts'
import { answerRefusal, Refusal, refuse } from '../http/refusal.ts'
import { json, PRIVATE_NO_STORE, type Response } from '../http/response.ts'
import type { Request } from '../http/request.ts'
import { parseJsonObject } from '../http/json-validate.ts'
import type { Sessions } from '../auth/session.ts'
import { textDefect } from '../http/text.ts'
import { cursors, parseLimit } from '../http/paging.ts'
import { API, FIELD, PINS, SHARE } from './messages.ts'
import type { Publications } from './publications.ts'
import type { Pins } from './pins.ts'
import type { Shares } from './shares.ts'
import { isSharedId, type DeleteInput, type NoteStore, type SaveInput } from './store.ts'
import { HOLD_MS, LOOK_MS, MAX_WAITS, type Wakes } from './waits.ts'
import { TOO_MANY_WAITING } from './messages.ts'

/** The longest `id` and `local` of a save (docs/notes-api.md, "Checks of /api/notes, in order", item 5). */
export const MAX_ID = 64

/** The largest page of the list (docs/notes-api.md, "Pages"). */
export const MAX_LIMIT = 1000

// The API answers the signed-in person's data: no cache keeps it.
const NO_STORE = PRIVATE_NO_STORE

type Body = Record<string, unknown>

/** The fields of each op with their JSON types, in the order the interface names them. */
const SAVE_FIELDS = {
  op: 'string',
  id: 'string',
  local: 'string',
  text: 'string',
  base: 'number',
  at: 'number',
} as const
const DELETE_FIELDS = { op: 'string', id: 'string', base: 'number' } as const
/** The save's fields the interface leaves to this service: the device's words for itself. */
const SAVE_OPTIONAL = { device: 'string' } as const

export interface ApiHandlers {
  /** `GET /api/me` (docs/notes-api.md, "Signing in"): any method, no login needed. */
  me(req: Request): Response | Promise<Response>
  /** `/api/notes` (docs/notes-api.md, "Checks of `/api/notes`, in order"): every method. */
  notes(req: Request): Promise<Response>
  /** `/api/notes/changes?since=` (docs/notes-api.md): every method, so the 401 comes first. */
  changes(req: Request): Promise<Response>
  /** `/api/notes/revisions?id=` (docs/notes-api.md): every method, so the 401 comes first. */
  revisions(req: Request): Promise<Response>
  /** `/api/notes/trash` (docs/notes-api.md, "Recently deleted"): every method, so the 401 comes first. */
  trash(req: Request): Promise<Response>
  /** `/api/notes/publications` (docs/notes-api.md, "Publishing"): every method, so the 401 comes first. */
  publications(req: Request): Promise<Response>
  /** `/api/notes/people?name=` (docs/notes-api.md, "Sharing with people"). */
  people(req: Request): Promise<Response>
  /** `/api/notes/shares`: the owner's shares, sharing and unsharing. */
  shares(req: Request): Promise<Response>
  /** `/api/notes/shared`: the notes shared with the signed-in person. */
  shared(req: Request): Promise<Response>
  /** `/api/notes/pins`: the person's pinned notes, and a Pin or Unpin (docs/notes-api.md, "Pins"). */
  pins(req: Request): Promise<Response>
  /** `/api/notes/wait?id=&edited=`: held until the note changes (docs/notes-api.md, "Following a shared note"). */
  wait(req: Request): Promise<Response>
  /** Answers the held waits and takes no more (the service stops). */
  close(): void
}

export function createApiHandlers(deps: {
  store: NoteStore
  publications: Publications
  shares: Shares
  wakes: Wakes
  pins: Pins
  sessions: Sessions
  publicUrl: string
  /** How long a wait is held (ms); {@link HOLD_MS} unless a test says less. */
  holdMs?: number
}): ApiHandlers {
  const { store, publications, sessions, shares, wakes, pins } = deps
  const holdMs = deps.holdMs ?? HOLD_MS
  const stop = new AbortController()
  const pageUrl = (id: string) => `${deps.publicUrl}/p/${id}`
  const ownOrigin = originOf(deps.publicUrl)

  async function read(user: string, req: Request): Promise<Response> {
    const query = req.query
    const id = query.get('id')
    if (id !== null) {
      const defect = textDefect(id)
      if (defect !== null) return refused(refuse(400, FIELD[defect]('id'), 'id'))
      const note = await store.get(user, id)
      return note ? answer(200, note) : refused(refuse(404, API.noSuchNote))
    }
    const sinceText = query.get('since')
    let since: number | undefined
    if (sinceText !== null) {
      const parsed = parseSince(sinceText)
      if (parsed === null) return refused(refuse(400, FIELD.wholeNumber('since'), 'since'))
      since = parsed
    }
    const limitText = query.get('limit')
    const limit = limitText === null ? undefined : parseLimit(limitText, MAX_LIMIT)
    if (limit === null) return refused(refuse(400, FIELD.limit, 'limit'))
    const afterText = query.get('after')
    const after = afterText === null ? undefined : pageCursors.read(afterText)
    if (after === null) return refused(refuse(400, FIELD.cursor, 'after'))
    // The list is the same as long as the user's version is, so a client that has it is
    // answered 304 after one indexed lookup. The version is read before the rows: a write
    // committed in between makes the tag older than the rows, never newer, so the next request
    // gets the new rows.
    const version = await store.version(user)
    const etag = etagOf(`${user}\n${version}\n${req.search}`)
    const headers = { ...NO_STORE, etag }
    if (matches(req.headers['if-none-match'], etag)) return notModified(headers)
    const from = Math.max(since ?? -1, after ?? -1)
    if (limit === undefined)
      return json(200, { notes: await store.list(user, from < 0 ? undefined : from) }, headers)
    // One row past the page says whether another page follows. `edited` is unique per user and
    // rows are listed by it, so the last row's `edited` is where the next page starts.
    const rows = await store.list(user, from < 0 ? undefined : from, limit + 1)
    if (rows.length <= limit) return json(200, { notes: rows, next: null }, headers)
    const notes = rows.slice(0, limit)
    const params = new URLSearchParams()
    if (sinceText !== null) params.set('since', String(since))
    params.set('limit', String(limit))
    params.set('after', pageCursors.write(notes.at(-1)!.edited))
    const next = `${deps.publicUrl}/api/notes?${params}`
    return json(200, { notes, next }, { ...headers, link: `<${next}>; rel="next"` })
  }

  /** Rule 7. */
  async function save(user: string, body: Body): Promise<Response> {
    if (!hasFields(body, SAVE_FIELDS)) return refused(refuse(400, API.saveFields))
    const input = body as unknown as SaveInput & { op: 'save' }
    // A shared note's id is longer than any own note's may be (docs/notes-api.md, "Sharing with
    // people"); the store checks it against the share.
    if ((input.id.length > MAX_ID && !isSharedId(input.id)) || input.local.length > MAX_ID)
      return refused(refuse(400, API.tooLong))
    const unknown = unknownField(body, { ...SAVE_FIELDS, ...SAVE_OPTIONAL })
    if (unknown !== null) return refused(refuse(400, FIELD.unknown(unknown)))
    if (Object.hasOwn(body, 'device') && typeof body.device !== 'string')
      return refused(refuse(400, FIELD.device, 'device'))
    const result = await store.save(user, {
      id: input.id,
      local: input.local,
      text: input.text,
      base: input.base,
      at: input.at,
      ...(Object.hasOwn(body, 'device') ? { device: body.device as string } : {}),
    })
    return result instanceof Refusal ? refused(result) : answer(200, result)
  }

  /** Rule 8. */
  async function remove(user: string, body: Body): Promise<Response> {
    if (!hasFields(body, DELETE_FIELDS)) return refused(refuse(400, API.deleteFields))
    const input = body as unknown as DeleteInput & { op: 'delete' }
    const unknown = unknownField(body, DELETE_FIELDS)
    if (unknown !== null) return refused(refuse(400, FIELD.unknown(unknown)))
    const result = await store.remove(user, { id: input.id, base: input.base })
    return result instanceof Refusal ? refused(result) : answer(200, result)
  }

  /**
   * The signed-in user and the JSON object of a POST, checked in the order of `/api/notes`
   * (sign-in, cross-site, content type, method, body, JSON, object); or the answer that refuses.
   */
  async function accept(req: Request): Promise<{ user: string; body: Body | null } | Response> {
    const user = (await sessions.load(req))?.userId ?? null
    if (user === null) return refused(refuse(401, API.signIn))
    if (req.method === 'GET') return { user, body: null }
    if (req.method !== 'POST') return refused(refuse(405, API.methods), { allow: 'GET, POST' })
    const crossSite = refuseCrossSite(req, sessions.cookieName, ownOrigin)
    if (crossSite) return refused(crossSite)
    const bytes = await req.body()
    const wrongType = refuseContentType(req, bytes)
    if (wrongType) return refused(wrongType)
    if (bytes.length === 0) return refused(refuse(400, API.bodyNeeded))
    const parsed = parseJsonObject(bytes)
    if (!parsed.ok) return refused(parsed)
    return { user, body: parsed.value as Body }
  }

  /** The signed-in user of a GET-only route, or the answer that refuses (401, then 405). */
  async function getter(req: Request): Promise<string | Response> {
    const user = (await sessions.load(req))?.userId ?? null
    if (user === null) return refused(refuse(401, API.signIn))
    if (req.method !== 'GET') return refused(refuse(405, API.getOnly), { allow: 'GET' })
    return user
  }

  return {
    async people(req) {
      const user = await getter(req)
      if (typeof user !== 'string') return user
      const name = (req.query.get('name') ?? '').trim()
      if (name === '') return refused(refuse(400, SHARE.name, 'name'))
      const defect = textDefect(name)
      if (defect !== null) return refused(refuse(400, FIELD[defect]('name'), 'name'))
      if (name.length > 200) return answer(200, { people: [] })
      return answer(200, { people: await shares.find(user, name) })
    },

    async shares(req) {
      const accepted = await accept(req)
      if ('status' in accepted) return accepted
      const { user, body } = accepted
      if (body === null) return answer(200, { shares: await shares.ofOwner(user) })
      if (body.op !== 'share' && body.op !== 'unshare') return refused(refuse(400, SHARE.op))
      if (body.op === 'unshare') {
        if (typeof body.id !== 'string' || typeof body.person !== 'string')
          return refused(refuse(400, SHARE.unshareFields))
        const unknown = unknownField(body, { op: 'string', id: 'string', person: 'string' })
        if (unknown !== null) return refused(refuse(400, FIELD.unknown(unknown)))
        const was = await shares.unshare(user, body.id, body.person)
        // The other person's open page hears it at once (its wait answers 404).
        wakes.wake(user, body.id)
        return answer(200, { ok: true, was })
      }
      if (
        typeof body.id !== 'string' ||
        typeof body.person !== 'string' ||
        (body.access !== 'edit' && body.access !== 'read')
      )
        return refused(refuse(400, SHARE.fields))
      const unknown = unknownField(body, {
        op: 'string',
        id: 'string',
        person: 'string',
        access: 'string',
      })
      if (unknown !== null) return refused(refuse(400, FIELD.unknown(unknown)))
      const made = await shares.share(user, body.id, body.person, body.access)
      return made instanceof Refusal ? refused(made) : answer(200, made)
    },

    async pins(req) {
      const accepted = await accept(req)
      if ('status' in accepted) return accepted
      const { user, body } = accepted
      if (body === null) return answer(200, { pins: await pins.list(user) })
      if (body.op !== 'pin' && body.op !== 'unpin') return refused(refuse(400, PINS.op))
      if (typeof body.id !== 'string' || typeof body.at !== 'number')
        return refused(refuse(400, PINS.fields))
      const unknown = unknownField(body, { op: 'string', id: 'string', at: 'number' })
      if (unknown !== null) return refused(refuse(400, FIELD.unknown(unknown)))
      if (body.id === '') return refused(refuse(400, FIELD.empty('id'), 'id'))
      if (body.id.length > 100) return refused(refuse(400, API.tooLong))
      const defect = textDefect(body.id)
      if (defect !== null) return refused(refuse(400, FIELD[defect]('id'), 'id'))
      if (!Number.isSafeInteger(body.at) || body.at < 0)
        return refused(refuse(400, FIELD.wholeNumber('at'), 'at'))
      await pins.choose(user, body.id, body.op === 'pin', body.at)
      return answer(200, { ok: true })
    },

    async shared(req) {
      const user = await getter(req)
      if (typeof user !== 'string') return user
      return answer(200, { notes: await shares.sharedWith(user) })
    },

    async wait(req) {
      const user = await getter(req)
      if (typeof user !== 'string') return user
      const id = req.query.get('id') ?? ''
      if (id === '') return refused(refuse(400, FIELD.empty('id'), 'id'))
      const defect = textDefect(id)
      if (defect !== null) return refused(refuse(400, FIELD[defect]('id'), 'id'))
      const edited = parseSince(req.query.get('edited') ?? '')
      if (edited === null) return refused(refuse(400, FIELD.wholeNumber('edited'), 'edited'))
      const shared = isSharedId(id)
      const first = await shares.watched(user, id, shared)
      if (first === null) return refused(refuse(404, API.noSuchNote))
      let now: { key: string; edited: number; gone: boolean } = first
      if (wakes.held >= MAX_WAITS)
        return refused(refuse(503, TOO_MANY_WAITING), { 'retry-after': '5' })
      const gone = new AbortController()
      const cancel = req.onClose(() => gone.abort())
      const ended = AbortSignal.any([gone.signal, stop.signal])
      const deadline = performance.now() + holdMs
      try {
        for (;;) {
          const left = deadline - performance.now()
          if (now.edited !== edited || now.gone || left <= 0 || ended.aborted)
            return answer(200, { id, edited: now.edited, gone: now.gone })
          // A write in this process tells the note's state; otherwise (another process's
          // write, an unshare, the look every second) the note is read again.
          const woke = await wakes.next(now.key, Math.min(LOOK_MS, left), ended)
          const next: typeof now | null = woke
            ? { ...now, ...woke }
            : await shares.watched(user, id, shared)
          if (next === null) return refused(refuse(404, API.noSuchNote))
          now = next
        }
      } finally {
        cancel()
      }
    },

    close() {
      stop.abort()
    },

    async trash(req) {
      const accepted = await accept(req)
      if ('status' in accepted) return accepted
      const { user, body } = accepted
      if (body === null) return answer(200, { notes: await store.trash(user) })
      if (body.op !== 'empty') return refused(refuse(400, API.trashOp))
      const unknown = unknownField(body, { op: 'string' })
      if (unknown !== null) return refused(refuse(400, FIELD.unknown(unknown)))
      return answer(200, { ok: true, removed: await store.purge(user, null) })
    },

    async publications(req) {
      const accepted = await accept(req)
      if ('status' in accepted) return accepted
      const { user, body } = accepted
      if (body === null) {
        const list = await publications.list(user)
        return answer(200, { publications: list.map((p) => ({ ...p, url: pageUrl(p.id) })) })
      }
      if (body.op !== 'publish' && body.op !== 'unpublish')
        return refused(refuse(400, API.publishOp))
      if (typeof body.id !== 'string') return refused(refuse(400, API.publishFields))
      const unknown = unknownField(body, { op: 'string', id: 'string' })
      if (unknown !== null) return refused(refuse(400, FIELD.unknown(unknown)))
      if (body.op === 'unpublish')
        return answer(200, { ok: true, was: await publications.unpublish(user, body.id) })
      const made = await publications.publish(user, body.id)
      return made === null
        ? refused(refuse(404, API.noSuchNote))
        : answer(200, { ...made, url: pageUrl(made.id) })
    },

    async me(req) {
      const session = await sessions.load(req)
      return answer(200, { user: session?.userId ?? null })
    },

    async notes(req) {
      const user = (await sessions.load(req))?.userId ?? null
      if (user === null) return refused(refuse(401, API.signIn))
      let bytes: Uint8Array = new Uint8Array(0)
      if (req.method === 'POST') {
        const crossSite = refuseCrossSite(req, sessions.cookieName, ownOrigin)
        if (crossSite) return refused(crossSite)
        bytes = await req.body()
        const wrongType = refuseContentType(req, bytes)
        if (wrongType) return refused(wrongType)
      }
      if (req.method === 'GET') return read(user, req)
      if (req.method !== 'POST') return refused(refuse(405, API.methods), { allow: 'GET, POST' })
      if (bytes.length === 0) return refused(refuse(400, API.bodyNeeded))
      const parsed = parseJsonObject(bytes)
      if (!parsed.ok) return refused(parsed)
      const body = parsed.value
      const op = Object.hasOwn(body, 'op') ? (body as Body).op : undefined
      if (op === 'save') return save(user, body)
      if (op === 'delete') return remove(user, body)
      return refused(refuse(400, API.op))
    },

    async changes(req) {
      const user = (await sessions.load(req))?.userId ?? null
      if (user === null) return refused(refuse(401, API.signIn))
      if (req.method !== 'GET') return refused(refuse(405, API.getOnly), { allow: 'GET' })
      const since = parseSince(req.query.get('since') ?? '0')
      if (since === null) return refused(refuse(400, FIELD.wholeNumber('since'), 'since'))
      return answer(200, await store.changes(user, since))
    },

    async revisions(req) {
      const user = (await sessions.load(req))?.userId ?? null
      if (user === null) return refused(refuse(401, API.signIn))
      if (req.method !== 'GET') return refused(refuse(405, API.getOnly), { allow: 'GET' })
      const id = req.query.get('id')
      if (id === null || id === '') return refused(refuse(400, FIELD.empty('id'), 'id'))
      const revisions = await store.revisions(user, id)
      return revisions === null ? refused(refuse(404, API.noSuchNote)) : answer(200, { revisions })
    },
  }
}

/**
 * The cursor of a page that ends at the row edited at `edited`; today the `edited` after an `e`.
 */
const pageCursors = cursors<number>(
  (edited) => `e${edited}`,
  (text) => {
    const match = /^e([0-9]{1,16})$/.exec(text)
    const edited = match === null ? NaN : Number(match[1])
    return Number.isSafeInteger(edited) ? edited : null
  },
  24,
)

/** A `since`: a whole number from 0 that a double holds exactly, or null. */
function parseSince(text: string): number | null {
  const since = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN
  return Number.isSafeInteger(since) ? since : null
}

function answer(status: number, value: unknown): Response {
  return json(status, value, NO_STORE)
}

/** The answer to a refusal, kept by no cache. */
function refused(refusal: Refusal, headers?: Record<string, string>): Response {
  return answerRefusal(refusal, headers ? Object.assign({}, NO_STORE, headers) : NO_STORE)
}

/** Every field of `shape` is an own property of `body` with its JSON type. */
function hasFields(body: Body, shape: Readonly<Record<string, 'string' | 'number'>>): boolean {
  for (const name in shape) {
    if (!Object.hasOwn(body, name) || typeof body[name] !== shape[name]) return false
  }
  return true
}

/** The first field of `body` that `shape` does not name, or null. */
function unknownField(body: Body, shape: Readonly<Record<string, string>>): string | null {
  for (const name of Object.keys(body)) if (!Object.hasOwn(shape, name)) return name
  return null
}
