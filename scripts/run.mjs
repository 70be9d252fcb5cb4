/**
 * Runs a TypeScript entry of this project as JavaScript, the way `npm start` runs the services:
 *
 * ```sh
 * node scripts/run.mjs src/main.ts [arguments of the entry]
 * ```
 *
 * The entry and the project files it imports are bundled by esbuild into `.build/<hash>/` (the
 * packages in node_modules stay imports), then imported; the entry sees itself as
 * `process.argv[1]` and its own arguments after it, as under `node --import tsx`. A file whose
 * code reads `import.meta.url` gets its own file's address, so addresses relative to a source
 * file (the migrations in `sql/`, the browser scripts) point where they did.
 *
 * Why not tsx, which the tests use: its loader runs in a thread of its own with a compiler and
 * the source maps of every file it compiled, which cost a service process about 20 MB of memory
 * for as long as it runs, and 0.3 s of its start (docs/operations.md, "Memory").
 *
 * The bundle's directory is named by the hash of what was built, so processes started at once
 * from the same code share one, and a process started after an edit gets its own; directories
 * unused for a day are removed. Stack traces name the TypeScript files (source maps on).
 */
import { build, stop } from 'esbuild'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { nodeBundle } from './node-bundle.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const OUT = join(ROOT, '.build')
// Where esbuild places the files in memory; they are written under their hash instead.
const BUILT = join(OUT, 'out')
const KEEP_MS = 24 * 60 * 60 * 1000

const entry = process.argv[2]
if (!entry || !entry.endsWith('.ts')) {
  console.error('usage: node scripts/run.mjs <file.ts> [arguments]')
  process.exit(2)
}
const entryPath = resolve(entry)

// A dynamic import stays one: PGlite is loaded only when the embedded database is used.
const result = await build({
  ...nodeBundle,
  entryPoints: { main: entryPath },
  outdir: BUILT,
  write: false,
  logLevel: 'error',
})
// esbuild's service process (20 to 30 MB) is not needed again until the browser code is bundled.
await stop()

const hash = createHash('sha256')
for (const file of result.outputFiles)
  hash.update(relative(BUILT, file.path)).update('\0').update(file.contents)
const dir = join(OUT, hash.digest('hex').slice(0, 16))

if (!(await exists(dir))) {
  const temporary = join(OUT, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
  for (const file of result.outputFiles) {
    const target = join(temporary, relative(BUILT, file.path))
    await mkdir(dirname(target), { recursive: true })
    await writeFile(target, file.contents)
  }
  // Another process may have made the same directory meanwhile: its files are the same.
  await rename(temporary, dir).catch(() => rm(temporary, { recursive: true, force: true }))
} else {
  const now = new Date()
  await utimes(dir, now, now).catch(() => {})
}
await removeOld()

process.setSourceMapsEnabled(true)
process.argv.splice(1, 2, entryPath)
await import(pathToFileURL(join(dir, 'main.js')).href)

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  )
}

/** Bundles not used for a day, and leftovers of a start that stopped while writing. */
async function removeOld() {
  const names = await readdir(OUT).catch(() => [])
  for (const name of names) {
    const path = join(OUT, name)
    if (path === dir) continue
    const info = await stat(path).catch(() => null)
    if (info && Date.now() - info.mtimeMs > KEEP_MS)
      await rm(path, { recursive: true, force: true }).catch(() => {})
  }
}
