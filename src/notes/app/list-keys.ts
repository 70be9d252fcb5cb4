/**
 * The arrow keys between the search box and the list's results: Down from the box goes to the
 * first result, Down and Up move through the results, Up from the first goes back to the box;
 * Home and End go to the first and last result. Enter on a result opens it (it is a button).
 *
 * @module
 */

/** Where the search box stands in {@link moveTo}'s answers. */
export const SEARCH_BOX = -1

/**
 * Where focus goes when `key` is pressed at `from` (a result's index, or {@link SEARCH_BOX})
 * in a list of `count` results: an index, {@link SEARCH_BOX}, or null when the key is not ours
 * (it then does what it always does, such as moving the caret in the box).
 */
export function moveTo(key: string, from: number, count: number): number | null {
  if (count === 0) return null
  if (from === SEARCH_BOX) return key === 'ArrowDown' ? 0 : null
  if (key === 'ArrowDown') return Math.min(from + 1, count - 1)
  if (key === 'ArrowUp') return from === 0 ? SEARCH_BOX : from - 1
  if (key === 'Home') return 0
  if (key === 'End') return count - 1
  return null
}
