/**
 * How the project's TypeScript is bundled to run in node, the same for `npm start`
 * (scripts/run.mjs) and for the tests (test/run.ts): ES modules for node 20, a dynamic import
 * kept as one (in a chunk of its own), the packages in node_modules left as imports, linked
 * source maps without the sources (stack traces name the TypeScript files, which stay where they
 * are), and each file's `import.meta.url` its own file's address, not the bundle's, so addresses
 * relative to a source file (the migrations in `sql/`, the browser scripts, a test's fixtures)
 * point where they did. A caller adds its entries and where the output goes.
 */
import { readFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'

/** @type {import('esbuild').Plugin} */
const ownUrls = {
  name: 'own-file-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8')
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: 'ts',
      }
    })
  },
}

/** @type {import('esbuild').BuildOptions} */
export const nodeBundle = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  sourcesContent: false,
  plugins: [ownUrls],
}
