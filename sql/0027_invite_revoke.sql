-- Invites a project's admins can see again and revoke (issue 36): how many uses an invite was
-- made with (older invites: what they had left), and when it was revoked, if it was.
alter table invites add column uses integer;
update invites set uses = uses_left;
alter table invites alter column uses set not null;
alter table invites add column revoked bigint;
create index invites_project on invites (project_id);
