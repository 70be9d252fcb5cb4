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

/** What {@link lruMemo} compares with `===`. */
type Argument = string | number | boolean | null

/**
 * `fn` with its answers cached, one for each value of its first argument and at most `limit`
 * of them, the least recently used dropped first. A cached answer is used only while every
 * argument is the same (`===`) as when it was computed, so `fn` must be a pure function of its
 * arguments: then a cached answer is the answer.
 */
export function lruMemo<A extends readonly [Argument, ...Argument[]], R>(fn: (...args: A) => R, limit: number): (...args: A) => R {
  const answers = new Map<Argument, { args: A; answer: R }>()
  return (...args: A): R => {
    let cached = answers.get(args[0])
    if (cached === undefined || !args.every((arg, i) => arg === cached!.args[i])) cached = { args, answer: fn(...args) }
    lruSet(answers, args[0], cached, limit)
    return cached.answer
  }
}
