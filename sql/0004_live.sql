-- Live events in commit order (docs/live-events.md).
--
-- `seq` is the delivery order and the cursor pages hold. It is given at commit time: a deferred
-- trigger takes one advisory lock and draws `seq` just before its transaction commits, and
-- PostgreSQL releases a transaction's locks only after the commit is visible to everyone
-- (xact.c, CommitTransaction: ProcArrayEndTransaction "must be done _before_ releasing locks").
-- So the next event-writing transaction draws its `seq` only once this one's are readable:
-- `seq` order is commit order, and a reader that sees some `seq` sees every smaller one, or
-- never will (an aborted transaction leaves a gap, nothing more). Event ids (`id`) are drawn
-- at insert time, so they do not give that order when transactions commit out of id order.
create sequence events_seq;

alter table events add column seq bigint;
create unique index events_seq_idx on events (seq);

-- Rows written before this migration get their order now, in id order.
update events e set seq = o.n
from (select id, row_number() over (order by id) as n from events) o
where e.id = o.id;
select setval('events_seq', coalesce((select max(seq) from events), 0) + 1, false);

-- `search_path from current`: the trigger finds this schema's table and sequence whichever
-- search path the writing session has.
create function events_sequence() returns trigger
language plpgsql
set search_path from current
as $$
begin
  -- Any constant will do; it only has to be the same for every process sharing the database.
  perform pg_advisory_xact_lock(4711043);
  update events set seq = nextval('events_seq') where id = new.id;
  return null;
end
$$;

create constraint trigger events_sequence
after insert on events
deferrable initially deferred
for each row execute function events_sequence();

-- What retention has deleted: every event with `seq` up to `pruned_through` may be gone, every
-- later one is still kept. A cursor below it answers `{ reset: true }`.
create table live_state (
  one boolean primary key default true check (one),
  pruned_through bigint not null default 0
);
insert into live_state default values;
