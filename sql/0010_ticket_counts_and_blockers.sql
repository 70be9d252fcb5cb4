-- A project's tickets per state, kept by a trigger on `tickets`: the state tabs of the project
-- page and the open counts of the home page read a few rows instead of counting every ticket
-- of the project on each request (10,000 tickets: docs/performance.md, "The web app's pages").
--
-- A change of state touches two rows of a project; the trigger takes them in the order of the
-- state names, so two transactions moving tickets in opposite directions cannot deadlock.
create table ticket_counts (
  project_id text not null references projects (id) on delete cascade,
  state text not null,
  n integer not null,
  primary key (project_id, state)
);

insert into ticket_counts (project_id, state, n)
  select project_id, state, count(*)::int from tickets group by project_id, state;

-- A ticket leaving a count only lowers it: when a whole project is deleted its counts may be
-- gone before its tickets, and nothing is inserted for a project that no longer exists.
create function ticket_counts_add(project text, ticket_state text, delta integer) returns void
language plpgsql as $$
begin
  if delta < 0 then
    update ticket_counts set n = n + delta where project_id = project and state = ticket_state;
  else
    insert into ticket_counts (project_id, state, n) values (project, ticket_state, delta)
    on conflict (project_id, state) do update set n = ticket_counts.n + excluded.n;
  end if;
end
$$;

create function ticket_counts_keep() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform ticket_counts_add(new.project_id, new.state, 1);
  elsif tg_op = 'DELETE' then
    perform ticket_counts_add(old.project_id, old.state, -1);
  elsif old.project_id is distinct from new.project_id or old.state is distinct from new.state then
    if (old.project_id, old.state) < (new.project_id, new.state) then
      perform ticket_counts_add(old.project_id, old.state, -1);
      perform ticket_counts_add(new.project_id, new.state, 1);
    else
      perform ticket_counts_add(new.project_id, new.state, 1);
      perform ticket_counts_add(old.project_id, old.state, -1);
    end if;
  end if;
  return null;
end
$$;

create trigger ticket_counts_keep after insert or delete or update of state, project_id on tickets
  for each row execute function ticket_counts_keep();

-- How many tickets that are not done or dropped block a ticket, kept on its row by triggers on
-- `blockers` (a blocker added or removed) and on `tickets` (a blocker's state crossing between
-- active and done or dropped). `is:blocked` is then a condition on the row with a partial index
-- of the blocked tickets, where it joined every ticket of the project to its blockers' states
-- (39 ms on 10,000 tickets; docs/performance.md).
alter table tickets add column open_blockers integer not null default 0;

update tickets t set open_blockers = (
    select count(*) from blockers x join tickets b on b.id = x.blocker_id
    where x.ticket_id = t.id and b.state in ('open', 'doing', 'review'))
  where t.id in (select ticket_id from blockers);

create index tickets_blocked on tickets (project_id, created) where open_blockers > 0;

create function blockers_keep_open() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    update tickets set open_blockers = open_blockers + 1 where id = new.ticket_id
      and exists (select 1 from tickets b where b.id = new.blocker_id and b.state in ('open', 'doing', 'review'));
  else
    update tickets set open_blockers = open_blockers - 1 where id = old.ticket_id
      and exists (select 1 from tickets b where b.id = old.blocker_id and b.state in ('open', 'doing', 'review'));
  end if;
  return null;
end
$$;

create trigger blockers_keep_open after insert or delete on blockers
  for each row execute function blockers_keep_open();

create function tickets_keep_open_blockers() returns trigger language plpgsql as $$
declare
  was_open boolean := old.state in ('open', 'doing', 'review');
  is_open boolean := new.state in ('open', 'doing', 'review');
begin
  if was_open <> is_open then
    update tickets set open_blockers = open_blockers + case when is_open then 1 else -1 end
      where id in (select ticket_id from blockers where blocker_id = new.id);
  end if;
  return null;
end
$$;

create trigger tickets_keep_open_blockers after update of state on tickets
  for each row execute function tickets_keep_open_blockers();
