-- Notifications' fan-out at scale (issue 37, docs/performance.md "Notifications").
--
-- A comment on a ticket 100 people watch makes 100 rows. Each row's four foreign-key checks
-- (row triggers that each look up and lock the user, the ticket, the history event and the
-- actor) cost about as much as the row itself, and the rows' values come from those very tables
-- (the fan-out joins the watches, the users and the event), so the checks are dropped. Nothing
-- deletes users, tickets or history events; should something come to, the statement triggers
-- below do what the cascades did: delete the notifications of what went, and forget an actor.
alter table notifications
  drop constraint notifications_user_id_fkey,
  drop constraint notifications_ticket_id_fkey,
  drop constraint notifications_event_id_fkey,
  drop constraint notifications_actor_id_fkey;

create function notifications_users_deleted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  delete from notifications where user_id in (select id from gone);
  update notifications set actor_id = null where actor_id in (select id from gone);
  return null;
end
$$;
create trigger notifications_users_deleted after delete on users
  referencing old table as gone for each statement execute function notifications_users_deleted();

create function notifications_tickets_deleted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  delete from notifications where ticket_id in (select id from gone);
  return null;
end
$$;
create trigger notifications_tickets_deleted after delete on tickets
  referencing old table as gone for each statement execute function notifications_tickets_deleted();

create function notifications_events_deleted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  delete from notifications where event_id in (select id from gone);
  return null;
end
$$;
create trigger notifications_events_deleted after delete on ticket_events
  referencing old table as gone for each statement execute function notifications_events_deleted();
