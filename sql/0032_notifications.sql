-- Notifications (docs/notifications.md, issue 37): who is told of what, what each person wants,
-- who watches which ticket, and how far the events outbox has been fanned out into notifications.

-- One row per person told of one thing. `event_id` is the history event that caused it; null
-- for a ticket's creation (its text mentioned them, it was created assigned to them, or its
-- project is watched), which has no history event. `kind` is 'created' or the history event's
-- kind. `actor` is the acting person's name at the time (`actor_id` their id).
--
-- `in_app`: shown in the app (the bell, /notifications, GET /api/notifications). `mail_state`:
-- 'none' (no mail wanted), 'pending' (the person wants mail for this reason; the mail sender
-- takes pending rows per person and ticket after NOTIFY_DELAY and sets 'sent' or 'cancelled';
-- it skips rows read meanwhile: `read_at` set means seen in the app).
create table notifications (
  id bigserial primary key,
  user_id text not null references users (id) on delete cascade,
  ticket_id uuid not null references tickets (id) on delete cascade,
  event_id bigint references ticket_events (id) on delete cascade,
  kind text not null check (kind in ('created', 'comment', 'state', 'assign', 'edit', 'link', 'due')),
  reason text not null check (reason in ('assigned', 'mentioned', 'watching', 'due')),
  actor_id text references users (id) on delete set null,
  actor text not null,
  at bigint not null,
  read_at bigint,
  in_app boolean not null,
  mail_state text not null check (mail_state in ('none', 'pending', 'sent', 'cancelled'))
);
-- A person is told of one event once (with the strongest reason), and of one creation once.
create unique index notifications_once on notifications (user_id, event_id) where event_id is not null;
create unique index notifications_created_once on notifications (user_id, ticket_id)
  where event_id is null and reason <> 'due';
-- The person's list, newest first, and their tickets' groups.
create index notifications_user on notifications (user_id, id);
create index notifications_user_ticket on notifications (user_id, ticket_id, id);
-- The bell's count.
create index notifications_unread on notifications (user_id) where read_at is null and in_app;
-- The mail sender's work.
create index notifications_mail_pending on notifications (user_id, ticket_id, at)
  where mail_state = 'pending';
-- The sweep of read notifications.
create index notifications_read on notifications (at) where read_at is not null;

-- What each person wants, per reason: in the app, by mail. A person without a row for a reason
-- follows the install's default (`notification_defaults`).
create table notification_prefs (
  user_id text not null references users (id) on delete cascade,
  reason text not null check (reason in ('assigned', 'mentioned', 'watching')),
  app boolean not null,
  mail boolean not null,
  primary key (user_id, reason)
);

-- The install's default, per reason, for people who have not chosen.
create table notification_defaults (
  reason text primary key check (reason in ('assigned', 'mentioned', 'watching')),
  app boolean not null,
  mail boolean not null
);
insert into notification_defaults (reason, app, mail) values
  ('assigned', true, true),
  ('mentioned', true, true),
  ('watching', true, false);

-- Who watches a ticket. `watching` false is an explicit Unwatch, which also holds against a
-- project's Watch all. `at` is when the row was last decided: an automatic watch decided by an
-- older event never undoes a later explicit choice.
create table watches (
  ticket_id uuid not null references tickets (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  watching boolean not null,
  at bigint not null,
  primary key (ticket_id, user_id)
);
create index watches_user on watches (user_id);

-- A project's Watch all: the person watches every ticket of the project, new ones too.
create table project_watches (
  project_id text not null references projects (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  at bigint not null,
  primary key (project_id, user_id)
);
create index project_watches_user on project_watches (user_id);

-- How far the events outbox has been turned into notifications: every event up to
-- `fanned_through` has its rows. Retention of events keeps every later one.
create table notify_state (
  one boolean primary key default true check (one),
  fanned_through bigint not null
);
insert into notify_state (fanned_through) select coalesce(max(seq), 0) from events;

-- A live event for one person only (their bell): delivered to that person's polls, never to
-- anyone else's.
alter table events add column user_id text;
