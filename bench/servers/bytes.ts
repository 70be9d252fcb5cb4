/**
 * A bare node:http server for the files bench's baseline: a POST's body is read and dropped,
 * a GET is answered with SIZE (its first argument) zero bytes in 1 MiB pieces. Prints
 * `listening <url>`; stops on SIGTERM.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const size = Number(process.argv[2] ?? 0)
const piece = Buffer.alloc(1024 * 1024)

const server = createServer(async (req, res) => {
  if (req.method === 'POST') {
    for await (const _ of req) void _
    res.writeHead(201, { 'content-type': 'application/json' })
    res.end('{}')
    return
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) })
  for (let sent = 0; sent < size; sent += piece.length) {
    if (!res.write(piece.subarray(0, Math.min(piece.length, size - sent))))
      await new Promise((resolve) => res.once('drain', resolve))
  }
  res.end()
})
server.listen(0, '127.0.0.1', () =>
  console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`),
)
process.on('SIGTERM', () => process.exit(0))
