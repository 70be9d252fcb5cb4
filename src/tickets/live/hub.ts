/**
 * The long-poll hub of live events for pages: `GET /api/live` (docs/live-events.md).
 *
 * The outbox table `events` is the truth. Each event gets its place in the delivery order,
 * `seq`, as its transaction commits (sql/0004_live.sql), so `seq` order is commit order and a
 * reader never sees a `seq` before all smaller ones; the cursor a page holds is the last `seq`
 * it has been told about.
 *
 * Waiting polls are kept in memory, and one read of the table answers all of them: a read runs
 * when this process wrote an event ({@link Wake}), when another process did (a NOTIFY on
 * the events channel, real PostgreSQL only: `listener.ts`), when new polls arrive, and every few seconds
 * while polls wait, in case a wake-up was lost. Polls that would get the same answer share one
 * encoded body.
 *
 * ```ts
 * const live = createLive({ sql, clock: Date.now, wake, resolveProject, listen: kind === 'postgres' })
 * const route = { method: 'GET', path: '/api/live', handler: live.handler }
 * ```
 *
 * @module
 */
import type { Sql } from '../../db/client.ts'
import { json, type Response } from '../../http/response.ts'
import type { Handler } from '../../http/handler.ts'
import type { Request } from '../../http/request.ts'
import { parseSequenceCursor } from '../../http/paging.ts'
import type { Logger } from '../../base/log.ts'
import type { Wake } from './events.ts'
import { startListener } from './listener.ts'
import { pruneEvents, readEventsAfter, readLiveCursor } from '../store/outbox.ts'
import { refuseText } from '../rules/body.ts'
import { BAD_CURSOR, NO_SUCH_PROJECT, TOO_MANY_WAITING } from '../rules/messages.ts'
import { answerRefusal, refuse } from '../../http/refusal.ts'
import { collectAfterMassAnswer } from '../../base/collect.ts'

/** How long a poll waits for an event before it is answered with none. */
export const HOLD_MS = 25_000
/** Events are kept at least this long (24 hours); older ones are deleted by {@link Live.prune}. */
export const KEEP_MS = 24 * 60 * 60 * 1000
/** Waiting polls one process takes before it answers 503. */
export const MAX_WAITING = 20_000
/** Seconds a refused poll is told to wait (`Retry-After`). */
export const RETRY_AFTER_S = 5

// A read while polls wait even without a wake-up: a NOTIFY sent while the LISTEN connection was
// reconnecting is lost, and on the embedded database other processes send none at all.
const CHECK_MS = 2_000
const PRUNE_MS = 10 * 60 * 1000
// The most events one read takes, and so one answer carries; a page further behind gets the
// rest on its next poll.
const PAGE = 500

export interface LiveDeps {
  sql: Sql
  /** Milliseconds since the epoch; decides which events are old enough to delete. */
  clock: () => number
  /** Pinged by the service after each commit that emitted events. */
  wake: Wake
  /** The project id for a slug or id, or null when there is no such project. */
  resolveProject: (slugOrId: string) => Promise<string | null>
  /**
   * The signed-in person of a poll that asks for its own events too (`mine=1`): their events
   * (the bell's, src/tickets/domain/notifications.ts) go to their polls only. Null: nobody.
   */
  viewer?: (req: Request) => Promise<string | null>
  /**
   * LISTEN for other processes' writes. True on a real PostgreSQL server; false on the embedded
   * database, which has one process and one session (a LISTEN there is unreliable).
   */
  listen: boolean
  /** Waiting polls past which a poll is answered 503; {@link MAX_WAITING} by default. */
  maxWaiting?: number
  /** How long a poll waits; {@link HOLD_MS} by default. */
  holdMs?: number
  /** How often the table is read while polls wait, wake-ups aside; 2 s by default. */
  checkMs?: number
  /** Where read and LISTEN failures are logged. */
  logger?: Logger
}

