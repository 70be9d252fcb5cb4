-- The built-in identity provider's accounts (docs/core.md, "Identity provider"). Every secret a
-- browser or a link carries (a provider session, a login code, a sign-up or reset link) is kept
-- only as the hex SHA-256 of its text, so a copy of the database opens nothing.

-- `name` signs in (unique whatever its case); `display_name` is what the apps show.
create table idp_accounts (
  id text primary key,
  name text not null,
  display_name text not null,
  password_hash text not null,
  is_owner boolean not null default false,
  disabled boolean not null default false,
  created bigint not null,
  last_sign_in bigint
);
create unique index idp_accounts_name on idp_accounts (lower(name));
-- At most one owner: the first run's "create the owner account" holds under concurrency.
create unique index idp_accounts_one_owner on idp_accounts (is_owner) where is_owner;

-- A browser signed in at the provider.
create table idp_sessions (
  id_hash text primary key,
  account_id text not null references idp_accounts (id) on delete cascade,
  created bigint not null,
  expires bigint not null
);
create index idp_sessions_account on idp_sessions (account_id);

-- One-time login codes handed to the services (60 s, single use by DELETE ... RETURNING).
create table idp_codes (
  code_hash text primary key,
  account_id text not null references idp_accounts (id) on delete cascade,
  expires bigint not null
);

-- Sign-up links the owner makes; `uses_left` counted down by one UPDATE ... WHERE uses_left > 0.
create table idp_signup_links (
  id_hash text primary key,
  uses_left integer not null,
  expires bigint not null,
  created bigint not null
);

-- One-time password reset links the owner makes for a person.
create table idp_reset_links (
  id_hash text primary key,
  account_id text not null references idp_accounts (id) on delete cascade,
  expires bigint not null
);

-- Passkeys (WebAuthn credentials): `id` is the credential id in base64url.
create table idp_passkeys (
  id text primary key,
  account_id text not null references idp_accounts (id) on delete cascade,
  public_key bytea not null,
  counter bigint not null,
  transports text not null default '',
  name text not null,
  created bigint not null,
  last_used bigint
);
create index idp_passkeys_account on idp_passkeys (account_id);
