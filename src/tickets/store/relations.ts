/**
 * Relations between tickets: the `blockers` table, and the checks on the `parent_id` chain.
 * Relation changes take one transaction-scoped advisory lock ({@link lockRelations}), so two
 * concurrent changes cannot close a cycle between them.
 */
import type { Query } from '../../db/client.ts'

// Any constant will do, as long as it differs from the migrations' lock.
const RELATIONS_LOCK = 4_711_043

/** Serialises relation changes until the transaction ends. */
async function lockRelations(tx: Query): Promise<void> {
  await tx`select pg_advisory_xact_lock(${RELATIONS_LOCK})`
}

/** True when `ticketId` is `parentId` or one of its ancestors: setting the parent would close a cycle. */
export async function isAncestorOrSelf(
  tx: Query,
  ticketId: string,
  parentId: string,
): Promise<boolean> {
  const [cycle] = await tx`
    with recursive up(id) as (
      select parent_id from tickets where id = ${parentId}
      union
      select t.parent_id from tickets t join up on t.id = up.id
    )
    select 1 from up where id = ${ticketId}`
  return cycle !== undefined
}

export async function isBlockedBy(
  tx: Query,
  ticketId: string,
  blockerId: string,
): Promise<boolean> {
  const [existing] =
    await tx`select 1 from blockers where ticket_id = ${ticketId} and blocker_id = ${blockerId}`
  return existing !== undefined
}

/** True when `ticketId` already blocks `blockerId`, directly or through others. */
export async function blocks(tx: Query, ticketId: string, blockerId: string): Promise<boolean> {
  const [cycle] = await tx`
    with recursive chain(id) as (
      select blocker_id from blockers where ticket_id = ${blockerId}
      union
      select b.blocker_id from blockers b join chain c on b.ticket_id = c.id
    )
    select 1 from chain where id = ${ticketId}`
  return cycle !== undefined
}

export async function addBlocker(tx: Query, ticketId: string, blockerId: string): Promise<void> {
  await tx`insert into blockers (ticket_id, blocker_id) values (${ticketId}, ${blockerId})`
}

export async function removeBlocker(tx: Query, ticketId: string, blockerId: string): Promise<void> {
  await tx`delete from blockers where ticket_id = ${ticketId} and blocker_id = ${blockerId}`
}

/** Relations between tickets on `q` (a transaction: {@link lockRelations} holds until it ends). */
export function relationTable(q: Query) {
  return {
    lock: () => lockRelations(q),
    isAncestorOrSelf: (ticketId: string, parentId: string) =>
      isAncestorOrSelf(q, ticketId, parentId),
    isBlockedBy: (ticketId: string, blockerId: string) => isBlockedBy(q, ticketId, blockerId),
    blocks: (ticketId: string, blockerId: string) => blocks(q, ticketId, blockerId),
    addBlocker: (ticketId: string, blockerId: string) => addBlocker(q, ticketId, blockerId),
    removeBlocker: (ticketId: string, blockerId: string) => removeBlocker(q, ticketId, blockerId),
  }
}
