/**
 * A TCP proxy between a service and its database, so that tests can restart or stop "the
 * database" without touching the real server: {@link TcpProxy.cut} drops every connection (what a
 * server restart does to its clients), {@link TcpProxy.down} also refuses new ones (a server
 * that is stopped), {@link TcpProxy.up} accepts them again on the same port.
 * {@link TcpProxy.silence} stops forwarding on every open connection without closing it (what a
 * NAT or a firewall that forgot a connection, or a failed-over host, does: no FIN, no RST,
 * nothing ever answers again); new connections are forwarded as before.
 */
import { connect, createServer, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  /** Connections that go through the proxy now. */
  readonly open: number
  /** Drops every open connection at once. */
  cut(): void
  /** Stops forwarding on every open connection, and keeps them open: what is sent is lost. */
  silence(): void
  /** Stops listening (connections are refused) and drops every open connection. */
  down(): Promise<void>
  /** Listens again on the same port. */
  up(): Promise<void>
  close(): Promise<void>
}

/** A proxy on 127.0.0.1 to `target` (host and port). */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>()
  // Silenced connections: open until the proxy closes, forwarding nothing.
  const silent = new Set<Socket>()
  const onConnection = (client: Socket) => {
    const upstream = connect(target.port, target.host)
    const pair: [Socket, Socket] = [client, upstream]
    pairs.add(pair)
    const drop = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.pipe(upstream)
    upstream.pipe(client)
  }
  let server: Server = createServer(onConnection)
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(port, '127.0.0.1', () => resolve()),
    )
  await listen(0)
  const port = (server.address() as { port: number }).port
  const cut = () => {
    for (const [client, upstream] of pairs) {
      client.destroy()
      upstream.destroy()
    }
    pairs.clear()
    for (const socket of silent) socket.destroy()
    silent.clear()
  }
  const down = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    cut()
    await closed
  }
  return {
    port,
    get open() {
      return pairs.size
    },
    cut,
    silence() {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        for (const socket of [client, upstream]) {
          socket
            .removeAllListeners('close')
            .removeAllListeners('error')
            .on('error', () => {})
          // Read and drop: the bytes are acknowledged, as by a peer that never answers.
          socket.resume()
          silent.add(socket)
        }
      }
      pairs.clear()
    },
    down,
    async up() {
      if (server.listening) return
      server = createServer(onConnection)
      await listen(port)
    },
    async close() {
      if (server.listening) await down()
    },
  }
}
