/**
 * Module hooks for the test files test/run.ts starts (registered by compiled.mjs): a project's
 * `.ts` file is loaded from the JavaScript that test/run.ts compiled from it once per run, under
 * its own address, so `import.meta.url` and every import are what they are under tsx. A file
 * compiled after the run began (or outside the folders compiled) is compiled here on its own.
 *
 * Why not tsx, as before: its loader compiles nothing here once its cache is warm, but it costs
 * each process about 0.3 s of CPU to start (its compiler and its cache's hashing in the loader
 * thread), which over 120 unit test files was a fifth of the tier's CPU time.
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The project's folder and where its compiled copy is, as file URLs ending in `/`. */
let root = ''
let out = ''

/** @param {{ root: string, out: string }} data */
export function initialize(data) {
  root = data.root
  out = data.out
}

/**
 * @param {string} url
 * @param {object} context
 * @param {(url: string, context: object) => Promise<object>} next
 */
export async function load(url, context, next) {
  const { pathname } = new URL(url)
  if (!url.startsWith(root) || !pathname.endsWith('.ts') || pathname.includes('/node_modules/'))
    return next(url, context)
  const compiled = new URL(`${pathname.slice(new URL(root).pathname.length, -3)}.js`, out)
  const source =
    (await readFile(compiled, 'utf8').catch(() => null)) ?? (await compile(fileURLToPath(url)))
  return { format: 'module', source, shortCircuit: true }
}

/**
 * How a project file is compiled, here and by test/run.ts for the whole run.
 * @param {string} path
 */
export function transformOptions(path) {
  return {
    loader: 'ts',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: path,
  }
}

/** Compiles one file as test/run.ts compiles them all. */
async function compile(path) {
  const { transform } = await import('esbuild')
  const { code } = await transform(await readFile(path, 'utf8'), transformOptions(path))
  return code
}
