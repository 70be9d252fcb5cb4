-- How many tickets wait for each person (assigned to them, open, doing or review) kept once a
-- statement, as `ticket_counts` (0024) and `milestone_counts` (0038) are, instead of counted on
-- every page (docs/performance.md, "Budgets").
--
-- Every signed-in page shows the count beside **Inbox**, and the inbox shows it per list. It was
-- counted from `tickets_assignee`, an index-only read only while the visibility map says the
-- tickets' pages are unchanged: with writers it is not, and each count read the person's tickets
-- from the heap (514 to 848 of them, 1.5 to 1.8 ms of PostgreSQL's time on every page at 100,000
-- tickets). Now each statement that writes tickets adds at most one row a person and state it
-- changed, `(assignee, state, count)` as changes, and a reader sums a person's few rows. The
-- invariants of 0011 and 0024 hold: a write inserts rows and locks none that another write waits
-- for (no lost update, no deadlock), and the rows of a person add up to their waiting tickets per
-- state once the writing transaction commits. Every 32nd row (by `id`) folds its person's rows,
-- one a state, by an advisory lock only tried.
--
-- No foreign key to `users`: its check would lock the person's row for every change of their
-- tickets. A ticket's assignee is a user as long as the ticket names them (0003).
create table inbox_counts (
  id bigint generated always as identity,
  assignee_id text not null,
  state text not null check (state in ('open', 'doing', 'review')),
  count integer not null
);
create index inbox_counts_assignee on inbox_counts (assignee_id);

insert into inbox_counts (assignee_id, state, count)
  select assignee_id, state, count(*)::int from tickets
  where assignee_id is not null and state in ('open', 'doing', 'review')
  group by assignee_id, state;

-- Adds a statement's changes, one row a person and state, and folds the people whose turn it is.
create function inbox_counts_add(changes jsonb) returns void
language plpgsql
set search_path from current
as $$
declare
  folding text;
begin
  if changes is null then
    return;
  end if;
  for folding in
    with added as (
      insert into inbox_counts (assignee_id, state, count)
        select c.assignee_id, c.state, c.count
        from jsonb_to_recordset(changes) as c(assignee_id text, state text, count integer)
        where c.count <> 0
        order by c.assignee_id, c.state
      returning assignee_id, id
    )
    select distinct assignee_id from added where id % 32 = 0
  loop
    -- The first key only has to be the same for every process (0024 folds with 4711044).
    if pg_try_advisory_xact_lock(4711048, hashtext(folding)) then
      with gone as (delete from inbox_counts where assignee_id = folding returning state, count)
      insert into inbox_counts (assignee_id, state, count)
        select folding, state, sum(count) from gone group by state having sum(count) <> 0;
    end if;
  end loop;
end
$$;

-- Inserted tickets count in, deleted ones out.
create function inbox_counts_written() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform inbox_counts_add((
    select jsonb_agg(c) from (
      select assignee_id, state, (case when tg_op = 'INSERT' then 1 else -1 end) * count(*)::int as count
      from written
      where assignee_id is not null and state in ('open', 'doing', 'review')
      group by assignee_id, state) c));
  return null;
end
$$;

-- An update that changes no ticket's assignee or state (a comment, an edit) adds nothing.
create function inbox_counts_updated() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform inbox_counts_add((
    select jsonb_agg(c) from (
      select assignee_id, state, sum(d)::int as count from (
        select n.assignee_id, n.state, 1 as d from before_rows o join after_rows n on n.id = o.id
          where n.assignee_id is not null and n.state in ('open', 'doing', 'review')
            and (o.assignee_id, o.state) is distinct from (n.assignee_id, n.state)
        union all
        select o.assignee_id, o.state, -1 from before_rows o join after_rows n on n.id = o.id
          where o.assignee_id is not null and o.state in ('open', 'doing', 'review')
            and (o.assignee_id, o.state) is distinct from (n.assignee_id, n.state)
      ) moved
      group by assignee_id, state
    ) c));
  return null;
end
$$;

create trigger inbox_counts_inserted after insert on tickets
  referencing new table as written for each statement execute function inbox_counts_written();
create trigger inbox_counts_deleted after delete on tickets
  referencing old table as written for each statement execute function inbox_counts_written();
create trigger inbox_counts_updated after update on tickets
  referencing old table as before_rows new table as after_rows for each statement execute function inbox_counts_updated();
