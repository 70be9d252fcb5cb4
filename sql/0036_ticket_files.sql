-- Which tickets link which files of their project (`has:file` in a search, a ticket page's list
-- of files, the sweep's test of a file being referenced): a ticket links a file when its
-- summary or subject as created, or any event of its history (a comment, an edit's old and new
-- text, a state change's comment), holds the file's address `/files/<id>`. Kept by the two
-- statement triggers below, once per statement as the counts are (sql/0024), so every writer
-- (the API, the importer, a bulk statement) keeps it without knowing of it. A row stays when the
-- text that linked the file is edited away: the history still shows the link.
create table ticket_files (
  ticket_id uuid not null references tickets (id) on delete cascade,
  file_id text not null references files (id) on delete cascade,
  primary key (ticket_id, file_id)
);
create index ticket_files_file on ticket_files (file_id);

-- The file ids a text links, as src/tickets/rules/files.ts's `fileIdsIn` reads them.
create function linked_file_ids(body text) returns setof text language sql immutable as $$
  select distinct m[1] from regexp_matches(body, '/files/([A-Za-z0-9_-]{22})(?![A-Za-z0-9_-])', 'g') m
$$;

-- Most texts link no file: the regular expression runs only on those that hold `/files/`.
create function lazy_file_ids(body text) returns setof text language sql immutable as $$
  select linked_file_ids(body) where strpos(body, '/files/') > 0
$$;

create function ticket_files_created() returns trigger language plpgsql as $$
begin
  insert into ticket_files (ticket_id, file_id)
  select w.id, f.id
  from written w
  cross join lazy_file_ids(w.subject || ' ' || w.summary) l(id)
  join files f on f.id = l.id and f.project_id = w.project_id
  on conflict do nothing;
  return null;
end
$$;

create function ticket_files_recorded() returns trigger language plpgsql as $$
begin
  insert into ticket_files (ticket_id, file_id)
  select w.ticket_id, f.id
  from written w
  cross join lazy_file_ids(w.data::text) l(id)
  join tickets t on t.id = w.ticket_id
  join files f on f.id = l.id and f.project_id = t.project_id
  on conflict do nothing;
  return null;
end
$$;

create trigger ticket_files_created after insert on tickets
  referencing new table as written for each statement execute function ticket_files_created();
create trigger ticket_files_recorded after insert on ticket_events
  referencing new table as written for each statement execute function ticket_files_recorded();

insert into ticket_files (ticket_id, file_id)
select t.id, f.id from tickets t
cross join lazy_file_ids(t.subject || ' ' || t.summary) l(id)
join files f on f.id = l.id and f.project_id = t.project_id
union
select e.ticket_id, f.id from ticket_events e
cross join lazy_file_ids(e.data::text) l(id)
join tickets t on t.id = e.ticket_id
join files f on f.id = l.id and f.project_id = t.project_id
on conflict do nothing;
