-- The notes' trash (docs/notes-api.md, "Recently deleted"): a tombstone keeps its text and
-- history for 30 days after its delete (its `edited`), then both are removed for good and the
-- tombstone, listed as the interface says, stays with `purged` set and an empty text.
alter table notes add column purged boolean not null default false;
-- The hourly purge and a person's trash read the tombstones not purged yet, by their delete.
create index notes_trash on notes (user_id, edited) where gone and not purged;
