/**
 * Backups and restores (docs/operations.md, "Backups and restores"):
 *
 *   npm run backup -- <file>            writes a backup of the database to <file>
 *   npm run restore -- <file> [--yes]   puts the backup in <file> in DATA_DIR
 *
 * The embedded database: a backup works while the service runs. The process that holds the data
 * directory writes it (src/db/online-backup.ts, asked through the lock, src/db/data-dir-lock.ts),
 * and writes go on meanwhile; with no process running, this one opens the database and does the
 * same. A restore needs the service stopped. It says what it replaces, and replaces an existing
 * database only with `--yes`, keeping it beside as `pglite.replaced-<time>`.
 *
 * PostgreSQL (DATABASE_URL): a backup is `pg_dump --format=custom`; a restore is pg_restore's,
 * by hand (the docs have the commands).
 */
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream, existsSync } from 'node:fs'
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, normalize, resolve } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import tar from 'tar-stream'
import { PGlite } from '@electric-sql/pglite'
import { loadConfig, loadEnvFile } from '../src/config.ts'
import { lockDataDir, requestBackup } from '../src/db/data-dir-lock.ts'
import { START_PARAMS } from '../src/db/embedded.ts'
import { writeOnlineBackup } from '../src/db/online-backup.ts'

const [command, ...rest] = process.argv.slice(2)
const yes = rest.includes('--yes')
const files = rest.filter((a) => a !== '--yes')
const file = files[0]
if ((command !== 'backup' && command !== 'restore') || !file || files.length > 1) {
  console.error(
    'usage: npm run backup -- <file.tar.gz>   or   npm run restore -- <file.tar.gz> [--yes]',
  )
  process.exit(2)
}

try {
  loadEnvFile()
  const config = loadConfig()
  if (command === 'backup') {
    if (config.databaseUrl) await pgDump(config.databaseUrl, file)
    else await backup(config.dataDir, file)
  } else {
    if (config.databaseUrl)
      throw new Error(
        'DATABASE_URL is set: restore a PostgreSQL server with pg_restore (docs/operations.md, "Backups and restores")',
      )
    await restore(config.dataDir, file, yes)
  }
} catch (err) {
  console.error(`${command}: ${(err as Error).message}`)
  process.exit(1)
}

async function backup(dataDir: string, target: string): Promise<void> {
  const pgdata = join(dataDir, 'pglite')
  const partial = `${target}.partial`
  const served = existsSync(dataDir) ? await requestBackup(dataDir) : null
  if (served !== null) {
    await pipeline(served, createWriteStream(partial))
  } else {
    // No process runs on the folder: this one opens it, holding the lock meanwhile.
    if (!existsSync(join(pgdata, 'PG_VERSION')))
      throw new Error(`${resolve(pgdata)} holds no database to back up`)
    const lock = await lockDataDir(dataDir)
    try {
      const db = await PGlite.create(pgdata, { startParams: START_PARAMS })
      try {
        await writeOnlineBackup(
          pgdata,
          async (statement) => (await db.query<Record<string, unknown>>(statement)).rows,
          createWriteStream(partial),
        )
      } finally {
        await db.close()
      }
    } finally {
      await lock.release()
    }
  }
  // Read back whole before it takes the name: a cut connection leaves no backup that looks whole.
  const read = await readBackup(partial, null).catch(async (err: unknown) => {
    await rm(partial, { force: true })
    throw new Error(`the backup came out unreadable (${(err as Error).message}); nothing written`)
  })
  await rename(partial, target)
  console.log(
    `backup: ${resolve(pgdata)} written to ${target} (${megabytes(read.bytes)} of files, ${megabytes((await stat(target)).size)} compressed${served ? ', while the service ran' : ''})`,
  )
}

