/**
 * A password reset link for an account of the built-in provider, for the owner who lost their
 * own password (docs/core.md, "Built-in accounts"):
 *
 *   npm run reset-link -- <name>
 *
 * Prints the link (it works once, for 24 hours). On the embedded database it takes the data
 * directory's lock, so stop the services first; on a PostgreSQL server (DATABASE_URL) it runs
 * beside them. The address is `IDP_URL`, else `http://localhost:<IDP_PORT>`.
 */
import { loadConfig, loadEnvFile } from '../src/config.ts'
import { openDatabase } from '../src/db/client.ts'
import { migrate } from '../src/db/migrate.ts'
import { createAccountStore } from '../src/accounts/store.ts'

const name = process.argv.slice(2).join(' ').trim()
if (name === '') {
  console.error('usage: npm run reset-link -- <name>')
  process.exit(2)
}

try {
  loadEnvFile()
  const config = loadConfig()
  const db = await openDatabase(config, { max: 1 })
  try {
    await migrate(db.sql)
    const store = createAccountStore({ sql: db.sql, clock: Date.now })
    const account = await store.byName(name)
    if (account === null) throw new Error(`no account is named '${name}'`)
    const link = await store.createResetLink(account.id)
    console.log(`${config.idpUrl ?? `http://localhost:${config.idpPort}`}/reset?link=${link}`)
  } finally {
    await db.close()
  }
} catch (err) {
  console.error(`reset-link: ${(err as Error).message}`)
  process.exit(1)
}
