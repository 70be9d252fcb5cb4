/**
 * How `npm start` runs a service (package.json `scripts.start`:
 * `exec node <options> scripts/run.mjs src/main.ts`; `exec` so that the signals npm passes on
 * reach node), so that tests and benchmarks run a service's process the way it runs in
 * production: with the same node options and as the same bundled JavaScript (scripts/run.mjs).
 */
import { readFileSync } from 'node:fs'

const RUNNER = 'scripts/run.mjs'
const ENTRY = 'src/main.ts'

/** The node options between `exec node` and the runner in the start script, e.g. `['--max-old-space-size=512']`. */
export function startOptions(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string }
  }
  const words = pkg.scripts.start.trim().split(/\s+/)
  if (
    words[0] !== 'exec' ||
    words[1] !== 'node' ||
    words.at(-2) !== RUNNER ||
    words.at(-1) !== ENTRY
  ) {
    throw new Error(
      `the start script is not "exec node <options> ${RUNNER} ${ENTRY}": ${pkg.scripts.start}`,
    )
  }
  return words.slice(2, -2)
}

/**
 * The arguments of `node` that run `entry` (a TypeScript file of the project, `src/main.ts` by
 * default) as `npm start` runs the services: `nodeOptions` (the start script's unless given),
 * the runner, the entry and its `args`. Run from the project's directory.
 */
export function startCommand(
  entry = ENTRY,
  args: string[] = [],
  nodeOptions = startOptions(),
): string[] {
  return [...nodeOptions, RUNNER, entry, ...args]
}
