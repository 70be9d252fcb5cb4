-- The rows derived from `tickets` and `blockers` kept once a statement, not once a row
-- (docs/scaling.md, "Writes of many tickets").
--
-- Until now `ticket_counts` (0010, 0011) and `open_blockers` (0010) were kept by row triggers: a
-- statement writing N tickets added N counting rows, and every 32nd of them folded its project's
-- rows. In one transaction each fold walks the index entries of every row that transaction had
-- already folded away (they stay until it commits), so a transaction writing many tickets took
-- time growing with the square of their number: the importer's one transaction, a bulk change,
-- the benches' fills.
--
-- Now each statement's transition tables are summed once: a statement adds at most one row a
-- project and state it changed, and a project's rows are folded as before (every 32nd row, by an
-- advisory lock only tried), so the invariants of 0011 hold: a write inserts rows and locks none
-- that another write waits for (no lost update, no deadlock), and the rows of a project add up
-- to its tickets per state once the writing transaction commits.
--
-- Transition tables cannot go with a trigger's column list, so the update triggers see every
-- update of a ticket; an update that moves no ticket between projects or states sums to nothing
-- and inserts nothing.
drop trigger ticket_counts_keep on tickets;
drop function ticket_counts_keep();
drop function ticket_counts_add(text, text, integer);
drop trigger tickets_keep_open_blockers on tickets;
drop function tickets_keep_open_blockers();
drop trigger blockers_keep_open on blockers;
drop function blockers_keep_open();

-- Adds a statement's changes, one row a project and state, and folds the projects whose turn it
-- is. Rows of a project being deleted are left out: its counts go with it.
create function ticket_counts_add(changes jsonb) returns void
language plpgsql
set search_path from current
as $$
declare
  folding text;
begin
  for folding in
    with added as (
      insert into ticket_counts (project_id, state, count)
        select c.project_id, c.state, c.count
        from jsonb_to_recordset(changes) as c(project_id text, state text, count integer)
        where c.count <> 0 and exists (select from projects p where p.id = c.project_id)
        order by c.project_id, c.state
      returning project_id, id
    )
    select distinct project_id from added where id % 32 = 0
  loop
    -- Any constant will do as the first key; it only has to be the same for every process.
    if pg_try_advisory_xact_lock(4711044, hashtext(folding)) then
      with gone as (delete from ticket_counts where project_id = folding returning state, count)
      insert into ticket_counts (project_id, state, count)
        select folding, state, sum(count) from gone group by state having sum(count) <> 0;
    end if;
  end loop;
end
$$;

create function ticket_counts_inserted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform ticket_counts_add((
    select jsonb_agg(c) from (select project_id, state, count(*)::int as count from written group by project_id, state) c));
  return null;
end
$$;

create function ticket_counts_deleted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform ticket_counts_add((
    select jsonb_agg(c) from (select project_id, state, -count(*)::int as count from written group by project_id, state) c));
  return null;
end
$$;

create function ticket_counts_updated() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform ticket_counts_add((
    select jsonb_agg(c) from (
      select project_id, state, sum(d)::int as count from (
        select n.project_id, n.state, 1 as d from before_rows o join after_rows n on n.id = o.id
          where (o.project_id, o.state) is distinct from (n.project_id, n.state)
        union all
        select o.project_id, o.state, -1 from before_rows o join after_rows n on n.id = o.id
          where (o.project_id, o.state) is distinct from (n.project_id, n.state)
      ) moved
      group by project_id, state
    ) c));
  return null;
end
$$;

create trigger ticket_counts_inserted after insert on tickets
  referencing new table as written for each statement execute function ticket_counts_inserted();
create trigger ticket_counts_deleted after delete on tickets
  referencing old table as written for each statement execute function ticket_counts_deleted();
create trigger ticket_counts_updated after update on tickets
  referencing old table as before_rows new table as after_rows for each statement execute function ticket_counts_updated();

-- `open_blockers`: how many blockers of a ticket are neither done nor dropped. A statement adding
-- or removing blockers, or moving blockers across that line, changes each blocked ticket once.
-- The blocked tickets are locked in the order of their ids before they are changed, so two
-- statements changing the same tickets wait for each other rather than deadlock.
create function tickets_add_open_blockers(changes jsonb) returns void
language plpgsql
set search_path from current
as $$
begin
  perform from tickets t
    where t.id in (select (c->>'ticket_id')::uuid from jsonb_array_elements(changes) c)
    order by t.id for update;
  update tickets t set open_blockers = t.open_blockers + c.count
    from jsonb_to_recordset(changes) as c(ticket_id uuid, count integer)
    where t.id = c.ticket_id and c.count <> 0;
end
$$;

create function blockers_added() returns trigger
language plpgsql
set search_path from current
as $$
declare
  changes jsonb;
begin
  select jsonb_agg(c) into changes from (
    select w.ticket_id, count(*)::int as count from written w
    join tickets b on b.id = w.blocker_id and b.state in ('open', 'doing', 'review')
    group by w.ticket_id) c;
  if changes is not null then
    perform tickets_add_open_blockers(changes);
  end if;
  return null;
end
$$;

-- A blocker deleted with its ticket is no longer there to ask its state, so the tickets that
-- lost blockers are counted again. They are locked first and counted in the next statement, whose
-- snapshot sees every change committed by a writer that held one of them.
create function blockers_removed() returns trigger
language plpgsql
set search_path from current
as $$
declare
  blocked uuid[];
begin
  select array_agg(distinct ticket_id) into blocked from written;
  if blocked is null then
    return null;
  end if;
  perform from tickets where id = any(blocked) order by id for update;
  update tickets t set open_blockers = (
      select count(*) from blockers x join tickets b on b.id = x.blocker_id
      where x.ticket_id = t.id and b.state in ('open', 'doing', 'review'))
    where t.id = any(blocked);
  return null;
end
$$;

create function tickets_blockers_moved() returns trigger
language plpgsql
set search_path from current
as $$
declare
  changes jsonb;
begin
  select jsonb_agg(c) into changes from (
    select x.ticket_id, sum(case when n.state in ('open', 'doing', 'review') then 1 else -1 end)::int as count
    from before_rows o
    join after_rows n on n.id = o.id
    join blockers x on x.blocker_id = n.id
    where (o.state in ('open', 'doing', 'review')) <> (n.state in ('open', 'doing', 'review'))
    group by x.ticket_id) c;
  if changes is not null then
    perform tickets_add_open_blockers(changes);
  end if;
  return null;
end
$$;

create trigger blockers_added after insert on blockers
  referencing new table as written for each statement execute function blockers_added();
create trigger blockers_removed after delete on blockers
  referencing old table as written for each statement execute function blockers_removed();
create trigger tickets_blockers_moved after update on tickets
  referencing old table as before_rows new table as after_rows for each statement execute function tickets_blockers_moved();
