-- The search index (sql/0007_ticket_search.sql) takes new entries straight into its tree instead
-- of a pending list. GIN's default keeps them in a list that every search reads through, row by
-- row, until a vacuum moves them into the tree or the list passes 4 MB; the embedded database
-- runs no autovacuum, so that list grew with every ticket written. 10,000 tickets just loaded:
-- a search took 9 to 13 ms with the list, 2.4 ms without (docs/performance.md, "The web app's
-- pages"). A ticket written now costs its index entries at once, which a tracker's writes, one
-- ticket at a time, hardly notice.
alter index tickets_search set (fastupdate = off);
select gin_clean_pending_list('tickets_search'::regclass);
