/**
 * Answers kept with the lists' version they were read at, which triggers move with every
 * committed write of the tables a list shows (sql/0019_lists_version_by_triggers.sql): an answer
 * is given back only when asked for at that same version, so no writer has to remember it. The
 * statement that reads an answer reads the version with it, so the two are of one snapshot.
 * Everything kept goes when an answer of a later version is kept; within a version at most
 * `limit` answers are kept, the least recently used dropped first.
 */
import { lruSet } from '../../base/lru.ts'

export interface KeptAtVersion<T> {
  /** The answer of `key` kept at version `at`, or undefined. */
  get(at: number, key: string): T | undefined
  /** Keeps `value` as the answer of `key` read at version `at`. */
  set(at: number, key: string, value: T): void
}

export function keptAtVersion<T>(limit: number): KeptAtVersion<T> {
  let version: number | null = null
  const kept = new Map<string, T>()
  return {
    get(at, key) {
      if (at !== version) return undefined
      const value = kept.get(key)
      // Used again: the most recently used.
      if (value !== undefined) lruSet(kept, key, value, limit)
      return value
    },
    set(at, key, value) {
      // An answer read before the one kept last is of no use to anyone asking now.
      if (limit === 0 || (version !== null && at < version)) return
      if (at !== version) {
        version = at
        kept.clear()
      }
      lruSet(kept, key, value, limit)
    },
  }
}
