-- The ticket tracking service (issue 4 fills this in).

-- The outbox of live events (docs/live-events.md, "How it works"): every write that emits an event
-- inserts it here in the same transaction. `tx` records the writing transaction, so delivery can
-- wait for transactions that are still open and hand events out in commit order.
create table events (
  id bigserial primary key,
  project_id text,
  name text not null,
  args jsonb not null,
  created bigint not null,
  tx xid8 not null default pg_current_xact_id()
);

-- People who have logged in through the identity provider (docs/tickets-api.md, 4.10 step 4).
-- `id` is ours (12 characters a-z0-9); `idp_id` is the provider's user id.
create table users (
  id text primary key,
  idp_id text not null unique,
  name text not null,
  email text,
  created bigint not null
);
create index users_name on users (name);

-- User tokens (docs/core.md, "Sessions and credentials"): only the SHA-256 hash of the secret is
-- kept. Revoking deletes the row, so the next request with the secret is refused.
create table tokens (
  id text primary key,
  user_id text not null references users (id) on delete cascade,
  hash text not null unique,
  label text not null,
  created bigint not null,
  last_used bigint
);
create index tokens_user on tokens (user_id);

-- `next_number` is the per-project ticket counter, taken by one UPDATE ... RETURNING.
create table projects (
  id text primary key,
  slug text not null,
  title text not null,
  description text not null default '',
  next_number integer not null default 1,
  created bigint not null
);

-- Every name a project has ever answered to: its id, its slug and every old slug. The primary
-- key keeps a name with its project forever, so an old slug cannot be taken by another project
-- and an id never equals another project's slug.
-- The foreign key is checked at commit: a new project claims its id and slug before its row
-- is written.
create table project_names (
  name text primary key,
  project_id text not null references projects (id) on delete cascade deferrable initially deferred
);
create index project_names_project on project_names (project_id);

create table members (
  project_id text not null references projects (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  role text not null check (role in ('use', 'edit', 'admin')),
  primary key (project_id, user_id)
);
create index members_user on members (user_id);

-- Invites: `uses_left` is counted down by one UPDATE ... WHERE uses_left > 0, so N uses hold
-- under concurrent joins.
create table invites (
  id text primary key,
  project_id text not null references projects (id) on delete cascade,
  role text not null check (role in ('use', 'edit', 'admin')),
  uses_left integer not null,
  expires bigint not null,
  created_by text not null references users (id),
  created bigint not null
);

create table tickets (
  id uuid primary key default gen_random_uuid(),
  project_id text not null references projects (id) on delete cascade,
  number integer not null,
  -- The old global number of a migrated ticket (the import command), valid in `:ref`.
  old_number integer unique,
  subject text not null,
  summary text not null default '',
  source text not null default '',
  state text not null default 'open' check (state in ('open', 'doing', 'review', 'done', 'dropped')),
  assignee_id text references users (id),
  author_id text references users (id),
  -- The author's name for imported tickets whose author never logged in here.
  author_name text,
  parent_id uuid references tickets (id),
  created bigint not null,
  updated bigint not null,
  unique (project_id, number)
);
-- A repeated non-empty `source` answers the existing ticket (docs/tickets-api.md, 4.1).
create unique index tickets_source on tickets (project_id, source) where source <> '';
create index tickets_project_created on tickets (project_id, created);
create index tickets_assignee on tickets (assignee_id, state);
create index tickets_parent on tickets (parent_id);

-- A ticket's history. `by` is the acting person's name at the time of the event; `data` holds
-- the kind's fields (the text of a comment, a state change's from and to, an edit's previous
-- values, a link's relation).
create table ticket_events (
  id bigserial primary key,
  ticket_id uuid not null references tickets (id) on delete cascade,
  kind text not null check (kind in ('comment', 'state', 'assign', 'edit', 'link')),
  user_id text references users (id),
  by text not null,
  data jsonb not null,
  created bigint not null
);
create index ticket_events_ticket on ticket_events (ticket_id, id);

-- `ticket_id` is blocked by `blocker_id`.
create table blockers (
  ticket_id uuid not null references tickets (id) on delete cascade,
  blocker_id uuid not null references tickets (id) on delete cascade,
  primary key (ticket_id, blocker_id)
);
create index blockers_blocker on blockers (blocker_id);
