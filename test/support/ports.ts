/** Ports for tests that must name a server's address before it listens. */
import { createServer } from 'node:net'

/** A port on 127.0.0.1 that nobody listens on now, so a public URL can name it before listening. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
