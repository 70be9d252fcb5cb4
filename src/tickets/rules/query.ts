/**
 * The search language of the ticket lists (docs/tickets-app.md, "Searching"): what a person types
 * in the search box of a project page and what the list API takes as `?q=`.
 *
 *     state:review assignee:alice is:blocked login loop
 *
 * Terms are separated by spaces. `key:value` filters, anything else is text to find in the
 * subject or summary. A `-` before a term excludes it; double quotes keep spaces inside a phrase
 * or a value (`"login loop"`, `assignee:"Mary Ann"`). Parsing is pure and total: any string
 * answers a query or one refusal naming what to change, never an exception.
 */
import { STATES, isState, type State } from './states.ts'
import { mustBeAtMost } from './messages.ts'
import { reason, refuse, type Refusal } from '../../http/refusal.ts'

/** Longest search accepted, in characters. */
export const QUERY_MAX = 500
/** Most terms in one search. */
export const TERMS_MAX = 30

export const SORTS = ['created-desc', 'created-asc', 'updated-desc', 'updated-asc', 'due'] as const
export type Sort = (typeof SORTS)[number]

/** `created` and `updated` alone mean newest first. */
const SORT_ALIASES: Record<string, Sort> = {
  created: 'created-desc',
  updated: 'updated-desc',
  newest: 'created-desc',
  oldest: 'created-asc',
}

export const KEYS = [
  'state',
  'assignee',
  'author',
  'is',
  'label',
  'milestone',
  'due',
  'no',
  'has',
  'sort',
] as const
const IS_VALUES = [
  'open',
  'closed',
  'blocked',
  'unblocked',
  'assigned',
  'unassigned',
  'overdue',
] as const
/** What `no:` may name: tickets without any label, without a milestone, without a due day. */
const NO_VALUES = ['label', 'milestone', 'due'] as const
/** `has:file`: the ticket's text or history links a file of this tracker; `has:image`: an image among them. */
export const HAS_VALUES = ['file', 'image'] as const
export type Has = (typeof HAS_VALUES)[number]

/** A comparison of the due day: `due:<2026-12-31`, `due:>=2026-12-01`, `due:2026-12-24`. */
export interface DueBound {
  op: '<' | '<=' | '>' | '>=' | '='
  /** `YYYY-MM-DD`. */
  day: string
}

/** `is:open` and `is:closed` as GitHub means them: still being worked on, and finished either way. */
const OPEN_STATES: readonly State[] = ['open', 'doing', 'review']
const CLOSED_STATES: readonly State[] = ['done', 'dropped']

/** A person a filter names: by name or id, nobody (`none`), or the signed-in person (`me`). */
export type Person = { kind: 'name'; name: string } | { kind: 'none' } | { kind: 'me' }

/** Alternatives that any may match, and exclusions that none may. */
export interface PersonFilter {
  any: Person[]
  not: Person[]
}

/** A parsed search. Different keys must all hold; positive values of one key are alternatives. */
export interface TicketQuery {
  /** The states to list; null when the search names none (the list's default applies). */
  states: State[] | null
  assignee: PersonFilter
  author: PersonFilter
  /** `is:blocked` true, `is:unblocked` (or `-is:blocked`) false, else null. */
  blocked: boolean | null
  /** `has:file`, `has:image` (true) and `-has:...` (false), by what they ask for; absent when not asked. */
  has: Partial<Record<Has, boolean>>
  /** `#12`: ticket numbers, any of. */
  numbers: number[]
  /** Words each subject-or-summary must contain (as a word or the start of one). */
  words: string[]
  notWords: string[]
  /** Phrases each subject-or-summary must contain, words in this order. */
  phrases: string[]
  notPhrases: string[]
  /** `label:bug`: label names (any case), any of; `-label:bug`: none of. */
  labels: { any: string[]; not: string[] }
  /** `no:label` true (no label at all), `-no:label` false (some label), else null. */
  noLabel: boolean | null
  /** `milestone:"v1.0"`: milestone titles (any case), any of; `-milestone:` none of. */
  milestones: { any: string[]; not: string[] }
  /** `no:milestone` true, `-no:milestone` false, else null. */
  noMilestone: boolean | null
  /** `due:<…` and the like: every bound holds (so a ticket without a due day matches none). */
  due: DueBound[]
  /** `no:due` true, `-no:due` false, else null. */
  noDue: boolean | null
  /** `is:overdue` true (due before today and not done or dropped), `-is:overdue` false, else null. */
  overdue: boolean | null
  sort: Sort | null
}

