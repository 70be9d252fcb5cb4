/**
 * Bulk changes (docs/tickets-api.md, "Bulk changes"): the tickets a search finds, locked in one
 * statement; one field set on many tickets with a history event each, in one statement; and the
 * record (`bulk_changes`, sql/0031_views_and_bulk.sql) that lets the whole change be undone.
 * Every statement here writes or reads all of a change's tickets at once: no statement a ticket.
 */
import type { Query } from '../../db/client.ts'
import { recordId } from '../../base/random.ts'
import type { TicketEvent } from '../rules/ticket-event.ts'
import { eventOf, type EventAuthor } from './history.ts'
import type { TicketQuery } from '../rules/query.ts'
import { ticketOf, viewOf, type Fragment, type Ticket, type TicketRow } from './ticket-row.ts'
import { searchWhere, type TicketSearch } from './tickets.ts'

/** The columns of `tickets` a bulk change sets. */
export type BulkField = 'state' | 'assignee' | 'milestone'

/**
 * One ticket of a change and the value it is to have (a state, a user id or null); with
 * `expect`, only if its value is still `expect.value` (an Undo leaves alone what was changed
 * again since).
 */
export interface BulkItem {
  id: string
  target: string | null
  expect?: { value: string | null }
}

/** A ticket as a change left it, with the history event that says so and its value before. */
export interface BulkChanged {
  ticket: Ticket
  event: TicketEvent
  before: string | null
}

/** A bulk change as kept for its Undo. */
export interface BulkRecord {
  id: string
  projectId: string
  userId: string
  /** A column ({@link BulkField}), or `label:<id>` for a label added or taken off. */
  field: string
  /** Each changed ticket with its value before and after. */
  items: { id: string; from: string | null; to: string | null }[]
  created: number
  undone: boolean
}

/** A bulk change can be undone for this long. */
export const UNDO_FOR_MS = 24 * 60 * 60 * 1000

/**
 * The ids of the tickets a search finds, locked for a change in the order
 * of their ids (so two bulk changes of the same tickets wait for each other rather than
 * deadlock), at most `max` + 1 of them: one more than `max` tells the caller there are too many.
 */
async function lockMatching(
  q: Query,
  query: TicketQuery,
  search: TicketSearch,
  numbers: readonly number[] | null,
  max: number,
): Promise<string[]> {
  const found = searchWhere(q, query, search)
  const where = numbers === null ? found : q`${found} and t.number in ${q(numbers as number[])}`
  const rows = await q<{ id: string }[]>`
    select t.id from tickets t where ${where}
    order by t.id limit ${max + 1}
    for no key update of t`
  return rows.map((r) => r.id)
}

/**
 * What each field's statement reads of a ticket (`cur`, its value as text, and the names its
 * event shows) and of the target, what it sets, and what its history event holds.
 */
function fieldSql(q: Query, field: BulkField) {
  switch (field) {
    case 'state':
      return {
        kind: 'state' as const,
        columns: q`k.state as cur, null::text as cur_name, null::text as target_name`,
        joins: q``,
        set: q`state = o.target`,
        data: q`jsonb_build_object('from', o.cur, 'to', o.target)`,
      }
    case 'assignee':
      return {
        kind: 'assign' as const,
        columns: q`k.assignee_id as cur, ka.name as cur_name, ta.name as target_name`,
        joins: q`left join users ka on ka.id = k.assignee_id left join users ta on ta.id = i.target`,
        set: q`assignee_id = o.target`,
        data: q`jsonb_build_object(
          'from', case when o.cur is null then null else jsonb_build_object('id', o.cur, 'name', o.cur_name) end,
          'to', case when o.target is null then null else jsonb_build_object('id', o.target, 'name', o.target_name) end)`,
      }
    case 'milestone':
      return {
        kind: 'milestone' as const,
        columns: q`k.milestone_id::text as cur, km.title as cur_name, tm.title as target_name`,
        joins: q`left join milestones km on km.id = k.milestone_id left join milestones tm on tm.id::text = i.target`,
        set: q`milestone_id = o.target::bigint`,
        data: q`jsonb_build_object('from', o.cur_name, 'to', o.target_name)`,
      }
  }
}

/**
 * Sets `field` of each ticket of `items` to its target, where it differs (and where it has the
 * value an item expects), and adds a history event to each ticket changed, in one statement.
 * Answers each ticket as changed, its event and its value before, in the order of their ids.
 */
async function changeEach(
  q: Query,
  field: BulkField,
  items: readonly BulkItem[],
  author: EventAuthor,
  now: number,
): Promise<BulkChanged[]> {
  if (items.length === 0) return []
  const f = fieldSql(q, field)
  const rowsIn = items.map((i) => ({
    id: i.id,
    target: i.target,
    checked: i.expect !== undefined,
    expected: i.expect?.value ?? null,
  }))
  return readChanged(
    q,
    q`
    with i as (
      select x.id::uuid as id, x.target, x.checked, x.expected
      from jsonb_to_recordset(${q.json(rowsIn)}::jsonb) as x(id text, target text, checked boolean, expected text)
    ), o as (
      select k.id, ${f.columns}, i.target, i.checked, i.expected
      from i join tickets k on k.id = i.id ${f.joins}
    ), t as (
      update tickets t set ${f.set}, updated = ${now}
      from o
      where t.id = o.id and o.cur is distinct from o.target
        and (not o.checked or o.cur is not distinct from o.expected)
      returning t.*, o.cur as before, ${f.data} as data
    )`,
    f.kind,
    author,
    now,
  )
}

/**
 * Adds the label `label` to the tickets `ids` that do not have it (`add`), or takes it off those
 * that have it, in one statement; then marks them changed with a `label` event each, in another.
 */
