-- How many accounts a project invite may still make (src/tickets/account-hooks.ts): a sign-up
-- through an invite takes one in the same transaction as the account, so a 1-use invite makes
-- at most one account. Null (invites made before this column) counts as `uses_left`.
alter table invites add column signups_left integer;
