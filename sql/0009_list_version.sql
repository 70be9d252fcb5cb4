-- The version of the ticket lists (docs/tickets-api.md, "Conditional requests"): the last event
-- `seq` and `quiet_writes`, both in the one row of `live_state`'s reach. Writes that change what
-- the lists show without emitting an event count here: an import (src/tickets/import.ts) and a
-- person's new display name, which a login takes from the identity provider.
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
