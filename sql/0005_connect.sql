-- Connected apps (docs/tickets-api.md, 4.9; docs/connect-apps.md).
--
-- A request (GET /connect) waits up to 10 minutes for the person to confirm on /connect/<nonce>;
-- confirming deletes it and issues a code, which lives 5 minutes and is exchanged once for a
-- project key. Nonces, codes and keys are kept only as their SHA-256 (hex), like user tokens.

create table connect_requests (
  hash text primary key,
  app text not null,
  label text not null,
  return_url text not null,
  state text not null,
  created bigint not null,
  expires bigint not null
);
create index connect_requests_expires on connect_requests (expires);

-- `used` is set by one UPDATE ... WHERE used is null and expires > now RETURNING, so a code
-- works once even under concurrent exchanges.
create table connect_codes (
  hash text primary key,
  project_id text not null references projects (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  app text not null,
  label text not null,
  created bigint not null,
  expires bigint not null,
  used bigint
);
create index connect_codes_expires on connect_codes (expires);

-- A connected app: its project key acts in `project_id` as `user_id` (the person who confirmed)
-- while that person is a member. Removing the row stops the key on its next request.
create table connections (
  id text primary key,
  project_id text not null references projects (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  app text not null,
  label text not null,
  hash text not null unique,
  created bigint not null,
  last_used bigint
);
create index connections_project on connections (project_id, created);

-- The label of the connected app a history event was made through; null for people.
alter table ticket_events add column app text;