export interface Live {
  /** The handler of `{ method: 'GET', path: '/api/live' }`. */
  handler: Handler
  /** The current cursor: a page rendered now and polling from it misses no later event. */
  cursor(): Promise<number>
  /** Polls in this process that have had their first read and wait for an event. */
  readonly waiting: number
  /**
   * Deletes events older than {@link KEEP_MS} (always keeping the newest one, which carries the
   * current cursor); returns how many went. Runs every 10 minutes on its own.
   */
  prune(): Promise<number>
  /** Answers the waiting polls with no events, stops the timers and the LISTEN. */
  close(): Promise<void>
}

/**
 * A waiting poll. A class, and one hold timer for all of them (a list in deadline order): with
 * 10,000 polls waiting, every object a poll keeps counts (docs/live-events.md, "Memory per waiting poll").
 */
class Poll {
  /** The group it waits in; null while it waits for its first read. */
  group: Group | null = null
  done = false
  /** Neighbours in the list of held polls, oldest first. */
  older: Poll | null = null
  newer: Poll | null = null
  cancelClose: () => void = noop
  constructor(
    /** The page has seen everything up to here (for its project). */
    public after: number,
    readonly project: string | null,
    /** The signed-in person whose own events it also gets, or null. */
    readonly user: string | null,
    /** When the poll is answered with no events ({@link performance.now} milliseconds). */
    readonly deadline: number,
    public resolve: (response: Response) => void,
    public reject: (err: unknown) => void,
  ) {}
}

function noop(): void {}

/** Waiting polls with the same cursor and project: one answer serves them all. */
interface Group {
  key: string
  after: number
  project: string | null
  polls: Set<Poll>
}

