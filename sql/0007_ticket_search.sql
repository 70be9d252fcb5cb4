-- Search of the ticket lists (docs/tickets-app.md, "Searching"): the words of a ticket's subject
-- and summary as a text-search vector kept by PostgreSQL itself, with a GIN index, so a search
-- finds words and word starts among 10,000 tickets without reading them all.
--
-- The `simple` configuration lower-cases and keeps every word as written (no stemming, no stop
-- words): tickets mix languages, code names and numbers, and a search for "is" or "the" should
-- find them like any other word.
alter table tickets add column search tsvector
  generated always as (to_tsvector('simple', subject || ' ' || summary)) stored;
create index tickets_search on tickets using gin (search);
