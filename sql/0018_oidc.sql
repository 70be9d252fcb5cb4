-- Sign-in through an organisation's OpenID Connect provider (docs/core.md, "Identity provider").
-- A person there is the pair (issuer, subject), never an email, which can change hands.
create table idp_oidc_identities (
  issuer text not null,
  subject text not null,
  account_id text not null references idp_accounts (id) on delete cascade,
  created bigint not null,
  primary key (issuer, subject)
);
-- One identity per issuer for an account: linking another replaces it.
create unique index idp_oidc_identities_account on idp_oidc_identities (account_id, issuer);

-- One-time links the owner makes so a person with a built-in account links their identity.
create table idp_oidc_links (
  id_hash text primary key,
  account_id text not null references idp_accounts (id) on delete cascade,
  expires bigint not null
);

-- A login code may carry a failure instead of an account: the exchange answers its reason as
-- the error text, so the services show it on their failure page (decisions, section 3).
alter table idp_codes alter column account_id drop not null;
alter table idp_codes add column failure text;
alter table idp_codes add constraint idp_codes_account_or_failure check ((account_id is null) <> (failure is null));
