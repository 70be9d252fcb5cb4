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

create function ticket_counts_add(project text, ticket_state text, delta integer) returns void
language sql as $$
  insert into ticket_counts (project_id, state, n) values (project, ticket_state, delta)
  on conflict (project_id, state) do update set n = ticket_counts.n + excluded.n
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
