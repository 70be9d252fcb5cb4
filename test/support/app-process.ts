/**
 * The whole application (src/app.ts) in a process of its own on a test file's schema, for tests
 * with several processes on one database: `node --import tsx test/support/app-process.ts` with
 * `DATABASE_URL` and `APP_SCHEMA` (migrated) in the environment. It prints
 * `{ "notes": url, "tickets": url, "idp": url }` on one line once it listens, and exits 0 on
 * SIGTERM. It signs people in through the development provider, or with `APP_PROVIDER=accounts`
 * through the built-in accounts (its own provider, on the shared database); `APP_RATE_LIMIT`
 * sets `RATE_LIMIT`, `APP_SMTP_URL` and `APP_NOTIFY_DELAY` set `SMTP_URL` and `NOTIFY_DELAY`.
 *
 * On the embedded database the schema is the test file's session-wide search path (see
 * test/support/db.ts); a second process shares that one session.
 */
import { startApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { connect } from '../../src/db/client.ts'
import { createLogger } from '../../src/base/log.ts'

const url = process.env.DATABASE_URL
const schema = process.env.APP_SCHEMA
if (!url || !schema) throw new Error('app-process: DATABASE_URL and APP_SCHEMA are needed')
const sql = connect(url, { schema, max: 4 })
const accounts = process.env.APP_PROVIDER === 'accounts'
const config = loadConfig({
  HOST: '127.0.0.1',
  NOTES_PORT: '0',
  TICKETS_PORT: '0',
  DEV_IDP_PORT: '0',
  IDP_PORT: '0',
  ...(accounts ? {} : { DEV_SIGNIN: '1' }),
  ...(process.env.APP_RATE_LIMIT ? { RATE_LIMIT: process.env.APP_RATE_LIMIT } : {}),
  ...(process.env.APP_SMTP_URL ? { SMTP_URL: process.env.APP_SMTP_URL } : {}),
  ...(process.env.APP_NOTIFY_DELAY ? { NOTIFY_DELAY: process.env.APP_NOTIFY_DELAY } : {}),
  DATABASE_URL: url,
})
const kind = process.env.TEST_DATABASE_KIND === 'embedded' ? 'embedded' : 'postgres'
const app = await startApp(config, {
  logger: createLogger(null),
  db: { sql, kind, close: () => sql.end({ timeout: 5 }) },
})
console.log(
  JSON.stringify({
    notes: app.servers.notes!.url,
    tickets: app.servers.tickets!.url,
    idp: app.servers.idp!.url,
  }),
)
process.once('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
