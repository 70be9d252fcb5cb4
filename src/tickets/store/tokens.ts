/**
 * User tokens: the `tokens` table. Only a token's SHA-256 is stored; the callers hash.
 */
import type { Query } from '../../db/client.ts'
import type { User } from './users.ts'

/** A token as its owner's list shows it (never its secret). */
export interface TokenListing {
  id: string
  label: string
  created: number
  lastUsed: number | null
}

async function insertToken(
  q: Query,
  t: { id: string; userId: string; hash: string; label: string; now: number },
): Promise<void> {
  await q`
    insert into tokens (id, user_id, hash, label, created)
    values (${t.id}, ${t.userId}, ${t.hash}, ${t.label}, ${t.now})`
}

/** A user's tokens, oldest first. */
async function tokensOf(q: Query, userId: string): Promise<TokenListing[]> {
  const rows = await q<{ id: string; label: string; created: number; last_used: number | null }[]>`
    select id, label, created, last_used from tokens
    where user_id = ${userId} order by created, id`
  return rows.map((r) => ({ id: r.id, label: r.label, created: r.created, lastUsed: r.last_used }))
}

/** Deletes a user's token; false when they have none with that id. */
async function deleteToken(q: Query, userId: string, id: string): Promise<boolean> {
  const gone = await q`delete from tokens where id = ${id} and user_id = ${userId} returning id`
  return gone.length > 0
}

/** The token with `hash` and its user, or null. */
async function tokenByHash(
  q: Query,
  hash: string,
): Promise<{ id: string; lastUsed: number | null; user: User } | null> {
  const [row] = await q<{ token_id: string; last_used: number | null; id: string; name: string }[]>`
    select t.id as token_id, t.last_used, u.id, u.name
    from tokens t join users u on u.id = t.user_id
    where t.hash = ${hash}`
  return row
    ? { id: row.token_id, lastUsed: row.last_used, user: { id: row.id, name: row.name } }
    : null
}

/** Deletes every token of the user the identity provider knows as `idpId`. */
async function deleteTokensOfIdentity(q: Query, idpId: string): Promise<void> {
  await q`delete from tokens where user_id in (select id from users where idp_id = ${idpId})`
}

async function markTokenUsed(q: Query, id: string, now: number): Promise<void> {
  await q`update tokens set last_used = ${now} where id = ${id}`
}

/** User tokens on `q`; `clock` stamps creation and use. */
export function tokenTable(q: Query, clock: () => number) {
  return {
    /** Stores a token's hash; answers its creation time. */
    async insert(t: { id: string; userId: string; hash: string; label: string }): Promise<number> {
      const now = clock()
      await insertToken(q, { ...t, now })
      return now
    },
    of: (userId: string) => tokensOf(q, userId),
    delete: (userId: string, id: string) => deleteToken(q, userId, id),
    deleteOfIdentity: (idpId: string) => deleteTokensOfIdentity(q, idpId),
    byHash: (hash: string) => tokenByHash(q, hash),
    markUsed: (id: string) => markTokenUsed(q, id, clock()),
  }
}
