-- Tickets are written once and then changed often: every comment moves `updated`, which no
-- index holds, so PostgreSQL can keep the new row version on the same page and skip every index
-- (a heap-only update) if the page has room. Filled to the brim, as inserts leave it, it has
-- none, and each comment wrote a new entry in all eight indexes of the ticket, the text index's
-- twenty words or so among them. Leaving 15% of each page free for updates: at 100,000 tickets
-- 29 of 13,233 updates were heap-only before, and a comment took 2.2 ms against 1.5 ms at 1,000
-- tickets (docs/performance.md, "Growth"). Pages written from now on keep the room; a server
-- with existing tickets gets it for old pages when it rewrites the table (`vacuum full tickets`,
-- which locks it while it runs), or gradually as rows move.
alter table tickets set (fillfactor = 85);