/** A parsed search, or its refusal: 400 `bad_query` naming the field `q`. */
export type ParsedQuery = { ok: true; query: TicketQuery } | Refusal

/** The message texts of refused searches. */
export const queryTooLong = mustBeAtMost('the search', QUERY_MAX)
export const tooManyTerms = `the search may have at most ${TERMS_MAX} terms`
export const unknownKey = (key: string) =>
  `unknown search key '${key}:' (use ${KEYS.map((k) => `${k}:`).join(', ')}); put text with a colon in double quotes`
export const emptyValue = (key: string) =>
  `'${key}:' needs a value, for example ${EXAMPLES[key as (typeof KEYS)[number]]}`
export const unknownSearchState = (value: string) =>
  `unknown state '${value}' (use ${STATES.join(', ')}, closed or all)`
export const unknownIs = (value: string) =>
  `unknown 'is:${value}' (use ${IS_VALUES.map((v) => `is:${v}`).join(', ')})`
export const unknownHas = (value: string) =>
  `unknown 'has:${value}' (use ${HAS_VALUES.map((v) => `has:${v}`).join(', ')})`
export const unknownSort = (value: string) =>
  `unknown 'sort:${value}' (use ${SORTS.map((s) => `sort:${s}`).join(', ')})`
export const sortTwice = "'sort:' may be given once"
export const cannotExclude = (key: string) => `'${key}:' cannot be excluded with '-'`
export const unknownNo = (value: string) =>
  `unknown 'no:${value}' (use ${NO_VALUES.map((v) => `no:${v}`).join(', ')})`
export const badDue = (value: string) =>
  `'due:${value}' needs a day as YYYY-MM-DD, with <, <=, > or >= before it if you like, for example due:<2026-12-31`
export const NUMBER_NOT_EXCLUDED = "a ticket number ('#12') cannot be excluded with '-'"
export const ME_NEEDS_SIGN_IN = reason('bad_query', "'me' in a search needs a signed-in person")

const EXAMPLES: Record<(typeof KEYS)[number], string> = {
  state: 'state:review',
  assignee: 'assignee:alice',
  author: 'author:alice',
  is: 'is:blocked',
  label: 'label:bug',
  milestone: 'milestone:"v1.0"',
  due: 'due:<2026-12-31',
  no: 'no:label',
  has: 'has:file',
  sort: 'sort:updated-desc',
}

/** An empty search: every filter off. */
export function emptyQuery(): TicketQuery {
  return {
    states: null,
    assignee: { any: [], not: [] },
    author: { any: [], not: [] },
    blocked: null,
    has: {},
    numbers: [],
    words: [],
    notWords: [],
    phrases: [],
    notPhrases: [],
    labels: { any: [], not: [] },
    noLabel: null,
    milestones: { any: [], not: [] },
    noMilestone: null,
    due: [],
    noDue: null,
    overdue: null,
    sort: null,
  }
}

interface Term {
  negated: boolean
  /** Lower-case key, or null for text. */
  key: string | null
  value: string
  /** The text was in double quotes (a phrase). */
  quoted: boolean
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c)
const KEY = /^([A-Za-z]+):/

/** Splits a search into terms; a missing closing quote ends the phrase at the end of the text. */
function terms(text: string): Term[] {
  const out: Term[] = []
  let i = 0
  const quoted = () => {
    const end = text.indexOf('"', i + 1)
    const value = text.slice(i + 1, end === -1 ? text.length : end)
    i = end === -1 ? text.length : end + 1
    return value
  }
  const bare = () => {
    const start = i
    while (i < text.length && !isSpace(text[i])) i++
    return text.slice(start, i)
  }
  while (i < text.length) {
    if (isSpace(text[i])) {
      i++
      continue
    }
    let negated = false
    if (text[i] === '-' && i + 1 < text.length && !isSpace(text[i + 1])) {
      negated = true
      i++
    }
    if (text[i] === '"') {
      out.push({ negated, key: null, value: quoted(), quoted: true })
      continue
    }
    const key = KEY.exec(text.slice(i))
    // `https://…` and other addresses are text, not an unknown key.
    if (key && !text.startsWith('//', i + key[0].length)) {
      i += key[0].length
      const value = text[i] === '"' ? quoted() : bare()
      out.push({ negated, key: key[1]!.toLowerCase(), value, quoted: false })
      continue
    }
    out.push({ negated, key: null, value: bare(), quoted: false })
  }
  return out
}

