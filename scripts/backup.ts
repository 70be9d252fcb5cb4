/**
 * Backups of the embedded database (docs/operations.md, "Backups and restores"):
 *
 *   npm run backup -- <file>     writes the database in DATA_DIR to <file> (a .tar.gz)
 *   npm run restore -- <file>    creates the database in DATA_DIR from <file>
 *
 * Both take the data directory's lock, so they refuse, naming the way out, while the service runs
 * on it: stop the service for the minute a backup takes. A restore also refuses a DATA_DIR that
 * already holds a database. With DATABASE_URL set they refuse too: use pg_dump and pg_restore.
 */
import { existsSync } from 'node:fs'
import { readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { loadConfig, loadEnvFile } from '../src/config.ts'
import { lockDataDir } from '../src/db/data-dir-lock.ts'
import { START_PARAMS } from '../src/db/embedded.ts'

const [command, file] = process.argv.slice(2)
if ((command !== 'backup' && command !== 'restore') || !file || process.argv.length > 4) {
  console.error('usage: npm run backup -- <file.tar.gz>   or   npm run restore -- <file.tar.gz>')
  process.exit(2)
}

try {
  loadEnvFile()
  const config = loadConfig()
  if (config.databaseUrl)
    throw new Error(
      `DATABASE_URL is set: back up a PostgreSQL server with pg_dump (docs/operations.md)`,
    )
  const lock = await lockDataDir(config.dataDir)
  const pgdata = join(config.dataDir, 'pglite')
  try {
    if (command === 'backup') {
      if (!existsSync(join(pgdata, 'PG_VERSION')))
        throw new Error(`${pgdata} holds no database to back up`)
      const db = await PGlite.create(pgdata, { startParams: START_PARAMS })
      const dump = await db.dumpDataDir('gzip')
      await db.close()
      // Written beside the target, then renamed: a half-written backup never has the name.
      await writeFile(`${file}.partial`, new Uint8Array(await dump.arrayBuffer()))
      await rename(`${file}.partial`, file)
      console.log(`backup: ${pgdata} written to ${file}`)
    } else {
      if (existsSync(join(pgdata, 'PG_VERSION'))) {
        throw new Error(
          `${pgdata} already holds a database: move it away (or set DATA_DIR to a new directory) before restoring`,
        )
      }
      const bytes = await readFile(file)
      const db = await PGlite.create(pgdata, {
        startParams: START_PARAMS,
        loadDataDir: new Blob([bytes]),
      })
      await db.close()
      console.log(`restore: ${file} restored into ${pgdata}`)
    }
  } finally {
    await lock.release()
  }
} catch (err) {
  console.error(`${command}: ${(err as Error).message}`)
  process.exit(1)
}