async function labelEach(
  q: Query,
  label: { id: string; name: string },
  add: boolean,
  ids: readonly string[],
  author: EventAuthor,
  now: number,
): Promise<BulkChanged[]> {
  if (ids.length === 0) return []
  const list = q`(select x::uuid from jsonb_array_elements_text(${q.json(ids)}::jsonb) as x)`
  const written = add
    ? await q<{ ticket_id: string }[]>`
        insert into ticket_labels (ticket_id, label_id)
        select x, ${label.id} from ${list} as l(x) order by x
        on conflict do nothing returning ticket_id`
    : await q<{ ticket_id: string }[]>`
        delete from ticket_labels where label_id = ${label.id} and ticket_id in ${list}
        returning ticket_id`
  if (written.length === 0) return []
  const changed = q.json(written.map((w) => w.ticket_id))
  const data = { action: add ? 'added' : 'removed', label: label.name }
  return readChanged(
    q,
    q`
    with t as (
      update tickets t set updated = ${now}
      where t.id in (select x::uuid from jsonb_array_elements_text(${changed}::jsonb) as x)
      returning t.*, ${add ? 'off' : 'on'}::text as before, ${q.json(data)}::jsonb as data
    )`,
    'label',
    author,
    now,
  )
}

/**
 * Runs `changed` (a `with` clause whose `t` is the changed tickets' rows, each with `before` and
 * its event's `data`), adds a `kind` event to each, and reads them back as changed.
 */
async function readChanged(
  q: Query,
  changed: Fragment,
  kind: TicketEvent['kind'],
  author: EventAuthor,
  now: number,
): Promise<BulkChanged[]> {
  const view = viewOf(q)
  const rows = await q<
    (TicketRow & {
      before: string | null
      event_id: number
      event_kind: TicketEvent['kind']
      event_user_id: string | null
      event_by: string
      event_app: string | null
      event_data: string | Record<string, unknown>
      event_created: number
    })[]
  >`
    ${changed}, e as (
      insert into ticket_events (ticket_id, kind, user_id, by, app, data, created)
      select t.id, ${kind}, ${author.id}, ${author.name}, ${author.app ?? null}, t.data, ${now}
      from t order by t.id
      returning id, ticket_id, kind, user_id, by, app, data, created
    )
    select ${view.columns}, t.before, e.id as event_id, e.kind as event_kind, e.user_id as event_user_id,
      e.by as event_by, e.app as event_app, e.data as event_data, e.created as event_created
    from t ${view.joins} join e on e.ticket_id = t.id
    order by t.id`
  return rows.map((r) => ({
    ticket: ticketOf(r),
    before: r.before ?? null,
    event: eventOf({
      id: r.event_id,
      kind: r.event_kind,
      user_id: r.event_user_id,
      by: r.event_by,
      app: r.event_app,
      data: r.event_data,
      created: r.event_created,
    }),
  }))
}

/** Keeps a change for its Undo (and forgets the changes too old to undo); answers its id. */
async function record(q: Query, change: Omit<BulkRecord, 'id' | 'undone'>): Promise<string> {
  const id = recordId()
  await q`delete from bulk_changes where created < ${change.created - UNDO_FOR_MS}`
  await q`
    insert into bulk_changes (id, project_id, user_id, field, items, created)
    values (${id}, ${change.projectId}, ${change.userId}, ${change.field}, ${q.json(change.items)}, ${change.created})`
  return id
}

/**
 * The change `id` of `projectId` made by `userId`, not undone and young enough to undo, locked
 * until the transaction ends (so it is undone once); null otherwise.
 */
async function undoable(
  q: Query,
  id: string,
  projectId: string,
  userId: string,
  now: number,
): Promise<BulkRecord | null> {
  const [r] = await q<
    {
      field: string
      items: string | BulkRecord['items']
      created: number
    }[]
  >`
    select field, items, created from bulk_changes
    where id = ${id} and project_id = ${projectId} and user_id = ${userId} and not undone
      and created >= ${now - UNDO_FOR_MS}
    for update`
  if (!r) return null
  const items = typeof r.items === 'string' ? (JSON.parse(r.items) as BulkRecord['items']) : r.items
  return {
    id,
    projectId,
    userId,
    field: r.field,
    items,
    created: r.created,
    undone: false,
  }
}

/** The bulk changes on `q`. */
export function bulkTable(q: Query) {
  return {
    /** The tickets a search finds (of `numbers` only, when given), locked: at most `max` + 1. */
    lockMatching: (
      query: TicketQuery,
      search: TicketSearch,
      numbers: readonly number[] | null,
      max: number,
    ) => lockMatching(q, query, search, numbers, max),
    changeEach: (field: BulkField, items: readonly BulkItem[], author: EventAuthor, now: number) =>
      changeEach(q, field, items, author, now),
    labelEach: (
      label: { id: string; name: string },
      add: boolean,
      ids: readonly string[],
      author: EventAuthor,
      now: number,
    ) => labelEach(q, label, add, ids, author, now),
    record: (change: Omit<BulkRecord, 'id' | 'undone'>) => record(q, change),
    undoable: (id: string, projectId: string, userId: string, now: number) =>
      undoable(q, id, projectId, userId, now),
    /** A label by id, with its name now (an Undo names it as it is called now). */
    label: async (id: string) => {
      const [r] = await q<
        { id: string; name: string }[]
      >`select id::text as id, name from labels where id = ${id}`
      return r ?? null
    },
    markUndone: async (id: string) => {
      await q`update bulk_changes set undone = true where id = ${id}`
    },
  }
}
