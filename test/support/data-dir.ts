/**
 * Embedded data directories for tests that start processes on one of their own. A first start
 * on an empty directory (PGlite's initdb, then the migrations) takes 10 to 40 seconds on a busy
 * 2-core machine; a copy of a directory that has had its first start takes a tenth of a second.
 * So one such directory is made per test run (test/run.ts names its place in
 * `TEST_DATA_TEMPLATE`; a file run on its own makes one for itself) and each test gets a copy.
 * Tests of the first start itself use {@link emptyDataDir}.
 */
import { cp, mkdtemp, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client.ts'
import { migrate } from '../../src/db/migrate.ts'

let template: Promise<string> | null = null

/** The directory copied by {@link startedDataDir}, made by a first start when there is none yet. */
function templateDir(): Promise<string> {
  template ??= (async () => {
    const dir = process.env.TEST_DATA_TEMPLATE ?? join(await mkdtemp(join(tmpdir(), 'data-template-')), 'data')
    const done = join(dir, '.ready')
    if (await stat(done).then(() => true, () => false)) return dir
    const db = await openDatabase({ databaseUrl: null, dataDir: dir })
    await migrate(db.sql)
    await db.close()
    await writeFile(done, '')
    return dir
  })()
  return template
}

/** An empty directory: the first start happens in the test. */
export function emptyDataDir(prefix = 'data-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

/** A data directory of its own, as `npm start` leaves it after its first start. */
export async function startedDataDir(prefix = 'data-'): Promise<string> {
  const from = await templateDir()
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), 'data')
  await cp(from, dir, { recursive: true, filter: (path) => !path.endsWith('.ready') })
  return dir
}