/** Builds the live-event delivery of the ticket service. */
export function createLive(deps: LiveDeps): Live {
  const { sql, clock, wake, resolveProject, logger } = deps
  const maxWaiting = deps.maxWaiting ?? MAX_WAITING
  const holdMs = deps.holdMs ?? HOLD_MS
  // Polls not yet read for, and polls that were read for and wait. A read looks at every
  // arrival, but at a waiting group only when the table moved past its cursor: the cost of a
  // read grows with the arrivals and the answers, not with the polls that just keep waiting.
  let arrivals = new Set<Poll>()
  const groups = new Map<string, Group>()
  let waiting = 0
  const stop = new AbortController()
  let reading = false
  let again = false
  // Every poll is held: answered with no events when `holdMs` have passed. They are listed in
  // arrival order, which is deadline order, and one timer answers the oldest when its time is up.
  let oldest: Poll | null = null
  let newest: Poll | null = null
  let holdTimer: NodeJS.Timeout | null = null

  const check = setInterval(kick, deps.checkMs ?? CHECK_MS)
  const pruning = setInterval(() => void prune().catch((err) => log('prune', err)), PRUNE_MS)
  check.unref()
  pruning.unref()

  const listener = startListener({
    sql,
    wake,
    listen: deps.listen,
    onEvent: kick,
    onError: (err) => log('listen', err),
  })

  function log(what: string, err: unknown): void {
    logger?.line(`live ${what} failed: ${err instanceof Error ? err.message : String(err)}`)
  }

  /** Asks for a read; reads never overlap, and one asked for during a read runs after it. */
  function kick(): void {
    if (stop.signal.aborted || (arrivals.size === 0 && waiting === 0)) return
    if (reading) {
      again = true
      return
    }
    reading = true
    void (async () => {
      try {
        do {
          again = false
          await read()
        } while ((again || arrivals.size > 0) && !stop.signal.aborted)
      } catch (err) {
        log('read', err)
      } finally {
        reading = false
      }
    })()
  }

  /** One read for every poll now registered. */
  async function read(): Promise<void> {
    const batch = arrivals
    arrivals = new Set()
    let from = Number.MAX_SAFE_INTEGER
    for (const poll of batch) if (poll.after < from) from = poll.after
    for (const group of groups.values()) if (group.after < from) from = group.after
    if (from === Number.MAX_SAFE_INTEGER) return
    const { pruned, top, events } = await readEventsAfter(sql, from, PAGE).catch((err) => {
      // These arrivals cannot be told whether they are behind: they fail (a logged 500) and the
      // page retries. The waiting groups stay for the next wake-up or check.
      for (const poll of batch) if (!poll.done) settle(poll).reject(err)
      throw err
    })
    const full = events.length === PAGE
    // The read covers (from, head]: everything, or the page it was cut to.
    const head = full ? events[events.length - 1]!.seq : top
    if (full) again = true

    // Events for one person go to that person's polls only, answered apart from the shared ones.
    const personal = new Set<string>()
    for (const e of events) if (e.user_id !== null) personal.add(e.user_id)
    const ownAnswer = (poll: Poll): Response | null => {
      const mine = events.filter(
        (e) =>
          e.seq > poll.after &&
          (e.user_id === null
            ? poll.project === null || e.project_id === poll.project
            : e.user_id === poll.user),
      )
      return mine.length === 0
        ? null
        : json(200, {
            cursor: head,
            events: mine.map(({ id, name, args }) => ({ id, name, args })),
          })
    }
    // What a cursor and project are answered with: a response, or null to wait (from `head` on).
    const answers = new Map<string, Response | null>()
    const answerFor = (key: string, after: number, project: string | null): Response | null => {
      let response = answers.get(key)
      if (response !== undefined) return response
      // A cursor below what was deleted may have missed events; one above the newest event
      // comes from another database (or was made up): either way the page starts again.
      if (after < pruned || after > top) response = json(200, { reset: true, cursor: top })
      else {
        const mine = events.filter(
          (e) =>
            e.seq > after && e.user_id === null && (project === null || e.project_id === project),
        )
        response =
          mine.length === 0
            ? null
            : json(200, {
                cursor: head,
                events: mine.map(({ id, name, args }) => ({ id, name, args })),
              })
      }
      answers.set(key, response)
      return response
    }

    // A cursor in range: one outside it is answered with the reset, shared.
    const after = (poll: Poll) => poll.after >= pruned && poll.after <= top
    let answered = 0
    for (const group of [...groups.values()]) {
      if (group.after >= head && group.after <= top && group.after >= pruned) continue
      groups.delete(group.key)
      const shared = answerFor(group.key, group.after, group.project)
      for (const poll of group.polls) {
        poll.group = null
        waiting--
        const response =
          poll.user !== null && personal.has(poll.user) && after(poll) ? ownAnswer(poll) : shared
        if (response) {
          settle(poll).resolve(response)
          answered++
        } else join(poll, head)
      }
    }
    for (const poll of batch) {
      if (poll.done) continue
      const response =
        poll.user !== null && personal.has(poll.user) && after(poll)
          ? ownAnswer(poll)
          : answerFor(keyOf(poll.after, poll.project), poll.after, poll.project)
      if (response) {
        settle(poll).resolve(response)
        answered++
      } else join(poll, Math.max(poll.after, head))
    }
    // What thousands of answered polls leave is collected at once (src/base/collect.ts).
    collectAfterMassAnswer(answered)
  }

  function keyOf(after: number, project: string | null): string {
    return `${after} ${project ?? ''}`
  }

  /** Puts a poll in the waiting group of cursor `after`. */
  function join(poll: Poll, after: number): void {
    poll.after = after
    const key = keyOf(after, poll.project)
    let group = groups.get(key)
    if (!group) groups.set(key, (group = { key, after, project: poll.project, polls: new Set() }))
    group.polls.add(poll)
    poll.group = group
    waiting++
  }

  /** Takes a poll out of wherever it waits and returns it, to be answered once. */
  function settle(poll: Poll): Poll {
    poll.done = true
    const group = poll.group
    if (group) {
      group.polls.delete(poll)
      if (group.polls.size === 0) groups.delete(group.key)
      poll.group = null
      waiting--
    } else arrivals.delete(poll)
    unhold(poll)
    poll.cancelClose()
    return poll
  }

  function empty(poll: Poll): Response {
    return json(200, { cursor: poll.after, events: [] })
  }

  function hold(poll: Poll): void {
    poll.older = newest
    if (newest) newest.newer = poll
    else oldest = poll
    newest = poll
    if (holdTimer === null) armHold()
  }

  function unhold(poll: Poll): void {
    if (poll.older) poll.older.newer = poll.newer
    else oldest = poll.newer
    if (poll.newer) poll.newer.older = poll.older
    else newest = poll.older
    poll.older = poll.newer = null
  }

  // Armed for the oldest poll's deadline; when that poll was answered early, the timer finds
  // a later deadline at the head and arms again.
  function armHold(): void {
    holdTimer =
      oldest === null ? null : setTimeout(expire, Math.max(0, oldest.deadline - performance.now()))
  }

  function expire(): void {
    const now = performance.now()
    let answered = 0
    while (oldest !== null && oldest.deadline <= now) {
      const poll = oldest
      settle(poll).resolve(empty(poll))
      answered++
    }
    collectAfterMassAnswer(answered)
    armHold()
  }

  const handler: Handler = (req) => {
    const afterText = req.query.get('after')
    const after = afterText === null ? null : parseSequenceCursor(afterText)
    if (after === null && afterText !== null) return answerRefusal(refuse(400, BAD_CURSOR, 'after'))
    if (after !== null && waiting + arrivals.size >= maxWaiting) {
      return answerRefusal(refuse(503, TOO_MANY_WAITING), { 'retry-after': String(RETRY_AFTER_S) })
    }
    const projectText = req.query.get('project')
    // Only a waiting poll that asks for its person's own events reads who is signed in.
    const who = (): Promise<string | null> =>
      req.query.get('mine') === '1' && deps.viewer ? deps.viewer(req) : Promise.resolve(null)
    if (projectText === null)
      return after === null ? now() : who().then((user) => wait(req, after, null, user))
    const refused = refuseText('project', projectText)
    if (refused) return answerRefusal(refused)
    return resolveProject(projectText).then((project) => {
      if (project === null) return answerRefusal(refuse(404, NO_SUCH_PROJECT))
      return after === null ? now() : who().then((user) => wait(req, after, project, user))
    })
  }

  /** The answer to a poll without a cursor: where to start. */
  async function now(): Promise<Response> {
    return json(200, { cursor: await readLiveCursor(sql), events: [] })
  }

  /** Registers a poll, to be answered by a read, by its deadline, or when its client goes away. */
  function wait(
    req: Request,
    after: number,
    project: string | null,
    user: string | null = null,
  ): Response | Promise<Response> {
    if (stop.signal.aborted) return json(200, { cursor: after, events: [] })
    let poll!: Poll
    const answer = new Promise<Response>((resolve, reject) => {
      poll = new Poll(after, project, user, performance.now() + holdMs, resolve, reject)
    })
    arrivals.add(poll)
    hold(poll)
    poll.cancelClose = req.onClose(closeListener(poll))
    kick()
    return answer
  }

  // Made apart from `wait`, so that a waiting poll does not keep its request record alive.
  function closeListener(poll: Poll): () => void {
    return () => {
      if (!poll.done) settle(poll).resolve(empty(poll))
    }
  }

  async function prune(): Promise<number> {
    return pruneEvents(sql, clock() - KEEP_MS)
  }

  return {
    handler,
    cursor: () => readLiveCursor(sql),
    get waiting() {
      return waiting
    },
    prune,
    async close() {
      if (stop.signal.aborted) return
      stop.abort()
      clearInterval(check)
      clearInterval(pruning)
      if (holdTimer) clearTimeout(holdTimer)
      while (oldest !== null) {
        const poll = oldest
        settle(poll).resolve(empty(poll))
      }
      await listener.close()
    },
  }
}
