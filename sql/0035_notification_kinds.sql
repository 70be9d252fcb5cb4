-- Notifications of the history's new kinds (sql/0034): a watcher is told of a change of a
-- ticket's labels, milestone or due date too.
alter table notifications drop constraint notifications_kind_check;
alter table notifications add constraint notifications_kind_check
  check (kind in ('created', 'comment', 'state', 'assign', 'edit', 'link', 'label', 'milestone', 'due'));
