-- The words a device gives itself ("Chrome on Android"), kept with each revision so the history
-- can say which device wrote each version. Null for revisions saved without one.
alter table note_revisions add column device text;
