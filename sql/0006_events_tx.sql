-- `events.tx` (0003) recorded each event's writing transaction for a delivery design that waited
-- on open transactions. Events are delivered by `seq`, given at commit time (0004), and nothing
-- reads `tx`: it goes, and with it a `pg_current_xact_id()` per event written.
alter table events drop column tx;
