/**
 * A TCP proxy in front of a PostgreSQL server (or the embedded database's port) that reads the
 * client's side of the wire protocol and records what each connection asks: every statement
 * executed (a simple `Query`, or an extended-protocol `Execute` of a statement prepared by
 * `Parse`, named or not) and every `Sync` or simple `Query`, each of which is a round trip: the
 * client waits for the server's ReadyForQuery before its next request on that connection
 * (postgres.js sends one Parse/Bind/Execute/Sync batch a query and waits for its answer).
 *
 * Used to count the statements and round trips a write route makes, without touching the
 * service's code: the service is started with DATABASE_URL pointing at the proxy.
 */
import { connect, createServer, type Server } from 'node:net'

export interface WireEntry {
  connection: number
  /** `statement` for an executed statement; `sync` for a round trip's end. */
  kind: 'statement' | 'sync'
  text: string
}

export interface WireLog {
  url(database: string): string
  entries: WireEntry[]
  close(): Promise<void>
}

/** Starts the proxy on a free local port, forwarding to `host:port`. */
export async function startWireLog(host: string, port: number): Promise<WireLog> {
  const entries: WireEntry[] = []
  let connections = 0
  const server: Server = createServer((client) => {
    const id = ++connections
    const upstream = connect(port, host)
    client.pipe(upstream)
    upstream.pipe(client)
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    let buffer = Buffer.alloc(0)
    let started = false
    const prepared = new Map<string, string>()
    let bound = ''
    client.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      for (;;) {
        if (!started) {
          // The startup message (or an SSLRequest): a length and no type byte.
          if (buffer.length < 8) return
          const length = buffer.readInt32BE(0)
          if (buffer.length < length) return
          const code = buffer.readInt32BE(4)
          buffer = buffer.subarray(length)
          if (code !== 80877103) started = true
          continue
        }
        if (buffer.length < 5) return
        const type = String.fromCharCode(buffer[0]!)
        const length = buffer.readInt32BE(1)
        if (buffer.length < 1 + length) return
        const body = buffer.subarray(5, 1 + length)
        buffer = buffer.subarray(1 + length)
        const cstring = (from: number) => {
          const end = body.indexOf(0, from)
          return [body.toString('utf8', from, end), end + 1] as const
        }
        if (type === 'Q') {
          entries.push({ connection: id, kind: 'statement', text: cstring(0)[0] })
          entries.push({ connection: id, kind: 'sync', text: '' })
        } else if (type === 'P') {
          const [name, next] = cstring(0)
          prepared.set(name, cstring(next)[0])
        } else if (type === 'B') {
          const [, next] = cstring(0)
          bound = prepared.get(cstring(next)[0]) ?? '?'
        } else if (type === 'E') {
          entries.push({ connection: id, kind: 'statement', text: bound })
        } else if (type === 'S') {
          entries.push({ connection: id, kind: 'sync', text: '' })
        }
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${address.port}/${database}`,
    entries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
