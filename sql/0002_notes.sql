-- The notes sync service (docs/notes-api.md).
-- Times are milliseconds since the Unix epoch.

-- The last `edited` given out to each user. Every write takes this row's lock first, so a
-- user's writes are serialised and commit in the order of their `edited` values: a client that
-- asks for the changes since a time never misses one that commits later with a smaller time.
create table note_clocks (
  user_id text primary key,
  last_edited bigint not null
);

-- One row a note, tombstones included (`gone`). `id` is chosen by the client, so it is unique
-- only within its user.
create table notes (
  user_id text not null,
  id text not null,
  text text not null,
  created bigint not null,
  edited bigint not null,
  gone boolean not null default false,
  primary key (user_id, id)
);
-- `edited` rises strictly per user, so it is unique per user; the index also serves the list,
-- oldest edit first, and `?since=`.
create unique index notes_user_edited on notes (user_id, edited);

-- Every accepted save: the three-way merge reads the text at a client's `base` from here.
create table note_revisions (
  user_id text not null,
  note_id text not null,
  edited bigint not null,
  text text not null,
  at bigint not null,
  local text not null,
  primary key (user_id, note_id, edited)
);
