-- Mail (docs/notifications.md, "Mail"): people's confirmed addresses at the built-in provider,
-- and the tracker's outbox of notification mails.

-- A confirmed address: only a link mailed to it, or an organisation's provider's verified
-- `email`, sets it. Null: the account gets no mail.
alter table idp_accounts add column email text;

-- A confirmation link mailed to a new address (24 hours, once; a newer one replaces it).
create table idp_email_links (
  id_hash text primary key,
  account_id text not null references idp_accounts (id) on delete cascade,
  email text not null,
  expires bigint not null
);
create index idp_email_links_account on idp_email_links (account_id);

-- The address a mail server refused at RCPT (a 5xx): no mail goes to the person while their
-- `email` is this address; confirming it again at the provider clears it.
alter table users add column mail_refused text;

-- Composed notification mails, sent at least once from here (src/tickets/workers/mail-worker.ts).
-- `message_id` is the same on every attempt; `leased_until` is the lease of the process sending
-- it, taken by one statement with FOR UPDATE SKIP LOCKED, so several processes send each once.
create table mail_outbox (
  id text primary key,
  user_id text not null references users (id) on delete cascade,
  ticket_id uuid not null references tickets (id) on delete cascade,
  -- The kind its unsubscribe link turns off ('assigned', 'mentioned', 'watching').
  reason text not null,
  message_id text not null,
  subject text not null,
  body_text text not null,
  body_html text not null,
  headers jsonb not null,
  state text not null default 'pending' check (state in ('pending', 'sent', 'failed', 'refused', 'cancelled')),
  attempts integer not null default 0,
  created bigint not null,
  next_at bigint not null,
  leased_until bigint not null default 0,
  done_at bigint,
  address text,
  last_error text
);
create index mail_outbox_due on mail_outbox (next_at) where state = 'pending';
create index mail_outbox_done on mail_outbox (done_at) where state <> 'pending';
create index mail_outbox_user on mail_outbox (user_id) where state = 'pending';
