/** Start-up, step one: the database's migrations (the files of `sql/`). */
import type { Config } from '../config.ts'
import { connect, type Database } from '../db/client.ts'
import { migrate } from '../db/migrate.ts'
import type { Logger } from '../base/log.ts'

/**
 * Applies the migrations not applied yet and logs their names. `ownDatabase` is false when the
 * caller handed the database in (tests): then they run on its pool.
 */
export async function runMigrations(
  config: Config,
  db: Database,
  ownDatabase: boolean,
  logger: Logger,
): Promise<void> {
  // A migration may rightly run longer than the pool's answer deadline (a rewrite of a large
  // table), so on a server of our own opening it runs on a client without one.
  const migrator =
    config.databaseUrl && ownDatabase
      ? connect(config.databaseUrl, { max: 1, answerTimeout: null })
      : db.sql
  const applied = await migrate(migrator).finally(() =>
    migrator === db.sql ? undefined : migrator.end({ timeout: 5 }),
  )
  if (applied.length > 0) logger.line(`database: applied ${applied.join(', ')}`)
}
