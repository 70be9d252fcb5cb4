-- Each milestone's progress (its tickets done or dropped, and all its tickets) kept once a
-- statement, as `ticket_counts` is (0024), instead of counted on every read of the milestone list
-- (docs/scaling.md, "Milestones' progress").
--
-- Until now the milestone list counted each milestone's tickets from `tickets_milestone_state`:
-- an index-only read of every ticket that has a milestone (30,000 entries at 100,000 tickets, the
-- list's median 28 ms with 8 clients). Now each statement that writes tickets adds at most one
-- row a milestone it changed, `(milestone, total, closed)` as changes, and a reader sums a
-- milestone's few rows. The invariants of 0011 and 0024 hold: a write inserts rows and locks none
-- that another write waits for (no lost update, no deadlock), and the rows of a milestone add up
-- to its tickets once the writing transaction commits. Every 32nd row (by `id`) folds its
-- milestone's rows into one, by an advisory lock only tried.
--
-- The rows have no foreign key to `milestones`: its check would lock the milestone's row, and a
-- writer holding a ticket would then wait for a milestone's delete that waits for that ticket
-- (the delete leaves its tickets without a milestone). A milestone's rows are deleted with it,
-- and a fold drops the rows of a milestone no longer there (a writer racing its delete).
create table milestone_counts (
  id bigint generated always as identity,
  milestone_id bigint not null,
  total integer not null,
  closed integer not null
);
create index milestone_counts_milestone on milestone_counts (milestone_id);

insert into milestone_counts (milestone_id, total, closed)
  select milestone_id, count(*), count(*) filter (where state in ('done', 'dropped'))
  from tickets where milestone_id is not null group by milestone_id;

-- Adds a statement's changes, one row a milestone, and folds the milestones whose turn it is.
-- Changes of a milestone being deleted are left out: its rows go with it.
create function milestone_counts_add(changes jsonb) returns void
language plpgsql
set search_path from current
as $$
declare
  folding bigint;
begin
  if changes is null then
    return;
  end if;
  for folding in
    with added as (
      insert into milestone_counts (milestone_id, total, closed)
        select c.milestone_id, c.total, c.closed
        from jsonb_to_recordset(changes) as c(milestone_id bigint, total integer, closed integer)
        where (c.total <> 0 or c.closed <> 0) and exists (select from milestones m where m.id = c.milestone_id)
        order by c.milestone_id
      returning milestone_id, id
    )
    select distinct milestone_id from added where id % 32 = 0
  loop
    -- The first key only has to be the same for every process (0024 folds with 4711044).
    if pg_try_advisory_xact_lock(4711047, hashtext(folding::text)) then
      with gone as (delete from milestone_counts where milestone_id = folding returning total, closed)
      insert into milestone_counts (milestone_id, total, closed)
        select folding, sum(total), sum(closed) from gone
        having (sum(total) <> 0 or sum(closed) <> 0)
          and exists (select from milestones m where m.id = folding);
    end if;
  end loop;
end
$$;

create function milestone_counts_inserted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform milestone_counts_add((
    select jsonb_agg(c) from (
      select milestone_id, count(*)::int as total,
        (count(*) filter (where state in ('done', 'dropped')))::int as closed
      from written where milestone_id is not null group by milestone_id) c));
  return null;
end
$$;

create function milestone_counts_deleted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform milestone_counts_add((
    select jsonb_agg(c) from (
      select milestone_id, -count(*)::int as total,
        -(count(*) filter (where state in ('done', 'dropped')))::int as closed
      from written where milestone_id is not null group by milestone_id) c));
  return null;
end
$$;

-- An update that moves no ticket between milestones or across done-or-dropped adds nothing.
create function milestone_counts_updated() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform milestone_counts_add((
    select jsonb_agg(c) from (
      select milestone_id, sum(total)::int as total, sum(closed)::int as closed from (
        select n.milestone_id, 1 as total, (n.state in ('done', 'dropped'))::int as closed
          from before_rows o join after_rows n on n.id = o.id
          where n.milestone_id is not null
            and (o.milestone_id, o.state in ('done', 'dropped')) is distinct from (n.milestone_id, n.state in ('done', 'dropped'))
        union all
        select o.milestone_id, -1, -(o.state in ('done', 'dropped'))::int
          from before_rows o join after_rows n on n.id = o.id
          where o.milestone_id is not null
            and (o.milestone_id, o.state in ('done', 'dropped')) is distinct from (n.milestone_id, n.state in ('done', 'dropped'))
      ) moved
      group by milestone_id
    ) c));
  return null;
end
$$;

create trigger milestone_counts_inserted after insert on tickets
  referencing new table as written for each statement execute function milestone_counts_inserted();
create trigger milestone_counts_deleted after delete on tickets
  referencing old table as written for each statement execute function milestone_counts_deleted();
create trigger milestone_counts_updated after update on tickets
  referencing old table as before_rows new table as after_rows for each statement execute function milestone_counts_updated();

create function milestone_counts_gone() returns trigger
language plpgsql
set search_path from current
as $$
begin
  delete from milestone_counts where milestone_id in (select id from written);
  return null;
end
$$;

create trigger milestone_counts_gone after delete on milestones
  referencing old table as written for each statement execute function milestone_counts_gone();

-- The milestone list was this index's one reader.
drop index tickets_milestone_state;
