-- Rate limits shared by the processes of one PostgreSQL server (src/rate-limit.ts,
-- docs/operations.md "Rate limits"). Each process keeps its own token buckets in memory and,
-- about once a second, subtracts what it counted from the row of each bucket it used and takes
-- back the row's level, which the other processes' counts have lowered too.
-- `key` is a hash of the service, the class of route and the credential or address: no
-- credential or address is stored. `tokens` is the level as of `updated` (ms since the epoch);
-- below zero it is a debt the processes wait out. A row whose bucket has refilled is deleted.
create table rate_limits (
  key text primary key,
  tokens double precision not null,
  rate double precision not null,
  burst double precision not null,
  updated bigint not null
);
