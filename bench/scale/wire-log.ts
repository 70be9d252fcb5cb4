/**
 * A TCP proxy in front of a PostgreSQL server (or the embedded database's port) that reads the
 * client's side of the wire protocol and records what each connection asks: every statement
 * executed (a simple `Query`, or an extended-protocol `Execute` of a statement prepared by
 * `Parse`, named or not), every `Sync` or simple `Query` (each answered by one ReadyForQuery),
 * and every round trip: a `Sync` or `Query` sent while the connection has no request waiting for
 * its ReadyForQuery. postgres.js sends one Parse/Bind/Execute/Sync batch a query; a client that
 * sends the next before the answer to the last (pipelining, src/db/transaction.ts) makes several
 * syncs in one round trip.
 *
 * Used to count the statements and round trips a write route makes, without touching the
 * service's code: the service is started with DATABASE_URL pointing at the proxy.
 */
import { connect, createServer, type Server } from 'node:net'

export interface WireEntry {
  connection: number
  /**
   * `statement` for an executed statement; `sync` for a request's end (a Sync or a simple
   * Query); `round trip` for a request sent while none was waiting for its answer.
   */
  kind: 'statement' | 'sync' | 'round trip'
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
    // Requests (Syncs and simple Queries) sent and not yet answered by a ReadyForQuery.
    let waiting = 0
    const request = () => {
      if (waiting === 0) entries.push({ connection: id, kind: 'round trip', text: '' })
      waiting++
      entries.push({ connection: id, kind: 'sync', text: '' })
    }
    // The server's side: only its ReadyForQuery messages ('Z') are counted. An SSLRequest is
    // answered with one byte before any message.
    let answers = Buffer.alloc(0)
    let sslAnswer = false
    upstream.on('data', (chunk: Buffer) => {
      answers = Buffer.concat([answers, chunk])
      if (sslAnswer && answers.length > 0) {
        answers = answers.subarray(1)
        sslAnswer = false
      }
      while (answers.length >= 5) {
        const length = answers.readInt32BE(1)
        if (answers.length < 1 + length) return
        if (answers[0] === 0x5a) waiting = Math.max(0, waiting - 1)
        answers = answers.subarray(1 + length)
      }
    })
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
          else sslAnswer = true
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
          request()
        } else if (type === 'P') {
          const [name, next] = cstring(0)
          prepared.set(name, cstring(next)[0])
        } else if (type === 'B') {
          const [, next] = cstring(0)
          bound = prepared.get(cstring(next)[0]) ?? '?'
        } else if (type === 'E') {
          entries.push({ connection: id, kind: 'statement', text: bound })
        } else if (type === 'S') {
          request()
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
