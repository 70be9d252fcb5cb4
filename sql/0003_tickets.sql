-- The ticket tracking service (issue 4 fills this in).

-- The outbox of live events (decisions.md section 6): every write that emits an event inserts
-- it here in the same transaction. `tx` records the writing transaction, so delivery can wait
-- for transactions that are still open and hand events out in commit order.
create table events (
  id bigserial primary key,
  project_id text,
  name text not null,
  args jsonb not null,
  created bigint not null,
  tx xid8 not null default pg_current_xact_id()
);
