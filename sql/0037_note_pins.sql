-- A person's pinned notes, which follow them to every device (docs/notes-api.md, "Pins"). One
-- row a note once it was pinned; `at` is the device's time of the last Pin or Unpin, and a
-- later choice wins, so two devices that chose offline agree once both are online.
create table note_pins (
  user_id text not null,
  note_id text not null,
  pinned boolean not null,
  at bigint not null,
  primary key (user_id, note_id)
);
