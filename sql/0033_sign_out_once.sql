-- Sign out once (issue 36, point 2): each provider session has a sign-in id (`sid`, as OpenID
-- Connect's back-channel logout names it) that the login codes carry and the exchange hands the
-- app, which keeps it in its session's data. Ending the provider session ends every app session
-- of that browser by it.
alter table idp_sessions add column sid text;
update idp_sessions set sid = id_hash;
alter table idp_sessions alter column sid set not null;
create unique index idp_sessions_sid on idp_sessions (sid);
alter table idp_codes add column sid text;
create index sessions_idp_sid on sessions ((data ->> 'idpSid')) where data ? 'idpSid';
