-- Notes shared between people (docs/notes-api.md, "Sharing with people").

-- The people the notes service has seen sign in, with the names their provider gave then: the
-- owner of a note finds the person to share it with by one of these names, and both see the
-- other's name. Written at each sign-in; nothing else of an account is kept here.
create table note_people (
  user_id text primary key,
  -- the display name, which anyone may choose and which may repeat
  name text not null,
  -- the account's unique sign-in name, when the provider sends one
  login text,
  seen bigint not null
);
create index note_people_login on note_people (lower(login));
create index note_people_name on note_people (lower(name));

-- A note of `owner_id` shared with `sharee_id`. The note stays the owner's one row of `notes`;
-- the sharee sees it under `id`, 'shared-' and 64 random characters: longer than the 64
-- characters any id of a person's own notes may have, so it can never be one of them. Ending
-- the share deletes the row.
create table note_shares (
  id text primary key,
  owner_id text not null,
  note_id text not null,
  sharee_id text not null,
  access text not null check (access in ('edit', 'read')),
  created bigint not null,
  unique (owner_id, note_id, sharee_id)
);
create index note_shares_sharee on note_shares (sharee_id);

-- Who wrote each version: the person whose save it was, when another than the note's owner
-- (null: the owner).
alter table note_revisions add column author text;
