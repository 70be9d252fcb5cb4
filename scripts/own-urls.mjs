/**
 * An esbuild plugin for bundling the project's TypeScript to run in node (scripts/run.mjs for
 * `npm start`, test/run.ts for the tests): each file's `import.meta.url` stays that file's
 * address, not the bundle's, so addresses relative to a source file (the migrations in `sql/`,
 * the browser scripts, a test's fixtures) point where they did.
 */
import { readFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'

/** @type {import('esbuild').Plugin} */
export const ownUrls = {
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
