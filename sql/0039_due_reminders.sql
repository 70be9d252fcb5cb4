-- Due-date reminders (issue 38; docs/notifications.md, "Due dates"): a ticket's assignee is told
-- the day before its due day and on the day, reason `due`, kinds `due_tomorrow` and `due_today`.

-- `due` is a kind people choose app and mail for, as the others.
alter table notification_prefs drop constraint notification_prefs_reason_check;
alter table notification_prefs add constraint notification_prefs_reason_check
  check (reason in ('assigned', 'mentioned', 'watching', 'due'));
alter table notification_defaults drop constraint notification_defaults_reason_check;
alter table notification_defaults add constraint notification_defaults_reason_check
  check (reason in ('assigned', 'mentioned', 'watching', 'due'));
insert into notification_defaults (reason, app, mail) values ('due', true, true)
  on conflict (reason) do nothing;

alter table notifications drop constraint notifications_kind_check;
alter table notifications add constraint notifications_kind_check
  check (kind in ('created', 'comment', 'state', 'assign', 'edit', 'link', 'label', 'milestone', 'due',
                  'due_tomorrow', 'due_today'));

-- The reminders sent: one row per ticket, due day and kind ('tomorrow', 'today'), claimed by
-- the sweep (src/tickets/workers/due-sweep.ts) in the transaction that writes the reminder's
-- notifications, so several processes send each reminder once. Rows of past days are pruned.
create table due_reminders (
  ticket_id uuid not null references tickets (id) on delete cascade,
  day date not null,
  kind text not null check (kind in ('tomorrow', 'today')),
  at bigint not null,
  primary key (ticket_id, day, kind)
);
create index due_reminders_day on due_reminders (day);
create index tickets_due_day on tickets (due) where due is not null and state in ('open', 'doing', 'review');
