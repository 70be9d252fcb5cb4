/**
 * Waiting in tests without timing: a promise another part of the test settles, and a loop until
 * a condition holds. Neither has a time limit of its own; the test's timeout bounds them.
 */

/** A promise and the function that fulfils it (Promise.withResolvers arrives in node 22). */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

/** Waits until `condition` holds, asking again every few milliseconds. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5))
}
