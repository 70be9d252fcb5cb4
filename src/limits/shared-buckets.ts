/**
 * The table `rate_limits` (sql/0008_rate_limits.sql): the token buckets that the processes of one
 * PostgreSQL server share, for src/limits/rate-limit.ts. Each process sends, about once a second, what
 * it counted for each bucket it used, and takes back the bucket's level, which the other
 * processes' counts have lowered too (docs/operations.md, "Rate limits").
 *
 * @module
 */
import type { Sql } from '../db/client.ts'
import type { BucketCount, SharedBuckets } from './rate-limit.ts'

/** The shared buckets of service `scope` on `sql`. */
export function createSharedBuckets(sql: Sql, scope: string): SharedBuckets {
  return {
    scope,
    async exchange(counts, now) {
      const rows = await sql<{ key: string; tokens: number }[]>`
        insert into rate_limits as r (key, tokens, rate, burst, updated)
        select t.key, t.burst - t.spent, t.rate, t.burst, ${now}
        from jsonb_to_recordset(${JSON.stringify(counts satisfies readonly BucketCount[])}::text::jsonb)
          as t(key text, spent float8, rate float8, burst float8)
        on conflict (key) do update set
          -- excluded.tokens is burst - spent (the new row's value), so burst - excluded.tokens is
          -- what this process spent. A level below zero is a debt that all processes wait out.
          tokens = greatest(-excluded.burst,
            least(excluded.burst, r.tokens + excluded.rate * greatest(0, excluded.updated - r.updated) / 1000.0)
            - (excluded.burst - excluded.tokens)),
          rate = excluded.rate,
          burst = excluded.burst,
          updated = greatest(r.updated, excluded.updated)
        returning key, tokens`
      return new Map(rows.map((row) => [row.key, Number(row.tokens)]))
    },
    async sweep(now) {
      await sql`delete from rate_limits where tokens + rate * (${now} - updated) / 1000.0 >= burst`
    },
  }
}
