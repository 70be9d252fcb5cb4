-- The shared core: settings kept by the services, and browser sessions
-- (docs/core.md, "Sessions and credentials").

create table settings (
  key text primary key,
  value text not null
);

-- One row a browser session. The cookie carries the id sealed with SESSION_SECRET.
create table sessions (
  id text primary key,
  service text not null check (service in ('notes', 'tickets')),
  user_id text,
  data jsonb not null default '{}',
  created bigint not null,
  expires bigint not null
);
create index sessions_expires on sessions (expires);
