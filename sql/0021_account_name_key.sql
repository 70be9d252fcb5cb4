-- One normalisation of sign-in names (src/accounts/names.ts): the key the provider computes
-- (NFKC, then lower case by Unicode's rules) is stored beside the name and is what must be
-- unique, so the database, the lookup at sign-in and the sign-in limits agree on which name is
-- which account. PostgreSQL's lower() follows the server's locale (it turned `alİce` into
-- `alice`); existing rows get it here and the provider writes its own key from now on.
alter table idp_accounts add column name_key text;
update idp_accounts set name_key = lower(normalize(name, NFKC));
alter table idp_accounts alter column name_key set not null;
drop index idp_accounts_name;
create unique index idp_accounts_name on idp_accounts (name_key);
