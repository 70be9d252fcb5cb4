/**
 * Following live events from a page (docs/live-events.md): long-poll `GET /api/live` with the
 * cursor the page was rendered at, and, when events touch what the page shows, hand them on so
 * the page redraws and announces them. Network failures wait 1 s, doubling up to 30 s, and ask
 * again with the same cursor: nothing is missed.
 */
import { eventSentence } from '../text/history-words.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'

export interface LiveEvent {
  id?: number
  name: string
  args: unknown[]
}

export interface LiveDeps {
  fetch: typeof fetch
  sleep(ms: number): Promise<void>
  /** The project the page shows (its events only), or null for every project. */
  project: string | null
  /** The ticket a ticket page shows, or null. */
  ticket: string | null
  /** The cursor the page was rendered at. */
  cursor: string | null
  /** The only event names the page follows (the project settings' own); every name when absent. */
  events?: readonly string[] | null
  /** A signed-in person's page: it also follows their own events (`mine=1`, the bell's). */
  mine?: boolean
  /** Called with the events that touch the page (after a reset: none, `reset` true). */
  onChange(events: LiveEvent[], reset: boolean): Promise<void>
}

/**
 * True when `event` changes what a page showing `ticket` (null: a list) shows; a page that
 * names its `events` (the project settings) follows those only, so a ticket's news is not read
 * out there.
 */
export function touches(
  event: LiveEvent,
  ticket: string | null,
  events: readonly string[] | null = null,
): boolean {
  // The person's own events (their bell) touch every page of theirs.
  if (event.name === 'notificationsChanged') return true
  if (events !== null && !events.includes(event.name)) return false
  // An upload changes no page: a ticket shows a file once its text, a change of its own, links it.
  if (event.name === 'fileAttached') return false
  if (ticket === null) return true
  if (event.name === 'ticketEvent') return event.args[0] === ticket
  if (event.name === 'ticketsRelated') return JSON.stringify(event.args).includes(ticket)
  return false
}

export interface LiveFollower {
  /** Polls until {@link LiveFollower.stop}. */
  run(): Promise<void>
  stop(): void
}

export function createLiveFollower(deps: LiveDeps): LiveFollower {
  let cursor = deps.cursor
  let stopped = false
  let failures = 0
  const backoff = () => Math.min(30_000, 1000 * 2 ** Math.min(failures++, 5))
  return {
    stop() {
      stopped = true
    },
    async run() {
      while (!stopped) {
        try {
          const query = new URLSearchParams()
          if (deps.project !== null) query.set('project', deps.project)
          if (cursor !== null) query.set('after', cursor)
          if (deps.mine) query.set('mine', '1')
          const res = await deps.fetch(`/api/live?${query}`, { cache: 'no-store' })
          if (res.status === 503) {
            await deps.sleep(1000 * (Number(res.headers.get('retry-after')) || 5))
            continue
          }
          if (!res.ok) {
            await deps.sleep(backoff())
            continue
          }
          const answer = (await res.json()) as {
            cursor: number | string
            events?: LiveEvent[]
            reset?: boolean
          }
          failures = 0
          cursor = String(answer.cursor)
          if (answer.reset) await deps.onChange([], true)
          else {
            const touching = (answer.events ?? []).filter((e) =>
              touches(e, deps.ticket, deps.events ?? null),
            )
            if (touching.length > 0) await deps.onChange(touching, false)
          }
        } catch {
          await deps.sleep(backoff())
        }
      }
    },
  }
}

/** Most sentences one announcement reads out; the rest are counted. */
const ANNOUNCE_MAX = 3

/** What a screen reader is told about `events`: who did what on which ticket. */
export function announcement(events: readonly LiveEvent[]): string {
  const sentences: string[] = []
  for (const e of events) {
    if (e.name === 'ticketCreated') {
      const t = e.args[0] as { ref?: string; subject?: string } | undefined
      sentences.push(`New ticket ${t?.ref ?? ''}: ${t?.subject ?? ''}`.trim())
    } else if (e.name === 'ticketEvent') {
      const event = e.args[1] as TicketEvent | undefined
      const t = e.args[2] as { ref?: string } | undefined
      if (event && typeof event.by === 'string')
        sentences.push(`${event.by} ${eventSentence(event)} on ${t?.ref ?? 'a ticket'}`)
    } else if (e.name === 'connectionsChanged') sentences.push('The connected apps changed')
    else if (e.name === 'membersChanged') sentences.push('The members changed')
    else if (e.name === 'invitesChanged') sentences.push('The open invites changed')
    else if (e.name === 'projectChanged')
      sentences.push('The project’s title, slug or description changed')
    else if (e.name === 'notificationsChanged') {
      const added = (e.args[0] as { added?: unknown } | undefined)?.added
      if (typeof added === 'number' && added > 0)
        sentences.push(
          added === 1 ? 'You have a new notification' : `You have ${added} new notifications`,
        )
    }
  }
  if (sentences.length === 0)
    return events.some((e) => e.name !== 'notificationsChanged') ? 'Related tickets changed.' : ''
  const shown = sentences.slice(0, ANNOUNCE_MAX).map((s) => `${s}.`)
  if (sentences.length > ANNOUNCE_MAX)
    shown.push(`And ${sentences.length - ANNOUNCE_MAX} more changes.`)
  return shown.join(' ')
}

/** The keys of the keyed items (`data-key`) that are new or changed between two renderings. */
export function changedKeys(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): string[] {
  const changed: string[] = []
  for (const [key, html] of after) if (before.get(key) !== html) changed.push(key)
  return changed
}
