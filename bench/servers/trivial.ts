/**
 * A trivial JSON route, served either by a bare node:http server (`bare`) or through our http
 * core and router with request logging on (`ours`). Both send the same bytes.
 * Prints `listening <url>`; stops on SIGTERM.
 */
import { createWriteStream } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serve } from '../../src/http/server.ts'
import { json } from '../../src/http/response.ts'
import { createLogger } from '../../src/base/log.ts'

const kind = process.argv[2]
if (kind === 'bare') {
  const server = createServer((req, res) => {
    if (req.url === '/api/ping') {
      const body = '{"ok":true}'
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      })
      res.end(body)
    } else {
      res.writeHead(404)
      res.end()
    }
  })
  server.listen(0, '127.0.0.1', () =>
    console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`),
  )
  process.on('SIGTERM', () => process.exit(0))
} else {
  // Logging on, into a real file, as a service writes to its stdout.
  const logger =
    kind === 'ours-nolog'
      ? createLogger(null)
      : createLogger(createWriteStream(join(tmpdir(), `bench-http-${process.pid}.log`)))
  const served = await serve({
    name: 'bench',
    host: '127.0.0.1',
    port: 0,
    logger,
    routes: [
      { method: 'GET', path: '/api/ping', handler: () => json(200, { ok: true }) },
      {
        method: 'GET',
        path: '/api/projects/:slug/tickets/:number',
        handler: () => json(200, { ok: true }),
      },
    ],
  })
  console.log(`listening ${served.url}`)
  process.on('SIGTERM', () => served.close().then(() => process.exit(0)))
}
