-- Files attached to tickets (docs/tickets-app.md, "Attaching files"; docs/tickets-api.md,
-- "Files"). A file's bytes live in the database, so one backup holds them and every process
-- serves them: `file_contents` is one stored content, kept once per project (its SHA-256),
-- `file_chunks` its bytes in pieces of about 1 MiB, `files` the uploads that name it.

-- A content whose `sha256` is null is still arriving: its chunks are written one statement at
-- a time while the upload streams in, and the upload's last transaction names it (or drops it
-- for an equal content the project already holds).
create table file_contents (
  id bigserial primary key,
  project_id text not null references projects (id) on delete cascade,
  sha256 bytea,
  size bigint not null default 0,
  created bigint not null
);
create unique index file_contents_sha256 on file_contents (project_id, sha256) where sha256 is not null;
create index file_contents_arriving on file_contents (created) where sha256 is null;

-- Stored as they come: images and archives do not compress, and skipping the attempt keeps a
-- large upload quick.
create table file_chunks (
  content_id bigint not null references file_contents (id) on delete cascade,
  seq integer not null,
  data bytea not null,
  primary key (content_id, seq)
);
alter table file_chunks alter column data set storage external;

-- `id` is 128 random bits (base64url), the address's secret part. `image` is the image type its
-- first bytes show (png, jpeg, gif, webp), else null. `kept` is set by the sweep once the
-- file was found referenced by a ticket's text a day after its upload: from then on it stays,
-- also when that text changes (the history still shows it).
create table files (
  id text primary key,
  project_id text not null references projects (id) on delete cascade,
  content_id bigint not null references file_contents (id),
  name text not null,
  type text not null,
  image text,
  size bigint not null,
  user_id text references users (id),
  by text not null,
  app text,
  created bigint not null,
  kept boolean not null default false
);
create index files_project on files (project_id, created);
create index files_content on files (content_id);
create index files_unchecked on files (created) where not kept;
