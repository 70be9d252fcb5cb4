/**
 * A transaction with one round trip less at each end than `sql.begin`, which waits for its
 * `begin` before the first statement and sends `commit` only after the last has answered.
 * Here `begin` goes out just ahead of the first statement and `commit` just behind the last,
 * on a connection of their own, so the server answers each pair in one round trip: a write of
 * four statements between them waits for four answers, not six. (postgres.js pipelines only
 * a whole array returned by `sql.begin`'s callback: porsager/postgres#951,
 * https://github.com/porsager/postgres/issues/951.) This relies on the driver writing the queries
 * made on a reserved connection in one turn together; test/library-contracts.test.ts checks it.
 *
 * ```ts
 * const id = await transaction(sql, async (tx) => (await tx`insert ... returning id`)[0].id,
 *   (tx) => tx`select pg_notify('x', '')`)
 * ```
 *
 * @module
 */
import type { PendingQuery, ReservedSql, Row } from 'postgres'
import { isDatabaseUnavailable, type Sql } from './client.ts'

/** A connection of one transaction's own. */
export type TransactionQuery = ReservedSql<{ bigint: number }>

/** Runs of a transaction whose connection failed before its `commit` was sent, in all. */
export const CONNECTION_ATTEMPTS = 2

/**
 * Runs `fn` in one transaction, then the statement `last` makes (when given and it makes one),
 * which travels with `commit`, and commits. An error anywhere (thrown by `fn`, or a statement's)
 * rolls everything back and is thrown: when `last`'s statement fails, the server answers the
 * `commit` behind it by rolling back.
 *
 * When its connection fails (a restart, a cut, a connection found dead) before the `commit` was
 * sent, nothing of the transaction can have been kept, and it is run once more from the start,
 * `fn` included, on another connection: `fn` must keep nothing outside the transaction. A
 * failure once the `commit` is on its way is thrown: whether it was kept is unknown. So is a
 * failure to get a connection at all.
 *
 * `last` answers the statement unsent (a query not awaited): postgres.js sends a query a
 * microtask after it is first awaited or executed, so this function executes it just before the
 * `commit`, and the two leave in that order.
 */
export async function transaction<T>(
  sql: Sql,
  fn: (tx: TransactionQuery) => Promise<T>,
  last?: (tx: TransactionQuery, value: T) => PendingQuery<Row[]> | null,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const run = { connected: false, committing: false }
    try {
      return await transactionOnce(sql, fn, last, run)
    } catch (err) {
      // No connection to be had (the database down) is answered at once: another try would
      // only make the request wait as long again.
      if (
        attempt < CONNECTION_ATTEMPTS &&
        run.connected &&
        !run.committing &&
        isDatabaseUnavailable(err)
      )
        continue
      throw err
    }
  }
}

/** One run of {@link transaction}; `run` says whether it had a connection, and whether the `commit` was sent. */
async function transactionOnce<T>(
  sql: Sql,
  fn: (tx: TransactionQuery) => Promise<T>,
  last: ((tx: TransactionQuery, value: T) => PendingQuery<Row[]> | null) | undefined,
  run: { connected: boolean; committing: boolean },
): Promise<T> {
  const tx = (await sql.reserve()) as TransactionQuery
  run.connected = true
  try {
    // Queries go out as they are made; `fn`'s first follows `begin` on the wire. Both are
    // waited for, so that `fn` has ended before the transaction may be run again.
    const [begun, ran] = await Promise.allSettled([tx`begin`.execute(), fn(tx)])
    if (begun.status === 'rejected') throw begun.reason
    if (ran.status === 'rejected') throw ran.reason
    const value = ran.value
    const ending = last?.(tx, value)?.execute() ?? null
    run.committing = true
    // Both answered before the connection goes back to the pool.
    const [ended, committed] = await Promise.allSettled([ending, tx`commit`.execute()])
    if (ended.status === 'rejected') throw ended.reason
    if (committed.status === 'rejected') throw committed.reason
    return value
  } catch (err) {
    // The transaction may still be open: roll it back. On a connection that closed this fails
    // at once (the server rolled back already), and is of no matter.
    if (!run.committing) await tx`rollback`.catch(() => {})
    throw err
  } finally {
    tx.release()
  }
}
