-- Published notes (docs/notes-api.md, "Publishing"): a note's read-only page at /p/<id>, where
-- `id` is 128 random bits. One publication a note at a time; unpublishing deletes the row, so
-- the address answers 404 at once in every process, and publishing again makes a new id.
create table note_publications (
  id text primary key,
  user_id text not null,
  note_id text not null,
  created bigint not null,
  unique (user_id, note_id)
);
