/**
 * Embedded data directories for tests that start processes on one of their own. A first start
 * on an empty directory (PGlite's initdb, then the migrations) takes 10 to 40 seconds on a busy
 * 2-core machine; a copy of a directory that has had its first start takes a tenth of a second.
 * So one such directory is made per test run (test/run.ts names its place in
 * `TEST_DATA_TEMPLATE`; a file run on its own makes one for itself) and each test gets a copy.
 * Tests of the first start itself use {@link emptyDataDir}.
 */
import { cp, mkdtemp, rename, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client.ts'
import { migrate } from '../../src/db/migrate.ts'

let template: Promise<string> | null = null

/**
 * The directory copied by {@link startedDataDir}, made by a first start when there is none yet.
 * Test files run two at a time may both make one: each makes it in a folder of its own and
 * renames that into place, and the one that comes second uses the first's.
 */
function templateDir(): Promise<string> {
  template ??= (async () => {
    const dir =
      process.env.TEST_DATA_TEMPLATE ??
      join(await mkdtemp(join(tmpdir(), 'data-template-')), 'data')
    if (await exists(dir)) return dir
    const mine = `${dir}-${process.pid}`
    const db = await openDatabase({ databaseUrl: null, dataDir: mine })
    await migrate(db.sql)
    await db.close()
    await rename(mine, dir).catch(async (err: NodeJS.ErrnoException) => {
      if (!(await exists(dir))) throw err
      await rm(mine, { recursive: true, force: true })
    })
    return dir
  })()
  return template
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

/** An empty directory: the first start happens in the test. */
export function emptyDataDir(prefix = 'data-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

/** A data directory of its own, as `npm start` leaves it after its first start. */
export async function startedDataDir(prefix = 'data-'): Promise<string> {
  const from = await templateDir()
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), 'data')
  await cp(from, dir, { recursive: true })
  return dir
}
