-- The version of the ticket lists (docs/tickets-api.md, "Conditional requests"): the last event
-- `seq` and `quiet_writes`, both in the one row of `live_state`'s reach. Writes that change what
-- the lists show without emitting an event count here: an import (src/tickets/import.ts), a
-- project's new slug or title, and a person's new display name, which a login takes from the
-- identity provider.
alter table live_state add column quiet_writes bigint not null default 0;

create function lists_changed() returns trigger
language plpgsql
set search_path from current
as $$
begin
  update live_state set quiet_writes = quiet_writes + 1;
  return null;
end
$$;

-- Only a real change of name: a login that keeps the name writes nothing more.
create trigger users_renamed
after update of name on users
for each row when (old.name is distinct from new.name)
execute function lists_changed();

-- A project's slug is in every ticket's `ref` and `url`, its title in the Markdown list's heading.
create trigger projects_renamed
after update of slug, title on projects
for each row when (old.slug is distinct from new.slug or old.title is distinct from new.title)
execute function lists_changed();

-- The lists' order (src/tickets/store/tickets.ts, listOrder): newest first, then the number,
-- then the id. A page, and each batch of a streamed list, starts after a position with a row
-- comparison these indexes answer by a range scan, so the 200th batch of 100,000 tickets costs
-- what the first does instead of sorting every ticket again.
create index tickets_list on tickets (created, number, id);
create index tickets_project_list on tickets (project_id, created, number, id);
