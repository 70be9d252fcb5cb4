/**
 * The board's read (docs/tickets-app.md, "Board"): the tickets a search finds in a project, a
 * column a state, at most a column's worth each, and how many each column has, in one statement.
 * The matches are read once (up to a cap) and ranked into their columns in one pass, so a board
 * of 2,000 tickets reads 2,000 rows by whatever index finds them; past the cap each column is
 * read through the project's list, newest first. Only the cards shown are joined to what a card
 * shows besides its row (its assignee's name).
 */
import type { Query } from '../../db/client.ts'
import { plannedEachTime } from '../../db/client.ts'
import { dayOf, needsMe, type TicketQuery } from '../rules/query.ts'
import type { State } from '../rules/states.ts'
import { keptAtVersion, type KeptAtVersion } from './kept-at-version.ts'
import type { ListedTicket } from './page-cache.ts'
import { searchCondition, searchOrder, textSearched } from './search.ts'
import { limitClause } from './tickets.ts'

/** A card of the board: what it shows of its ticket (no labels, milestone or due day). */
export interface BoardCard {
  ticket: Omit<ListedTicket, 'milestone' | 'due'>
  blocked: boolean
}

/** A column of the board: its state, its first cards, and how many tickets it has. */
export interface BoardColumn {
  state: State
  rows: BoardCard[]
  /** Tickets in the column, up to the count's cap; with `more`, at least this many. */
  total: number
  more: boolean
}

/** The board counts the tickets of all columns up to this many together. */
export const BOARD_COUNT_CAP = 10_000

/** Boards kept at most, all of one lists' version: about 50 KB each at 250 cards. */
const BOARDS_KEPT = 100

interface CardRow {
  id: string
  number: number
  subject: string
  state: State
  assignee_id: string | null
  assignee_name: string | null
  updated: number
  blocked: boolean
}

type Json<T> = string | T
const parsed = <T>(value: Json<T>): T =>
  typeof value === 'string' ? (JSON.parse(value) as T) : value

/** What a board is asked for. */
export interface BoardRequest {
  projectId: string
  /** The project's slug, for the cards' references. */
  slug: string
  query: TicketQuery
  states: readonly State[]
  me: string | null
  perColumn: number
}

/**
 * The board of `query` in the project `projectId`: each state (the columns are every state; the
 * search's `states` decide which hold tickets) with up to `perColumn` tickets in the search's
 * order, and the tickets a column has. Kept at the lists' version it was read at, and given again
 * to a request whose page read that same `version` (null: not known, always read).
 */
async function board(
  q: Query,
  kept: KeptAtVersion<BoardColumn[]>,
  request: BoardRequest,
  version: number | null,
): Promise<BoardColumn[]> {
  // `is:overdue` finds other tickets tomorrow with no write in between: the day is in the key.
  const today = request.query.overdue !== null ? dayOf(Date.now()) : null
  const key = JSON.stringify([
    request.projectId,
    request.slug,
    request.states,
    needsMe(request.query) ? request.me : null,
    today,
    request.perColumn,
    request.query,
  ])
  const found = version === null ? undefined : kept.get(version, key)
  if (found !== undefined) return found
  const read = await readBoard(q, request, today)
  kept.set(read.version, key, read.columns)
  return read.columns
}

/** The board as {@link board} describes it, and the lists' version it was read at. */
async function readBoard(
  q: Query,
  { projectId, slug, query, states, me, perColumn }: BoardRequest,
  today: string | null,
): Promise<{ columns: BoardColumn[]; version: number }> {
  const where = searchCondition(q, query, { states, me, ...(today === null ? {} : { today }) })
  const order = searchOrder(q, query.sort)
  // What a card shows (number, subject, state, assignee, blocked) and what the orders read.
  const cardColumns = q`t.id, t.number, t.subject, t.state, t.assignee_id, t.created, t.updated, t.open_blockers, t.due`
  // The matches are read once, up to the cap, and ranked in their columns in one pass: a search
  // that finds fewer (2,000 tickets of an assignee among 100,000) is sorted into its columns from
  // them, whatever index found them. One that finds more reads each column's first cards through
  // the project's list, newest first, where its matches are dense enough to fill a column soon.
  // Only the cards shown are then joined to their assignees' names; a card shows no labels,
  // milestone or due day, so none are read.
  const statement = q<
    { state: State; cards: Json<CardRow[]> | null; n: number | null; version: number }[]
  >`
    with m as materialized (
      select ${cardColumns}
      from tickets t where t.project_id = ${projectId} and ${where} ${limitClause(q, BOARD_COUNT_CAP + 1)}
    ), everything as (
      select count(*)::int as n from m
    ), counted as (
      select m.state, count(*)::int as n from m group by m.state
    ), shown as materialized (
      select t.* from (
        select t.*, row_number() over (partition by t.state order by ${order}) as r from m t
        where (select n from everything) <= ${BOARD_COUNT_CAP}
      ) as t where t.r <= ${perColumn}
      union all
      select c.* from (values ('open'), ('doing'), ('review'), ('done'), ('dropped')) as s(state)
      cross join lateral (
        select t.*, row_number() over (order by ${order}) as r from (
          select ${cardColumns} from tickets t
          where t.state = s.state and t.project_id = ${projectId} and ${where}
          order by ${order} ${limitClause(q, perColumn)}
        ) as t
      ) as c
      where (select n from everything) > ${BOARD_COUNT_CAP}
    ), cards as (
      select x.state, json_agg(json_build_object('id', x.id, 'number', x.number, 'subject', x.subject,
          'state', x.state, 'assignee_id', x.assignee_id, 'assignee_name', a.name, 'updated', x.updated,
          'blocked', x.open_blockers > 0) order by x.r) as cards
      from shown x left join users a on a.id = x.assignee_id
      group by x.state
    )
    select s.state, c.n, k.cards, (select max(seq) from lists_writes) as version
    from (values ('open', 1), ('doing', 2), ('review', 3), ('done', 4), ('dropped', 5)) as s(state, i)
    left join counted c on c.state = s.state
    left join cards k on k.state = s.state
    order by s.i`
  const rows = await (textSearched(query) ? plannedEachTime(statement) : statement)
  const all = rows.reduce((sum, r) => sum + (r.n ?? 0), 0)
  const capped = all > BOARD_COUNT_CAP
  const columns = rows.map((r) => {
    const cards = parsed(r.cards ?? []).map((c): BoardCard => ({
      ticket: {
        id: c.id,
        ref: `${slug}#${c.number}`,
        slug,
        number: c.number,
        subject: c.subject,
        state: c.state,
        assignee: c.assignee_id !== null ? { id: c.assignee_id, name: c.assignee_name! } : null,
        updated: c.updated,
      },
      blocked: c.blocked,
    }))
    return { state: r.state, rows: cards, total: r.n ?? 0, more: capped }
  })
  return { columns, version: Number(rows[0]!.version) }
}

/** The board's reads on `q`. */
export function boardTable(q: Query) {
  const kept = keptAtVersion<BoardColumn[]>(BOARDS_KEPT)
  return {
    /** The board `request` asks for; `version`: the lists' version the page was read at, when known. */
    read: (request: BoardRequest, version: number | null = null) =>
      board(q, kept, request, version),
  }
}