/** A person named in a filter; `@alice` and `@me` as GitHub writes them. */
function person(text: string): Person {
  const value = text.startsWith('@') && text.length > 1 ? text.slice(1) : text
  const lower = value.toLowerCase()
  if (lower === 'none') return { kind: 'none' }
  if (lower === 'me') return { kind: 'me' }
  return { kind: 'name', name: value }
}

/** Parses a search, or refuses it with a message for the person who typed it. */
export function parseQuery(text: string): ParsedQuery {
  if (text.length > QUERY_MAX) return refuse(400, reason('bad_query', queryTooLong), 'q')
  const list = terms(text)
  if (list.length > TERMS_MAX) return refuse(400, reason('bad_query', tooManyTerms), 'q')
  const query = emptyQuery()
  let states: Set<State> | null = null
  const notStates = new Set<State>()
  for (const term of list) {
    const { key, negated } = term
    const value = term.value.trim()
    if (key === null) {
      const number = /^#(\d{1,9})$/.exec(value)
      if (number && !term.quoted) {
        if (negated) return refuse(400, reason('bad_query', NUMBER_NOT_EXCLUDED), 'q')
        query.numbers.push(Number(number[1]))
      } else if (term.quoted || /\s/.test(value)) {
        if (value !== '') (negated ? query.notPhrases : query.phrases).push(value)
      } else if (value !== '') {
        ;(negated ? query.notWords : query.words).push(value)
      }
      continue
    }
    if (!(KEYS as readonly string[]).includes(key))
      return refuse(400, reason('bad_query', unknownKey(key)), 'q')
    if (value === '') return refuse(400, reason('bad_query', emptyValue(key)), 'q')
    switch (key) {
      case 'state':
        for (const part of value.toLowerCase().split(',')) {
          const name = part.trim()
          if (name === '') continue
          const named: readonly State[] =
            name === 'all'
              ? STATES
              : name === 'closed'
                ? CLOSED_STATES
                : isState(name)
                  ? [name]
                  : []
          if (named.length === 0)
            return refuse(400, reason('bad_query', unknownSearchState(name)), 'q')
          for (const s of named) (negated ? notStates : (states ??= new Set())).add(s)
        }
        break
      case 'assignee':
      case 'author':
        ;(negated ? query[key].not : query[key].any).push(person(value))
        break
      case 'is': {
        const what = value.toLowerCase()
        if (what === 'open' || what === 'closed') {
          for (const s of what === 'open' ? OPEN_STATES : CLOSED_STATES)
            (negated ? notStates : (states ??= new Set())).add(s)
        } else if (what === 'blocked' || what === 'unblocked')
          query.blocked = (what === 'blocked') !== negated
        else if (what === 'assigned' || what === 'unassigned') {
          // `is:unassigned` is `assignee:none`; `is:assigned` is `-assignee:none`.
          const nobody = (what === 'unassigned') !== negated
          ;(nobody ? query.assignee.any : query.assignee.not).push({ kind: 'none' })
        } else if (what === 'overdue') query.overdue = !negated
        else return refuse(400, reason('bad_query', unknownIs(value)), 'q')
        break
      }
      case 'label':
        ;(negated ? query.labels.not : query.labels.any).push(value)
        break
      case 'milestone':
        ;(negated ? query.milestones.not : query.milestones.any).push(value)
        break
      case 'no': {
        const what = value.toLowerCase()
        if (what === 'label') query.noLabel = !negated
        else if (what === 'milestone') query.noMilestone = !negated
        else if (what === 'due') query.noDue = !negated
        else return refuse(400, reason('bad_query', unknownNo(value)), 'q')
        break
      }
      case 'due': {
        if (negated) return refuse(400, reason('bad_query', cannotExclude('due')), 'q')
        const bound = dueBound(value)
        if (bound === null) return refuse(400, reason('bad_query', badDue(value)), 'q')
        query.due.push(bound)
        break
      }
      case 'has': {
        const what = value.toLowerCase()
        if (what === 'file' || what === 'files') query.has.file = !negated
        else if (what === 'image' || what === 'images') query.has.image = !negated
        else return refuse(400, reason('bad_query', unknownHas(value)), 'q')
        break
      }
      case 'sort': {
        if (negated) return refuse(400, reason('bad_query', cannotExclude('sort')), 'q')
        if (query.sort !== null) return refuse(400, reason('bad_query', sortTwice), 'q')
        const lower = value.toLowerCase()
        const sort = SORT_ALIASES[lower] ?? (SORTS as readonly string[]).find((s) => s === lower)
        if (sort === undefined) return refuse(400, reason('bad_query', unknownSort(value)), 'q')
        query.sort = sort as Sort
        break
      }
    }
  }
  if (states !== null || notStates.size > 0) {
    const base: readonly State[] = states === null ? STATES : STATES.filter((s) => states.has(s))
    query.states = base.filter((s) => !notStates.has(s))
  }
  return { ok: true, query }
}

