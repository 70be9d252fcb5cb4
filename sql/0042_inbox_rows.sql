-- The inbox's order kept in a narrow table of its own, per statement (docs/scaling.md, "A
-- million tickets").
--
-- The inbox's lists (Waiting for you: open and doing; In review) show a person's tickets soonest
-- due first, then latest change first. The last change (`updated`) is in no index of `tickets`:
-- indexed there, every comment would stop being a HOT update (0013) and write new entries in all
-- of the table's indexes. So a page read every open ticket of the person from the heap and
-- sorted them (1,428 rows on 1,428 heap pages for a person at a million tickets). Now each
-- assigned ticket in open, doing or review has a row here, in the lists' order by the index
-- `inbox_rows_page`, and a page reads its 51 entries and then those tickets by id.
--
-- The rows are kept by statement triggers on `tickets` with transition tables, as the counts
-- are (0024): a statement writes each of its tickets' rows once, after it has written (and
-- locked) those tickets, so a row is only written by the writer holding its ticket's lock: no
-- lost update, and no lock another writer waits for that the ticket's own lock does not already
-- order. No foreign key: a ticket's delete deletes its row in the same statement's trigger.
create table inbox_rows (
  ticket_id uuid primary key,
  assignee_id text not null,
  -- `pending` (open, doing) or `review`.
  list text not null check (list in ('pending', 'review')),
  -- The due day as days since 1970; 2147483647 without one (store/search.ts, `dueKey`).
  due_key integer not null,
  updated bigint not null,
  number integer not null
);
create index inbox_rows_page on inbox_rows (assignee_id, list, due_key, updated desc, number desc, ticket_id desc);

insert into inbox_rows (ticket_id, assignee_id, list, due_key, updated, number)
  select id, assignee_id, case when state = 'review' then 'review' else 'pending' end,
    coalesce(due - date '1970-01-01', 2147483647), updated, number
  from tickets where assignee_id is not null and state in ('open', 'doing', 'review');

create function inbox_rows_inserted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  insert into inbox_rows (ticket_id, assignee_id, list, due_key, updated, number)
    select id, assignee_id, case when state = 'review' then 'review' else 'pending' end,
      coalesce(due - date '1970-01-01', 2147483647), updated, number
    from written where assignee_id is not null and state in ('open', 'doing', 'review');
  return null;
end
$$;

create function inbox_rows_deleted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  delete from inbox_rows where ticket_id in (
    select id from written where assignee_id is not null and state in ('open', 'doing', 'review'));
  return null;
end
$$;

-- Only the tickets whose assignee, state, due day, last change or number changed.
create function inbox_rows_updated() returns trigger
language plpgsql
set search_path from current
as $$
begin
  delete from inbox_rows where ticket_id in (
    select n.id from before_rows o join after_rows n on n.id = o.id
    where o.assignee_id is not null and o.state in ('open', 'doing', 'review')
      and (n.assignee_id is null or n.state not in ('open', 'doing', 'review')));
  insert into inbox_rows (ticket_id, assignee_id, list, due_key, updated, number)
    select n.id, n.assignee_id, case when n.state = 'review' then 'review' else 'pending' end,
      coalesce(n.due - date '1970-01-01', 2147483647), n.updated, n.number
    from before_rows o join after_rows n on n.id = o.id
    where n.assignee_id is not null and n.state in ('open', 'doing', 'review')
      and (o.assignee_id, o.state, o.due, o.updated, o.number) is distinct from (n.assignee_id, n.state, n.due, n.updated, n.number)
  on conflict (ticket_id) do update set assignee_id = excluded.assignee_id, list = excluded.list,
    due_key = excluded.due_key, updated = excluded.updated, number = excluded.number;
  return null;
end
$$;

create trigger inbox_rows_inserted after insert on tickets
  referencing new table as written for each statement execute function inbox_rows_inserted();
create trigger inbox_rows_deleted after delete on tickets
  referencing old table as written for each statement execute function inbox_rows_deleted();
create trigger inbox_rows_updated after update on tickets
  referencing old table as before_rows new table as after_rows for each statement execute function inbox_rows_updated();
