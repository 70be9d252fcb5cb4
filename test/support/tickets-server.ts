/**
 * The ticket service alone in a process of its own, for the webhook tests that kill a process
 * or run two: `node --import tsx test/support/tickets-server.ts`, configured by the environment:
 * `DATABASE_URL` and `TICKETS_SCHEMA` (a migrated schema), `WEBHOOK_LEASE_MS` (how long a
 * webhook stays held by a process that died). Webhooks may target 127.0.0.1. It prints
 * `{ "url": ... }` on one line once it listens, and exits 0 on SIGTERM.
 *
 * On the embedded database it must not change the session's search path: the test runner's
 * PGlite is one session, shared with the test file that chose the schema.
 */
import { connect } from '../../src/db/client.ts'
import { serve } from '../../src/http/server.ts'
import { createLogger } from '../../src/base/log.ts'
import { createTicketsService } from '../../src/tickets/service.ts'
import { serviceDeps } from './service.ts'

const env = process.env
if (!env.DATABASE_URL || !env.TICKETS_SCHEMA)
  throw new Error('tickets-server: DATABASE_URL and TICKETS_SCHEMA are needed')
const sql = connect(env.DATABASE_URL, { schema: env.TICKETS_SCHEMA, max: 4 })
const { deps } = await serviceDeps(sql, 'tickets', { env: { WEBHOOK_ALLOW_PRIVATE: '1' } })
const service = createTicketsService({
  ...deps,
  logger: createLogger(process.stderr),
  webhooks: { intervalMs: 100, leaseMs: Number(env.WEBHOOK_LEASE_MS ?? 30_000) },
})
const served = await serve({
  name: 'tickets',
  routes: service.routes,
  host: '127.0.0.1',
  port: 0,
  logger: createLogger(null),
})
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${served.port}` })}\n`)
process.once('SIGTERM', async () => {
  await served.close()
  await service.close?.()
  await sql.end({ timeout: 5 })
  process.exit(0)
})
