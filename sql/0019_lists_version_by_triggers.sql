-- The version of the ticket lists (docs/tickets-api.md, "Conditional requests"; the pages' shared
-- reads, src/tickets/store/page-reads.ts): it moves with every committed transaction that writes
-- a table the lists or the pages' shared reads show, whatever the write path. Statement-level
-- triggers on those tables record the writing transaction; a write path does nothing for it.
--
-- A transaction writing any of them leaves one row here (its `tx`). Just before it commits, a
-- deferred trigger takes the advisory lock the events' `seq` is drawn under (sql/0004_live.sql)
-- and draws the row's `seq`, so `seq` order is commit order: a reader that sees the largest
-- `seq` sees every write before it, and a later commit always draws a larger one. The same
-- trigger deletes the rows committed before it, so the table holds a row or two.
create sequence lists_version_seq;

create table lists_writes (
  tx xid8 primary key,
  seq bigint
);
insert into lists_writes (tx, seq) values ('0', nextval('lists_version_seq'));

-- A statement that wrote no row (an update that matched none, a login that changed nothing)
-- leaves the version as it is; a truncate always moves it.
create function lists_written() returns trigger
language plpgsql
set search_path from current
as $$
begin
  if tg_op <> 'TRUNCATE' then
    if not exists (select from written) then
      return null;
    end if;
  end if;
  insert into lists_writes (tx) values (pg_current_xact_id()) on conflict (tx) do nothing;
  return null;
end
$$;

create function lists_version_draw() returns trigger
language plpgsql
set search_path from current
as $$
begin
  -- The key of sql/0004_live.sql: one lock orders both `seq`s' commits.
  perform pg_advisory_xact_lock(4711043);
  delete from lists_writes where tx <> new.tx;
  update lists_writes set seq = nextval('lists_version_seq') where tx = new.tx;
  return null;
end
$$;

create constraint trigger lists_version_draw
after insert on lists_writes
deferrable initially deferred
for each row execute function lists_version_draw();

-- Every table a list row, the project switcher, a project's members and tab counts or a ticket
-- page's related tickets read. `ticket_events` is the history a ticket's answer carries.
do $$
declare
  listed text;
begin
  foreach listed in array array['tickets', 'ticket_events', 'blockers', 'ticket_counts', 'members', 'users', 'projects', 'project_names'] loop
    execute format('create trigger lists_inserted after insert on %I referencing new table as written for each statement execute function lists_written()', listed);
    execute format('create trigger lists_updated after update on %I referencing new table as written for each statement execute function lists_written()', listed);
    execute format('create trigger lists_deleted after delete on %I referencing old table as written for each statement execute function lists_written()', listed);
    execute format('create trigger lists_truncated after truncate on %I for each statement execute function lists_written()', listed);
  end loop;
end
$$;

-- What the triggers above replace: the count of writes that emitted no event (sql/0009,
-- sql/0014) and the triggers that counted some of them.
drop trigger users_renamed on users;
drop trigger projects_renamed on projects;
drop trigger projects_created on projects;
drop function lists_changed();
alter table live_state drop column quiet_writes;
