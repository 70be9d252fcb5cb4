/**
 * Connected apps: waiting connect requests (`connect_requests`), one-time codes
 * (`connect_codes`) and the connections with their project keys (`connections`). Secrets are
 * stored as hashes only; the callers hash.
 */
import type { Query } from '../../db/client.ts'

/** A connection as the API shows it. */
export interface Connection {
  id: string
  app: string
  label: string
  /** The person who confirmed it, as whom its key acts. */
  by: { id: string; name: string }
  created: number
  lastUsed: number | null
}

/** A waiting request, as the connect page and the confirmation read it. */
export interface WaitingRequest {
  app: string
  label: string
  /** The normalised absolute `return` address. */
  returnUrl: string
  state: string
}

/** A project key's connection, as credentials read it. */
export interface KeyRow {
  id: string
  projectId: string
  userId: string
  label: string
  lastUsed: number | null
}

/** The connections of a project, oldest first (or the one with `id`). */
async function connectionsOf(q: Query, projectId: string, id?: string): Promise<Connection[]> {
  const rows = await q<
    {
      id: string
      app: string
      label: string
      created: number
      last_used: number | null
      user_id: string
      name: string
    }[]
  >`
    select c.id, c.app, c.label, c.created, c.last_used, u.id as user_id, u.name
    from connections c join users u on u.id = c.user_id
    where c.project_id = ${projectId} ${id === undefined ? q`` : q`and c.id = ${id}`}
    order by c.created, c.id`
  return rows.map((r) => ({
    id: r.id,
    app: r.app,
    label: r.label,
    by: { id: r.user_id, name: r.name },
    created: r.created,
    lastUsed: r.last_used ?? null,
  }))
}

/** The projects `userId` administers, for the connect page. */
export function adminProjects(
  q: Query,
  userId: string,
): Promise<{ id: string; slug: string; title: string }[]> {
  return q<{ id: string; slug: string; title: string }[]>`
    select p.id, p.slug, p.title from members m join projects p on p.id = m.project_id
    where m.user_id = ${userId} and m.role = 'admin'
    order by lower(p.title), p.slug`
}

interface RequestRow {
  app: string
  label: string
  return_url: string
  state: string
}

const requestOf = (r: RequestRow): WaitingRequest => ({
  app: r.app,
  label: r.label,
  returnUrl: r.return_url,
  state: r.state,
})

/** Drops requests and codes nobody can use any more, then stores a new request. */
export async function insertRequest(
  q: Query,
  r: WaitingRequest & { hash: string; now: number; expires: number },
): Promise<void> {
  await q`delete from connect_requests where expires <= ${r.now}`
  await q`delete from connect_codes where expires <= ${r.now}`
  await q`
    insert into connect_requests (hash, app, label, return_url, state, created, expires)
    values (${r.hash}, ${r.app}, ${r.label}, ${r.returnUrl}, ${r.state}, ${r.now}, ${r.expires})`
}

/** The waiting request with `hash`, or null when it is unknown, used or expired. */
export async function waitingRequest(
  q: Query,
  hash: string,
  now: number,
): Promise<WaitingRequest | null> {
  const [row] = await q<
    RequestRow[]
  >`select app, label, return_url, state from connect_requests where hash = ${hash} and expires > ${now}`
  return row ? requestOf(row) : null
}

/** Uses up the waiting request with `hash`; null when it is unknown, used or expired. */
export async function takeRequest(
  tx: Query,
  hash: string,
  now: number,
): Promise<WaitingRequest | null> {
  const [row] = await tx<RequestRow[]>`
    delete from connect_requests where hash = ${hash} and expires > ${now}
    returning app, label, return_url, state`
  return row ? requestOf(row) : null
}

export async function insertCode(
  tx: Query,
  c: {
    hash: string
    projectId: string
    userId: string
    app: string
    label: string
    now: number
    expires: number
  },
): Promise<void> {
  await tx`
    insert into connect_codes (hash, project_id, user_id, app, label, created, expires)
    values (${c.hash}, ${c.projectId}, ${c.userId}, ${c.app}, ${c.label}, ${c.now}, ${c.expires})`
}

