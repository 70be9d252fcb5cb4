/**
 * The node options of `npm start` (package.json `scripts.start`:
 * `exec node <options> src/main.ts`; `exec` so that the signals npm passes on reach node),
 * so that tests and benchmarks run a service's process the way it runs in production: with the
 * same memory settings and the same TypeScript loader.
 */
import { readFileSync } from 'node:fs'

const ENTRY = 'src/main.ts'

/** The options between `exec node` and `src/main.ts` in the start script, e.g. `['--import', 'tsx']`. */
export function startOptions(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
  const words = pkg.scripts.start.trim().split(/\s+/)
  if (words[0] !== 'exec' || words[1] !== 'node' || words.at(-1) !== ENTRY) {
    throw new Error(`the start script is not "exec node <options> ${ENTRY}": ${pkg.scripts.start}`)
  }
  return words.slice(2, -1)
}
