-- Saved views and bulk changes (issue 38; docs/tickets-app.md, "Saved views", "Bulk changes").
--
-- A saved view is a named search of a project: a person's own (`owner_id`) or the project's,
-- shared with every reader (`owner_id` null). Names are unique, in any case, among a person's
-- own views of a project and among the project's shared views.
create table saved_views (
  id text primary key,
  project_id text not null references projects (id) on delete cascade,
  owner_id text references users (id) on delete cascade,
  name text not null,
  q text not null,
  created bigint not null
);
create unique index saved_views_own_name on saved_views (project_id, owner_id, lower(name)) where owner_id is not null;
create unique index saved_views_shared_name on saved_views (project_id, lower(name)) where owner_id is null;

-- A bulk change, kept so that its one Undo can give each ticket back what it had: the field it
-- set and each changed ticket with its value before and after (`items`, `[{ "id", "from", "to" }]`).
-- Undone or a day old, it can no longer be undone.
create table bulk_changes (
  id text primary key,
  project_id text not null references projects (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  field text not null,
  items jsonb not null,
  created bigint not null,
  undone boolean not null default false
);
create index bulk_changes_created on bulk_changes (created);
