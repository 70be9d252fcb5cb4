-- Webhooks (docs/webhooks.md): subscriptions, and the deliveries made from the events outbox.
--
-- A webhook belongs to a project; one a connected app registered with its project key also
-- names its connection, and goes with it. `events` lists the kinds it wants (empty: every
-- kind). The signing secret is kept as given (HMAC needs it); after a rotation the previous one
-- still signs until `previous_until`.
create table webhooks (
  id text primary key,
  project_id text not null references projects (id) on delete cascade,
  connection_id text references connections (id) on delete cascade,
  url text not null,
  events text[] not null,
  active boolean not null,
  -- Why the service stopped it (a 410, three days of failures); null while it did not.
  disabled text,
  secret text not null,
  previous_secret text,
  previous_until bigint,
  -- Only events given a `seq` after this are delivered to it.
  since_seq bigint not null,
  created bigint not null,
  -- A process delivering to this webhook holds it until then (milliseconds since the epoch):
  -- one delivery at a time per webhook, so its deliveries keep the project's event order.
  leased_until bigint not null default 0
);
create index webhooks_project on webhooks (project_id, created);

-- One row per message: an event for one webhook, a test event, or a redelivery. `message_id`
-- is the `webhook-id` header, the same on every attempt (and on a redelivery of it). Rows of
-- the event stream (`ordered`) are sent in `id` order, which is the events' `seq` order.
create table webhook_deliveries (
  id bigserial primary key,
  webhook_id text not null references webhooks (id) on delete cascade,
  message_id text not null,
  type text not null,
  ordered boolean not null,
  payload text not null,
  created bigint not null,
  state text not null check (state in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  -- The first attempt: retries go on for 3 days from it.
  first_at bigint,
  next_at bigint not null,
  last_at bigint,
  status integer,
  duration_ms integer,
  answer text,
  error text
);
create index webhook_deliveries_log on webhook_deliveries (webhook_id, id);
create index webhook_deliveries_due on webhook_deliveries (webhook_id, id) where state = 'pending';

-- How far the events have been turned into deliveries: every event up to `fanned_through` has
-- its rows. Retention of events (live.ts) keeps every later one. Delivery starts with the
-- events written after this migration.
create table webhook_state (
  one boolean primary key default true check (one),
  fanned_through bigint not null
);
insert into webhook_state (fanned_through) select coalesce(max(seq), 0) from events;
