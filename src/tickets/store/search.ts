/**
 * The SQL a parsed search (src/tickets/rules/query.ts) compiles to: a condition on the ticket row `t`
 * of the ticket queries and an order. Every value is a parameter; the text terms become one
 * `tsquery` matched against the `search` column (sql/0007_ticket_search.sql) through its GIN
 * index, so searching 10,000 tickets reads only the matching ones.
 */
import type postgres from 'postgres'
import type { Query } from '../../db/client.ts'
import {
  dayOf,
  type DueBound,
  type Person,
  type PersonFilter,
  type Sort,
  type TicketQuery,
} from '../rules/query.ts'
import type { State } from '../rules/states.ts'

type Fragment = postgres.PendingQuery<postgres.Row[]>

/** What the condition needs besides the search: the states when it names none, and who asks. */
export interface SearchContext {
  /** The states listed when the search has no `state:` term (the list's own filter). */
  states: readonly State[]
  /** The signed-in person's user id, for `me`; null when nobody is signed in. */
  me: string | null
  /** Today, `YYYY-MM-DD` (UTC), for `is:overdue`: `dayOf(clock())` (rules/query.ts); the system clock's day when absent. */
  today?: string
}

/** A word counts only if it has a letter or a digit; `-` or `…` alone would match nothing useful. */
const HAS_WORD = /[\p{L}\p{N}]/u

/**
 * A `tsquery` in PostgreSQL's input syntax: each word quoted (so no character of it is an
 * operator) and matched as a word start (`:*`), excluded words negated with `!`.
 *
 * A word searched for is written `('word' | 'word':*)`, which matches what `'word':*` alone
 * matches, for the planner's sake: it estimates a whole word from the column's statistics of
 * common words, but a word start, when the statistics list fewer than 100 common words, as
 * 2% of the tickets. Alone, a word in every ticket would look rare, and the search would read
 * all of them through the text index instead of walking the project's list and stopping at a
 * page; with the whole word beside it, the planner sees how common it is.
 */
