-- Labels, milestones and due dates (issue 38; docs/tickets-app.md, "Labels, milestones and due
-- dates"; docs/tickets-api.md, "Labels, milestones and due dates").

-- A project's labels. A name is unique in its project whatever its case; `color` is `#rrggbb`
-- in lower case. Deleting a label takes it off every ticket (`ticket_labels` cascades).
create table labels (
  id bigserial primary key,
  project_id text not null references projects (id) on delete cascade,
  name text not null,
  color text not null check (color ~ '^#[0-9a-f]{6}$'),
  description text not null default '',
  created bigint not null
);
create unique index labels_name on labels (project_id, lower(name));

-- Which tickets have which labels. `ticket_labels_label` finds a label's tickets (`label:bug`).
create table ticket_labels (
  ticket_id uuid not null references tickets (id) on delete cascade,
  label_id bigint not null references labels (id) on delete cascade,
  primary key (ticket_id, label_id)
);
create index ticket_labels_label on ticket_labels (label_id, ticket_id);

-- A project's milestones: a title unique in the project whatever its case, an optional due day,
-- open or closed. A deleted milestone leaves its tickets without one.
create table milestones (
  id bigserial primary key,
  project_id text not null references projects (id) on delete cascade,
  title text not null,
  due date,
  description text not null default '',
  closed boolean not null default false,
  created bigint not null
);
create unique index milestones_title on milestones (project_id, lower(title));

-- A ticket has at most one milestone and at most one due day (a calendar day, no time).
alter table tickets add column milestone_id bigint references milestones (id) on delete set null;
alter table tickets add column due date;

-- `milestone:"v1.0"` newest first walks its milestone's tickets in the lists' order; the
-- milestone list counts each milestone's tickets by state from the same index.
create index tickets_milestone_list on tickets (milestone_id, created, number, id) where milestone_id is not null;
create index tickets_milestone_state on tickets (milestone_id, state) where milestone_id is not null;
-- `is:overdue` (due before today, not done or dropped) walks only the open tickets with a due
-- day, newest first; `sort:due` and the inbox read due days in order.
create index tickets_due_open on tickets (project_id, created, number, id)
  where due is not null and state in ('open', 'doing', 'review');
create index tickets_due on tickets (project_id, due, number) where due is not null;

-- A change of them is a history event of its own kind.
alter table ticket_events drop constraint ticket_events_kind_check;
alter table ticket_events add constraint ticket_events_kind_check
  check (kind in ('comment', 'state', 'assign', 'edit', 'link', 'label', 'milestone', 'due'));

-- The lists show labels and milestones: their writes move the lists' version
-- (sql/0019_lists_version_by_triggers.sql) as the tickets' own do.
do $$
declare
  listed text;
begin
  foreach listed in array array['labels', 'ticket_labels', 'milestones'] loop
    execute format('create trigger lists_inserted after insert on %I referencing new table as written for each statement execute function lists_written()', listed);
    execute format('create trigger lists_updated after update on %I referencing new table as written for each statement execute function lists_written()', listed);
    execute format('create trigger lists_deleted after delete on %I referencing old table as written for each statement execute function lists_written()', listed);
    execute format('create trigger lists_truncated after truncate on %I for each statement execute function lists_written()', listed);
  end loop;
end
$$;