/** `<2026-12-31` and the like as a {@link DueBound}; null when it is not one of a real day. */
function dueBound(value: string): DueBound | null {
  const match = /^(<=|>=|<|>|=)?(\d{4}-\d{2}-\d{2})$/.exec(value)
  if (match === null || !isDay(match[2]!)) return null
  return { op: (match[1] ?? '=') as DueBound['op'], day: match[2]! }
}

/** True for `YYYY-MM-DD` naming a day of the calendar (no 2026-02-30), years 1 to 9999. */
export function isDay(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  const date = new Date(Date.UTC(2000, month - 1, day))
  date.setUTCFullYear(year)
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** The calendar day (UTC) of a time in milliseconds, `YYYY-MM-DD`: what "today" is for `is:overdue`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/**
 * What the search accepts, for the help beside every search box: each term with what it finds.
 * The refusals above name the same keys and values.
 */
export const SEARCH_HELP: readonly (readonly [string, string])[] = [
  ['login loop', 'words in the subject or summary (as the start of a word, any case)'],
  ['"login loop"', 'these words in this order'],
  ['#12', 'ticket number 12'],
  ['is:open, is:closed', 'open, doing or review / done or dropped'],
  ['state:review, state:open,doing, state:closed, state:all', 'in these states'],
  ['assignee:alice, assignee:@me, assignee:none', 'assigned to this person, to you, to nobody'],
  ['author:bob, author:@me', 'written by this person, by you'],
  ['is:blocked, is:unblocked, is:assigned, is:unassigned', 'blocked or not, assigned or not'],
  ['label:bug, label:"needs review", no:label', 'with this label, with no label'],
  ['milestone:"v1.0", no:milestone', 'in this milestone, in none'],
  ['due:<2026-12-31, due:>=2026-12-01, no:due', 'due before, on or after a day; no due date'],
  ['is:overdue', 'due before today and not done or dropped'],
  ['has:file, has:image', 'its text or comments link an attached file, an image'],
  [
    'sort:updated, sort:oldest, sort:due',
    'recently changed first, oldest first, soonest due first (newest first by default)',
  ],
  ['-state:done, -assignee:bob, -safari', 'a - before a term leaves out what it finds'],
]

/** True when the search needs to know who is signed in (`assignee:me`, `author:me`). */
export function needsMe(query: TicketQuery): boolean {
  return namesMe(query.assignee) || namesMe(query.author)
}

const isMe = (p: PersonFilter['any'][number]) => p.kind === 'me'
const namesMe = (f: PersonFilter) => f.any.some(isMe) || f.not.some(isMe)

/** The search with its `sort:` term replaced (or removed, for null): for the sort links of a page. */
export function withSort(text: string, sort: Sort | null): string {
  const kept = terms(text).filter((t) => t.key !== 'sort')
  const parts = kept.map(termText)
  if (sort !== null) parts.push(`sort:${sort}`)
  return parts.join(' ')
}

/** The search with its `state:` terms replaced by one (or removed): for the state tabs. */
export function withState(text: string, state: string | null): string {
  const kept = terms(text).filter((t) => t.key !== 'state')
  const parts = kept.map(termText)
  if (state !== null) parts.unshift(`state:${state}`)
  return parts.join(' ')
}

function termText(t: Term): string {
  const needsQuotes = t.quoted || /\s/.test(t.value)
  const value = needsQuotes ? `"${t.value}"` : t.value
  return `${t.negated ? '-' : ''}${t.key === null ? '' : `${t.key}:`}${value}`
}
