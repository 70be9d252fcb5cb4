-- The pages keep what is the same for everyone (the project switcher, a project's members and
-- tab counts, pages of its list) while the lists' version of 0009 stays the same
-- (src/tickets/store/page-reads.ts). Every write that changes them emits an event or counts as a
-- quiet write already, except a new project, which emits no event: it joins every page's
-- switcher, so it counts as a quiet write too.
create trigger projects_created
after insert on projects
for each row
execute function lists_changed();
