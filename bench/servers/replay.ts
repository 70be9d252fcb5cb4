/**
 * A bare node:http server answering fixed responses: for each path in REPLAY (a JSON object of
 * path to `{ status, headers, body }`, captured from the real service), the same status, headers
 * and body bytes; 404 otherwise. node adds `date`, `connection` and `keep-alive` as it does for
 * the service. Prints `listening <url>`; stops on SIGTERM.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const answers = new Map(
  Object.entries(
    JSON.parse(process.env.REPLAY ?? '{}') as Record<
      string,
      { status: number; headers: Record<string, string>; body: string }
    >,
  ).map(([path, a]) => [path, { ...a, body: Buffer.from(a.body, 'utf8') }]),
)

const server = createServer((req, res) => {
  const answer = answers.get(req.url ?? '')
  if (answer) {
    res.writeHead(answer.status, answer.headers)
    res.end(answer.body)
  } else {
    res.writeHead(404)
    res.end()
  }
})
server.listen(0, '127.0.0.1', () =>
  console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`),
)
process.on('SIGTERM', () => process.exit(0))
