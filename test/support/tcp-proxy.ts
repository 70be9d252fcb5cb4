/**
 * A TCP proxy between a service and its database, so that tests can restart or stop "the
 * database" without touching the real server: {@link TcpProxy.cut} drops every connection (what a
 * server restart does to its clients), {@link TcpProxy.down} also refuses new ones (a server
 * that is stopped), {@link TcpProxy.up} accepts them again on the same port.
 */
import { connect, createServer, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  /** Connections that go through the proxy now. */
  readonly open: number
  /** Drops every open connection at once. */
  cut(): void
  /** Stops listening (connections are refused) and drops every open connection. */
  down(): Promise<void>
  /** Listens again on the same port. */
  up(): Promise<void>
  close(): Promise<void>
}

/** A proxy on 127.0.0.1 to `target` (host and port). */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>()
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
    new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()))
  await listen(0)
  const port = (server.address() as { port: number }).port
  const cut = () => {
    for (const [client, upstream] of pairs) {
      client.destroy()
      upstream.destroy()
    }
    pairs.clear()
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
