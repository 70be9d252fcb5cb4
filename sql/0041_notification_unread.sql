-- The bell's count at scale (issue 37, docs/performance.md "Notifications"): each person's
-- unread notifications in the app, kept by the statement triggers below in the transaction that changes them (one row per person a statement touches,
-- whichever write path it is), so the count is one row's read at 10,000 unread, not 10,000
-- index entries. It replaces the index that counted them.
-- Its rows go with their person (after their notifications: sql/0040's trigger deletes those).
create table notification_unread (
  user_id text primary key,
  n integer not null
);
insert into notification_unread (user_id, n)
  select user_id, count(*)::int from notifications where read_at is null and in_app group by user_id;
drop index notifications_unread;

-- Adds each person's change of unread count in `delta` (`[{ "u": <user>, "n": <change> }]`),
-- in the order of the people's ids, so two statements changing the same people's counts wait
-- for each other rather than deadlock.
create function notification_unread_add(delta jsonb) returns void
language sql
set search_path from current
as $$
  insert into notification_unread (user_id, n)
  select d->>'u', (d->>'n')::int from jsonb_array_elements(coalesce(delta, '[]')) d
  where (d->>'n')::int <> 0
  order by d->>'u'
  on conflict (user_id) do update set n = notification_unread.n + excluded.n
$$;

create function notification_unread_inserted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform notification_unread_add((select jsonb_agg(jsonb_build_object('u', user_id, 'n', n)) from (
    select user_id, count(*)::int as n from written where read_at is null and in_app group by user_id) c));
  return null;
end
$$;

create function notification_unread_deleted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform notification_unread_add((select jsonb_agg(jsonb_build_object('u', user_id, 'n', -n)) from (
    select user_id, count(*)::int as n from written where read_at is null and in_app group by user_id) c));
  return null;
end
$$;

create function notification_unread_updated() returns trigger
language plpgsql
set search_path from current
as $$
begin
  perform notification_unread_add((select jsonb_agg(jsonb_build_object('u', user_id, 'n', n)) from (
    select user_id, sum(d)::int as n from (
      select user_id, 1 as d from after_rows where read_at is null and in_app
      union all
      select user_id, -1 from before_rows where read_at is null and in_app
    ) moved group by user_id) c));
  return null;
end
$$;

create trigger notification_unread_inserted after insert on notifications
  referencing new table as written for each statement execute function notification_unread_inserted();
create trigger notification_unread_deleted after delete on notifications
  referencing old table as written for each statement execute function notification_unread_deleted();
create trigger notification_unread_updated after update on notifications
  referencing old table as before_rows new table as after_rows for each statement execute function notification_unread_updated();

create function notification_unread_users_deleted() returns trigger
language plpgsql
set search_path from current
as $$
begin
  delete from notification_unread where user_id in (select id from gone);
  return null;
end
$$;
-- Named to fire after sql/0040's notifications_users_deleted (triggers fire in name order).
create trigger notifications_users_deleted_unread after delete on users
  referencing old table as gone for each statement execute function notification_unread_users_deleted();
