/**
 * A small server process around `GET /api/live`, for the two-process test and the bench:
 * `node --import tsx test/support/live-server.ts` (or `node scripts/run.mjs
 * test/support/live-server.ts`, as the bench starts it), configured by the environment:
 *
 * - `DATABASE_URL`, `LIVE_SCHEMA`: the database and the (migrated) schema to use;
 * - `LIVE_LISTEN`: `1` to LISTEN for other processes' writes (real PostgreSQL);
 * - `LIVE_CHECK_MS`, `LIVE_HOLD_MS`, `LIVE_MAX_WAITING`: passed to `createLive`.
 *
 * Besides the live route it serves `POST /emit` `{ project, args? }` (writes one event the way
 * the ticket service does: in a transaction, then a local wake-up) and `GET /stats`
 * `{ waiting, rss, heapUsed, heapTotal }`. It prints `{ "url": ... }` on one line once it listens, and exits 0 on
 * SIGTERM.
 *
 * On the embedded database it must not change the session's search path: the test runner's
 * PGlite is one session, shared with the test file that chose the schema.
 */
import { connect } from '../../src/db/client.ts'
import { serve } from '../../src/http/server.ts'
import { json } from '../../src/http/response.ts'
import { createLogger } from '../../src/base/log.ts'
import { createWake } from '../../src/tickets/live/events.ts'
import { emit } from '../../src/tickets/store/outbox.ts'
import { createLive } from '../../src/tickets/live/hub.ts'

const env = process.env
const url = env.DATABASE_URL
const schema = env.LIVE_SCHEMA
if (!url || !schema) throw new Error('live-server: DATABASE_URL and LIVE_SCHEMA are needed')
const number = (name: string): number | undefined => (env[name] ? Number(env[name]) : undefined)

const sql = connect(url, { schema, max: 4 })
const wake = createWake()
const live = createLive({
  sql,
  clock: Date.now,
  wake,
  // Projects are named by their id here; `missing` names none.
  resolveProject: async (slugOrId) => (slugOrId === 'missing' ? null : slugOrId),
  listen: env.LIVE_LISTEN === '1',
  checkMs: number('LIVE_CHECK_MS'),
  holdMs: number('LIVE_HOLD_MS'),
  maxWaiting: number('LIVE_MAX_WAITING'),
  logger: createLogger(process.stderr),
})

const served = await serve({
  name: 'live',
  host: '127.0.0.1',
  port: 0,
  logger: createLogger(null),
  routes: [
    { method: 'GET', path: '/api/live', handler: live.handler },
    {
      method: 'POST',
      path: '/emit',
      handler: async (req) => {
        const body = JSON.parse(new TextDecoder().decode(await req.body())) as {
          project: string | null
          args?: unknown[]
        }
        await sql.begin((tx) =>
          emit(tx, body.project, 'ticketCreated', body.args ?? [], Date.now()),
        )
        wake.ping()
        return json(200, { ok: true })
      },
    },
    {
      method: 'GET',
      path: '/stats',
      handler: () => {
        const { rss, heapUsed, heapTotal } = process.memoryUsage()
        return json(200, { waiting: live.waiting, rss, heapUsed, heapTotal })
      },
    },
  ],
})
process.stdout.write(JSON.stringify({ url: served.url }) + '\n')

process.once('SIGTERM', async () => {
  await served.close()
  await live.close()
  await sql.end({ timeout: 5 })
  process.exit(0)
})
