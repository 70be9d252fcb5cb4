-- The notes sync service (issue 3 fills this in).
select 1;
