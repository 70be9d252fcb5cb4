-- Session ids and invite ids are stored as their SHA-256, hex, as tokens are
-- (docs/core.md, "Sessions and credentials"): a copy of the database then holds no id a
-- cookie could be sealed around and no invite link that works. The cookie and the invite
-- link keep the raw id; the services hash it to look the row up.
update sessions set id = encode(sha256(convert_to(id, 'UTF8')), 'hex');
update invites set id = encode(sha256(convert_to(id, 'UTF8')), 'hex');
