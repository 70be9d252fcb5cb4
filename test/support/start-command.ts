/**
 * The node options of `npm start` (package.json `scripts.start`: `node <options> src/main.ts`),
 * so that tests and benchmarks run a service's process the way it runs in production: with the
 * same memory settings and the same TypeScript loader.
 */
import { readFileSync } from 'node:fs'

const ENTRY = 'src/main.ts'

/** The options between `node` and `src/main.ts` in the start script, e.g. `['--import', 'tsx']`. */
export function startOptions(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
  const words = pkg.scripts.start.trim().split(/\s+/)
  if (words[0] !== 'node' || words.at(-1) !== ENTRY) throw new Error(`the start script is not "node <options> ${ENTRY}": ${pkg.scripts.start}`)
  return words.slice(1, -1)
}
