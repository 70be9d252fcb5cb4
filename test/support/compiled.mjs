/**
 * `node --import ./test/support/compiled.mjs file.ts`: how test/run.ts starts a test file.
 * `TEST_COMPILED` is the folder (a file URL) where test/run.ts compiled the project's
 * TypeScript; compiled-hooks.mjs loads it from there. Source maps on, so stack traces name the
 * TypeScript files and lines, as under tsx.
 */
import { register } from 'node:module'

const out = process.env.TEST_COMPILED
if (!out) throw new Error('TEST_COMPILED is unset: test/run.ts sets it')
const root = new URL('../../', import.meta.url).href
register('./compiled-hooks.mjs', import.meta.url, { data: { root, out } })
process.setSourceMapsEnabled(true)
