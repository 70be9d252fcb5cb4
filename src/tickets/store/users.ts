/**
 * The users aggregate: people who have logged in, and user references (docs/tickets-api.md,
 * "Conventions", User references): a display name, a user id or an identity-provider id, resolved
 * among the users who have logged in.
 */
import type { Query } from '../../db/client.ts'
import type { Identity } from '../../auth/idp.ts'
import { recordId } from '../../base/random.ts'
import { refuse, type Refusal } from '../../http/refusal.ts'
import { ambiguousUser, noSuchMember, noSuchUser } from '../rules/messages.ts'

export interface User {
  id: string
  name: string
}

/**
 * Stores the identity's user, created on first login; name and email follow the provider. A
 * login that changes neither writes no row, so the lists' version stays (sql/0017).
 */
export async function storeUser(q: Query, identity: Identity, now: number): Promise<User> {
  const [written] = await q<User[]>`
    insert into users (id, idp_id, name, email, created)
    values (${recordId()}, ${identity.id}, ${identity.name}, ${identity.email ?? null}, ${now})
    on conflict (idp_id) do update set name = excluded.name, email = coalesce(excluded.email, users.email)
      where (users.name, users.email) is distinct from (excluded.name, coalesce(excluded.email, users.email))
    returning id, name`
  const [row] = written
    ? [written]
    : await q<User[]>`select id, name from users where idp_id = ${identity.id}`
  return { id: row.id, name: row.name }
}

/** The user of an id, or null. */
async function userById(q: Query, id: string): Promise<User | null> {
  const [row] = await q<User[]>`select id, name from users where id = ${id}`
  return row ? { id: row.id, name: row.name } : null
}

/** The user the identity provider knows as `idpId`, or null (they never signed in here). */
async function userByIdentity(q: Query, idpId: string): Promise<User | null> {
  const [row] = await q<User[]>`select id, name from users where idp_id = ${idpId}`
  return row ? { id: row.id, name: row.name } : null
}

/** The user of an id when they are a member of the project, or null. */
export async function memberById(q: Query, projectId: string, id: string): Promise<User | null> {
  const [row] = await q<User[]>`
    select u.id, u.name from members m join users u on u.id = m.user_id
    where m.project_id = ${projectId} and m.user_id = ${id}`
  return row ? { id: row.id, name: row.name } : null
}

/** A user a reference may name: 0 by id, 1 by provider id, 2 by display name. */
interface RefRow {
  id: string
  name: string
  rank: 0 | 1 | 2
}

/**
 * Resolves a user reference among everyone who has logged in, or with `projectId` among that
 * project's members. An id wins over a provider id, which wins over a display name; a display
 * name two people share is refused. Refusals are 400 naming `field`.
 */
export async function resolveUser(
  q: Query,
  ref: string,
  field: string,
  projectId?: string,
): Promise<{ ok: true; user: User } | Refusal> {
  const rows =
    projectId === undefined
      ? await q<RefRow[]>`
        select id, name, case when id = ${ref} then 0 when idp_id = ${ref} then 1 else 2 end as rank
        from users where id = ${ref} or idp_id = ${ref} or name = ${ref}
        order by rank limit 2`
      : await q<RefRow[]>`
        select u.id, u.name, case when u.id = ${ref} then 0 when u.idp_id = ${ref} then 1 else 2 end as rank
        from users u join members m on m.user_id = u.id and m.project_id = ${projectId}
        where u.id = ${ref} or u.idp_id = ${ref} or u.name = ${ref}
        order by rank limit 2`
  const [first, second] = rows
  if (!first)
    return refuse(400, projectId === undefined ? noSuchUser(ref) : noSuchMember(ref), field)
  if (first.rank === 2 && second) return refuse(400, ambiguousUser(ref), field)
  return { ok: true, user: { id: first.id, name: first.name } }
}

/** Users on `q`; `clock` stamps a first login. */
export function userTable(q: Query, clock: () => number) {
  return {
    /** Stores the identity's user, created on first login. */
    store: (identity: Identity) => storeUser(q, identity, clock()),
    byId: (id: string) => userById(q, id),
    byIdentity: (idpId: string) => userByIdentity(q, idpId),
    memberById: (projectId: string, id: string) => memberById(q, projectId, id),
    /**
     * The confirmed address the built-in provider gives the person of `idpId` (null: removed); a
     * refused address is cleared, since confirming it again is what lifts the stop.
     */
    async setEmail(idpId: string, email: string | null): Promise<void> {
      await q`update users set email = ${email}, mail_refused = null where idp_id = ${idpId}`
    },
    /** The person's address when a mail server refused it and it is still theirs, else null. */
    async refusedEmail(idpId: string): Promise<string | null> {
      const [row] = await q<{ email: string }[]>`
        select email from users where idp_id = ${idpId} and email = mail_refused`
      return row?.email ?? null
    },
    /** Resolves a user reference (among a project's members with `projectId`); refusals name `field`. */
    resolve: (ref: string, field: string, projectId?: string) =>
      resolveUser(q, ref, field, projectId),
  }
}
