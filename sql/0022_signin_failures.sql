-- Failed passwords at the built-in provider (src/accounts/attempts.ts), shared by every process
-- of the database: one row per account and address, or per device cookie, keyed by a hash of
-- those (no name, address or cookie is stored). Rows older than a day are forgotten.
create table idp_signin_failures (
  key text primary key,
  failures integer not null,
  last_failure bigint not null
);
create index idp_signin_failures_last on idp_signin_failures (last_failure);