/** Uses the code with `hash` once, by one statement; null when unknown, used or expired. */
export async function useCode(
  tx: Query,
  hash: string,
  now: number,
): Promise<{ projectId: string; userId: string; app: string; label: string } | null> {
  const [row] = await tx<{ project_id: string; user_id: string; app: string; label: string }[]>`
    update connect_codes set used = ${now}
    where hash = ${hash} and used is null and expires > ${now}
    returning project_id, user_id, app, label`
  return row
    ? { projectId: row.project_id, userId: row.user_id, app: row.app, label: row.label }
    : null
}

async function insertConnection(
  tx: Query,
  c: {
    id: string
    projectId: string
    userId: string
    app: string
    label: string
    hash: string
    now: number
  },
): Promise<void> {
  await tx`
    insert into connections (id, project_id, user_id, app, label, hash, created)
    values (${c.id}, ${c.projectId}, ${c.userId}, ${c.app}, ${c.label}, ${c.hash}, ${c.now})`
}

async function deleteConnection(tx: Query, id: string): Promise<void> {
  await tx`delete from connections where id = ${id}`
}

/** The connection of a project key's hash, or null. */
async function connectionByHash(q: Query, hash: string): Promise<KeyRow | null> {
  const [row] = await q<
    { id: string; project_id: string; user_id: string; label: string; last_used: number | null }[]
  >`
    select id, project_id, user_id, label, last_used from connections where hash = ${hash}`
  return row
    ? {
        id: row.id,
        projectId: row.project_id,
        userId: row.user_id,
        label: row.label,
        lastUsed: row.last_used,
      }
    : null
}

async function markConnectionUsed(q: Query, id: string, now: number): Promise<void> {
  await q`update connections set last_used = ${now} where id = ${id}`
}

/**
 * Removes the connections (project keys) the person of provider id `idpId` confirmed, and with
 * them the webhooks those keys made (`on delete cascade`), and their unused connect codes.
 */
async function deleteConnectionsOfIdentity(q: Query, idpId: string): Promise<void> {
  await q`delete from connections where user_id in (select id from users where idp_id = ${idpId})`
  await q`delete from connect_codes where used is null and user_id in (select id from users where idp_id = ${idpId})`
}

/** Connect requests, codes and connections on `q`; `clock` stamps them and decides what has expired. */
export function connectionTable(q: Query, clock: () => number) {
  return {
    of: (projectId: string, id?: string) => connectionsOf(q, projectId, id),
    adminProjects: (userId: string) => adminProjects(q, userId),
    /** Stores a request waiting `lifetime` ms (dropping those nobody can use any more). */
    insertRequest(r: WaitingRequest & { hash: string }, lifetime: number) {
      const now = clock()
      return insertRequest(q, { ...r, now, expires: now + lifetime })
    },
    waitingRequest: (hash: string) => waitingRequest(q, hash, clock()),
    takeRequest: (hash: string) => takeRequest(q, hash, clock()),
    /** Stores a code to be exchanged within `lifetime` ms. */
    insertCode(
      c: { hash: string; projectId: string; userId: string; app: string; label: string },
      lifetime: number,
    ) {
      const now = clock()
      return insertCode(q, { ...c, now, expires: now + lifetime })
    },
    useCode: (hash: string) => useCode(q, hash, clock()),
    insert: (c: {
      id: string
      projectId: string
      userId: string
      app: string
      label: string
      hash: string
    }) => insertConnection(q, { ...c, now: clock() }),
    delete: (id: string) => deleteConnection(q, id),
    deleteOfIdentity: (idpId: string) => deleteConnectionsOfIdentity(q, idpId),
    byHash: (hash: string) => connectionByHash(q, hash),
    markUsed: (id: string) => markConnectionUsed(q, id, clock()),
  }
}
