/**
 * Ticket states (docs/tickets-api.md, "Records"), in order, and the state filter of the lists (4.1):
 * `?state=open,doing` or `?state=all`; without it `open,doing,review`.
 */
import { refuse, type Refusal } from '../../http/refusal.ts'
import { unknownState } from './messages.ts'

export const STATES = ['open', 'doing', 'review', 'done', 'dropped'] as const
export type State = (typeof STATES)[number]

export const DEFAULT_FILTER: readonly State[] = ['open', 'doing', 'review']

export function isState(text: string): text is State {
  return (STATES as readonly string[]).includes(text)
}

/** The states a list shows, from the `state` query parameter (null when absent). */
export function parseStateFilter(param: string | null): { ok: true; states: State[] } | Refusal {
  if (param === null || param === '') return { ok: true, states: [...DEFAULT_FILTER] }
  if (param === 'all') return { ok: true, states: [...STATES] }
  const states: State[] = []
  for (const part of param.split(',')) {
    const name = part.trim()
    if (!isState(name)) return refuse(400, unknownState(name), 'state')
    if (!states.includes(name)) states.push(name)
  }
  return { ok: true, states }
}
