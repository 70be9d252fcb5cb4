/**
 * The board's read (docs/tickets-app.md, "Board"): the tickets a search finds in a project, a
 * column a state, at most a column's worth each, and how many each column has, in one statement.
 * The matches are read once (up to a cap) and sorted into their columns, so a board of 2,000
 * tickets reads 2,000 rows by whatever index finds them; past the cap each column is read
 * through the project's list, newest first.
 */
import type { Query } from '../../db/client.ts'
import { plannedEachTime } from '../../db/client.ts'
import type { TicketQuery } from '../rules/query.ts'
import type { State } from '../rules/states.ts'
import type { ListRow } from './page-cache.ts'
import { searchCondition, searchOrder, textSearched } from './search.ts'
import { limitClause } from './tickets.ts'
import type { Fragment } from './ticket-row.ts'
import { organiseColumns } from './page-reads.ts'

/** A column of the board: its state, its first cards, and how many tickets it has. */
export interface BoardColumn {
  state: State
  rows: ListRow[]
  /** Tickets in the column, up to the count's cap; with `more`, at least this many. */
  total: number
  more: boolean
}

/** The board counts the tickets of all columns up to this many together. */
export const BOARD_COUNT_CAP = 10_000

interface CardRow {
  id: string
  number: number
  subject: string
  state: State
  assignee_id: string | null
  assignee_name: string | null
  updated: number
  blocked: boolean
  labels?: { name: string; color: string }[]
  milestone?: string | null
  due?: string | null
}

type Json<T> = string | T
const parsed = <T>(value: Json<T>): T =>
  typeof value === 'string' ? (JSON.parse(value) as T) : value

/**
 * The board of `query` in the project `projectId` (its `slug` for the cards' references): each
 * state (the columns are every state; the search's `states` decide which hold tickets) with up to `perColumn` tickets in the search's order, and the tickets a column has.
 */
async function readBoard(
  q: Query,
  projectId: string,
  slug: string,
  query: TicketQuery,
  states: readonly State[],
  me: string | null,
  perColumn: number,
): Promise<BoardColumn[]> {
  const where = searchCondition(q, query, { states, me })
  const order = searchOrder(q, query.sort)
  const cards = (from: Fragment, joined: Fragment) => q`(
      select coalesce(json_agg(json_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'state', t.state,
          'assignee_id', t.assignee_id, 'assignee_name', t.assignee_name, 'updated', t.updated, 'blocked', t.blocked,
          'labels', t.labels, 'milestone', t.milestone, 'due', t.due) order by ${order}), '[]')
      from (
        select t.id, t.number, t.subject, t.state, t.assignee_id, a.name as assignee_name, t.created, t.updated,
          t.open_blockers > 0 as blocked, ${organiseColumns(q)}
        from ${from} left join users a on a.id = t.assignee_id
        where t.state = s.state ${joined}
        order by ${order} ${limitClause(q, perColumn)}
      ) as t)`
  // The matches are read once, up to the cap: a search that finds fewer (2,000 tickets of an
  // assignee among 100,000) is then sorted into its columns from them, whatever index found
  // them. One that finds more reads each column through the project's list, newest first,
  // where its matches are dense enough to fill a column soon.
  const statement = q<{ state: State; cards: Json<CardRow[]>; n: number | null }[]>`
    with m as materialized (
      select t.id, t.number, t.subject, t.state, t.assignee_id, t.created, t.updated, t.open_blockers,
        t.milestone_id, t.due
      from tickets t where t.project_id = ${projectId} and ${where} ${limitClause(q, BOARD_COUNT_CAP + 1)}
    ), counted as (
      select m.state, count(*)::int as n from m group by m.state
    ), everything as (
      select count(*)::int as n from m
    )
    select s.state, c.n,
      case when (select n from everything) <= ${BOARD_COUNT_CAP}
        then ${cards(q`m t`, q``)}
        else ${cards(q`tickets t`, q`and t.project_id = ${projectId} and ${where}`)}
      end as cards
    from (values ('open', 1), ('doing', 2), ('review', 3), ('done', 4), ('dropped', 5)) as s(state, i)
    left join counted c on c.state = s.state
    order by s.i`
  const rows = await (textSearched(query) ? plannedEachTime(statement) : statement)
  const all = rows.reduce((sum, r) => sum + (r.n ?? 0), 0)
  const capped = all > BOARD_COUNT_CAP
  return rows.map((r) => {
    const cards = parsed(r.cards).map((c): ListRow => ({
      ticket: {
        id: c.id,
        ref: `${slug}#${c.number}`,
        slug,
        number: c.number,
        subject: c.subject,
        state: c.state,
        assignee: c.assignee_id !== null ? { id: c.assignee_id, name: c.assignee_name! } : null,
        updated: c.updated,
        milestone: c.milestone ?? null,
        due: c.due ?? null,
      },
      blocked: c.blocked,
      labels: c.labels ?? [],
    }))
    return { state: r.state, rows: cards, total: r.n ?? 0, more: capped }
  })
}

/** The board's reads on `q`. */
export function boardTable(q: Query) {
  return {
    read: (
      projectId: string,
      slug: string,
      query: TicketQuery,
      states: readonly State[],
      me: string | null,
      perColumn: number,
    ) => readBoard(q, projectId, slug, query, states, me, perColumn),
  }
}
