/**
 * The bounded in-process caches' one rule of eviction: a `Map` iterates in insertion order, so
 * an entry set again goes last and the first key is the least recently set.
 */

/** Sets `key` to `value` as the most recently used entry of `map`, dropping the least recently used once it holds more than `limit`. */
export function lruSet<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key)
  map.set(key, value)
  if (map.size > limit) map.delete(map.keys().next().value as K)
}