async function restore(dataDir: string, source: string, replace: boolean): Promise<void> {
  const pgdata = join(dataDir, 'pglite')
  const lock = await lockDataDir(dataDir).catch((err: Error) => {
    throw new Error(
      `${err.message} A restore replaces the database that process serves: stop the service first.`,
    )
  })
  try {
    const checked = await readBackup(source, null)
    if (!checked.hasVersion) throw new Error(`${source} holds no database (no PG_VERSION)`)
    const what = `the backup ${source}${checked.taken ? ` (taken ${checked.taken})` : ''}`
    let keptAs: string | null = null
    if (existsSync(join(pgdata, 'PG_VERSION'))) {
      const current = await describe(pgdata)
      console.log(
        `restore: this replaces the database in ${resolve(pgdata)} (${megabytes(current.bytes)}, last written ${current.lastWritten}) with ${what}.`,
      )
      keptAs = `${pgdata}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`
      if (!replace)
        throw new Error(
          `nothing replaced: run again with --yes (npm run restore -- ${source} --yes); the current database will be kept as ${resolve(keptAs)}`,
        )
    } else console.log(`restore: ${resolve(pgdata)} holds no database; restoring ${what}.`)
    const restoring = `${pgdata}.restoring`
    await rm(restoring, { recursive: true, force: true })
    await readBackup(source, restoring)
    if (keptAs !== null) await rename(pgdata, keptAs)
    await rename(restoring, pgdata)
    // The first start replays the log the backup holds; done here, so the service starts at once.
    const db = await PGlite.create(pgdata, { startParams: START_PARAMS })
    await db.query('select 1')
    await db.close()
    console.log(
      `restore: ${source} restored into ${resolve(pgdata)}${keptAs ? `; the database it replaced is in ${resolve(keptAs)}` : ''}`,
    )
  } finally {
    await lock.release()
  }
}

/**
 * Reads the backup in `file` whole (gzip and tar checked to their end), writing its files under
 * `into` when given. Names are checked: none may leave the folder.
 */
async function readBackup(
  file: string,
  into: string | null,
): Promise<{ bytes: number; hasVersion: boolean; taken: string | null }> {
  let bytes = 0
  let hasVersion = false
  let taken: string | null = null
  const extract = tar.extract()
  const done = (async () => {
    for await (const entry of extract) {
      const name = safeName(entry.header.name)
      const type = entry.header.type
      if (name === null || name === 'postmaster.pid' || (type !== 'file' && type !== 'directory')) {
        entry.resume()
        continue
      }
      if (name === 'PG_VERSION') hasVersion = true
      if (type === 'directory') {
        if (into !== null) await mkdir(join(into, name), { recursive: true, mode: 0o700 })
        entry.resume()
        continue
      }
      bytes += entry.header.size ?? 0
      if (name === 'backup_label') {
        const chunks: Buffer[] = []
        for await (const chunk of entry) chunks.push(chunk as Buffer)
        const text = Buffer.concat(chunks)
        taken = /^START TIME: (.*)$/m.exec(text.toString())?.[1] ?? null
        if (into !== null) await writeFile(join(into, name), text, { mode: 0o600 })
        continue
      }
      if (into === null) {
        entry.resume()
        continue
      }
      await mkdir(dirname(join(into, name)), { recursive: true, mode: 0o700 })
      await pipeline(entry, createWriteStream(join(into, name), { mode: 0o600 }))
    }
  })()
  await Promise.all([pipeline(createReadStream(file), createGunzip(), extract), done])
  return { bytes, hasVersion, taken }
}

/** A member's name inside the data directory, or null for one that would leave it. */
function safeName(raw: string): string | null {
  const name = normalize(raw.replace(/^\/+/, '').replace(/\/+$/, ''))
  if (name === '' || name === '.' || name.startsWith('..') || name.startsWith('/')) return null
  return name
}

/** The size of the database's files and when its log was last written. */
async function describe(pgdata: string): Promise<{ bytes: number; lastWritten: string }> {
  let bytes = 0
  let last = 0
  for (const entry of await readdir(pgdata, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const info = await stat(join(entry.parentPath, entry.name))
    bytes += info.size
    last = Math.max(last, info.mtimeMs)
  }
  return { bytes, lastWritten: new Date(last).toISOString() }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`
}

/** `pg_dump --format=custom` of the server at `url` into `target` (written beside, then renamed). */
async function pgDump(url: string, target: string): Promise<void> {
  const partial = `${target}.partial`
  const child = spawn('pg_dump', ['--format=custom', `--file=${partial}`, `--dbname=${url}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const code = await new Promise<number | null>((done, fail) =>
    child.once('error', fail).once('exit', done),
  ).catch((err: NodeJS.ErrnoException) => {
    throw new Error(
      err.code === 'ENOENT'
        ? 'pg_dump was not found: install the PostgreSQL client tools of your server’s version'
        : err.message,
    )
  })
  if (code !== 0) {
    await rm(partial, { force: true })
    throw new Error(`pg_dump failed (exit ${code}); nothing written`)
  }
  await rename(partial, target)
  console.log(`backup: the PostgreSQL database written to ${target} by pg_dump (custom format)`)
}