export function wordsQuery(words: readonly string[], notWords: readonly string[]): string {
  const quoted = (w: string) => `'${w.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
  const wanted = (w: string) => `(${quoted(w)} | ${quoted(w)}:*)`
  return [
    ...words.filter((w) => HAS_WORD.test(w)).map(wanted),
    ...notWords.filter((w) => HAS_WORD.test(w)).map((w) => `!${quoted(w)}:*`),
  ].join(' & ')
}

/** The condition on `t` (a `tickets` row) a search stands for. */
export function searchCondition(q: Query, query: TicketQuery, context: SearchContext): Fragment {
  const parts: Fragment[] = []
  const states = query.states ?? context.states
  parts.push(states.length === 0 ? q`false` : q`t.state in ${q(states as State[])}`)
  parts.push(...personParts(q, query.assignee, (p) => assigneeIs(q, p, context.me)))
  parts.push(...personParts(q, query.author, (p) => authorIs(q, p, context.me)))
  // `open_blockers` counts the ticket's blockers that are not done or dropped, kept by triggers
  // (sql/0010_ticket_counts_and_blockers.sql); the blocked ones have an index of their own.
  if (query.blocked !== null)
    parts.push(query.blocked ? q`t.open_blockers > 0` : q`t.open_blockers = 0`)
  // Kept per statement by triggers (sql/0036_ticket_files.sql).
  for (const [what, wanted] of Object.entries(query.has)) {
    const images = what === 'image' ? q`and f.image is not null` : q``
    const linked = q`exists (select 1 from ticket_files tf join files f on f.id = tf.file_id where tf.ticket_id = t.id ${images})`
    parts.push(wanted ? linked : q`not ${linked}`)
  }
  if (query.numbers.length > 0) parts.push(q`t.number in ${q(query.numbers)}`)
  const words = wordsQuery(query.words, query.notWords)
  if (words !== '') parts.push(q`t.search @@ to_tsquery('simple', ${words})`)
  for (const phrase of query.phrases.filter((p) => HAS_WORD.test(p)))
    parts.push(q`t.search @@ phraseto_tsquery('simple', ${phrase})`)
  for (const phrase of query.notPhrases.filter((p) => HAS_WORD.test(p)))
    parts.push(q`not (t.search @@ phraseto_tsquery('simple', ${phrase}))`)
  parts.push(...organiseParts(q, query, context.today ?? dayOf(Date.now())))
  return parts.reduce((all, part) => q`${all} and ${part}`)
}

/** The conditions of labels, milestones and due days. */
function organiseParts(q: Query, query: TicketQuery, today: string): Fragment[] {
  const parts: Fragment[] = []
  // A label or milestone is named by its name or title in any case; one the ticket's project
  // lacks matches nothing.
  const lowered = (names: string[]) => names.map((n) => n.toLowerCase())
  const hasLabel = (names: string[]) =>
    q`exists (select from ticket_labels tl join labels l on l.id = tl.label_id
      where tl.ticket_id = t.id and lower(l.name) in ${q(lowered(names))})`
  if (query.labels.any.length > 0) parts.push(hasLabel(query.labels.any))
  if (query.labels.not.length > 0) parts.push(q`not ${hasLabel(query.labels.not)}`)
  if (query.noLabel !== null) {
    const any = q`exists (select from ticket_labels tl where tl.ticket_id = t.id)`
    parts.push(query.noLabel ? q`not ${any}` : any)
  }
  // An `exists`, which PostgreSQL turns into a join: from the milestone named to its tickets by
  // `tickets_milestone_list`. As `t.milestone_id in (select ...)` with the subquery naming
  // `t.project_id`, it was a filter run on each ticket of the project in turn: counting the
  // matches of a search for **Select all N matching** (up to 1,001) read tens of thousands.
  const inMilestone = (titles: string[]) =>
    q`exists (select from milestones ms where ms.id = t.milestone_id and ms.project_id = t.project_id
      and lower(ms.title) in ${q(lowered(titles))})`
  if (query.milestones.any.length > 0) parts.push(inMilestone(query.milestones.any))
  if (query.milestones.not.length > 0) parts.push(q`not ${inMilestone(query.milestones.not)}`)
  if (query.noMilestone !== null)
    parts.push(query.noMilestone ? q`t.milestone_id is null` : q`t.milestone_id is not null`)
  for (const bound of query.due) parts.push(dueCondition(q, bound))
  if (query.noDue !== null) parts.push(query.noDue ? q`t.due is null` : q`t.due is not null`)
  // The states written as constants, so the partial index `tickets_due_open` serves it.
  if (query.overdue === true)
    parts.push(
      q`t.due is not null and t.due < ${today}::date and t.state in ('open', 'doing', 'review')`,
    )
  if (query.overdue === false)
    parts.push(
      q`not coalesce(t.due < ${today}::date and t.state in ('open', 'doing', 'review'), false)`,
    )
  return parts
}

function dueCondition(q: Query, bound: DueBound): Fragment {
  const day = q`${bound.day}::date`
  switch (bound.op) {
    case '<':
      return q`t.due < ${day}`
    case '<=':
      return q`t.due <= ${day}`
    case '>':
      return q`t.due > ${day}`
    case '>=':
      return q`t.due >= ${day}`
    case '=':
      return q`t.due = ${day}`
  }
}

/**
 * Whether {@link searchCondition} of `query` matches text: then the best plan depends on the
 * words (a rare one through the text index, one in every ticket through the list's order), so
 * the statement is planned for them each time (`plannedEachTime`, src/db/client.ts).
 */
export function textSearched(query: TicketQuery): boolean {
  return (
    wordsQuery(query.words, query.notWords) !== '' ||
    query.phrases.some((p) => HAS_WORD.test(p)) ||
    query.notPhrases.some((p) => HAS_WORD.test(p))
  )
}

/**
 * Positive alternatives joined by `or`, each exclusion as `not`; a null comparison counts as
 * false. The positive ones are left bare, so that `t.assignee_id in (...)` can be found through
 * the assignee index (wrapped in `coalesce`, it was a filter on every ticket of the project).
 */
function personParts(q: Query, filter: PersonFilter, is: (p: Person) => Fragment): Fragment[] {
  const parts: Fragment[] = []
  if (filter.any.length > 0)
    parts.push(q`(${filter.any.map(is).reduce((all, one) => q`${all} or ${one}`)})`)
  for (const p of filter.not) parts.push(q`not coalesce(${is(p)}, false)`)
  return parts
}

/** A user reference: an id, the identity provider's id, or a display name (any case). */
function userIds(q: Query, ref: string): Fragment {
  return q`(select id from users where id = ${ref} or idp_id = ${ref} or lower(name) = lower(${ref}))`
}

function assigneeIs(q: Query, p: Person, me: string | null): Fragment {
  if (p.kind === 'none') return q`t.assignee_id is null`
  if (p.kind === 'me') return me === null ? q`false` : q`t.assignee_id = ${me}`
  return q`t.assignee_id in ${userIds(q, p.name)}`
}

function authorIs(q: Query, p: Person, me: string | null): Fragment {
  if (p.kind === 'none') return q`(t.author_id is null and t.author_name is null)`
  if (p.kind === 'me') return me === null ? q`false` : q`t.author_id = ${me}`
  // An imported ticket's author may be a name only.
  return q`(t.author_id in ${userIds(q, p.name)} or (t.author_id is null and lower(t.author_name) = lower(${p.name})))`
}

/** The order of a list: newest first unless the search says otherwise; the number breaks ties. */
export function searchOrder(q: Query, sort: Sort | null): Fragment {
  switch (sort ?? 'created-desc') {
    case 'created-desc':
      return q`t.created desc, t.number desc`
    case 'created-asc':
      return q`t.created asc, t.number asc`
    case 'updated-desc':
      return q`t.updated desc, t.number desc`
    case 'updated-asc':
      return q`t.updated asc, t.number asc`
    case 'due':
      return q`${dueKey(q)} asc, t.number asc`
  }
}

/**
 * The key `sort:due` orders by: the due day as days since 1970, a ticket without one after every
 * day (soonest first, no due date last). The lists' cursors carry it as their key.
 */
export function dueKey(q: Query): Fragment {
  return q`coalesce(t.due - date '1970-01-01', ${q.unsafe(String(NO_DUE_KEY))})`
}

/** {@link dueKey} of a ticket without a due day. */
export const NO_DUE_KEY = 2147483647

/** {@link dueKey} of a day, `YYYY-MM-DD`, or of none. */
export function dueKeyOf(day: string | null): number {
  return day === null ? NO_DUE_KEY : Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000)
}
