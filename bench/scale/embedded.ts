/**
 * The embedded database (PGlite, in memory) in a process of its own, served on a TCP port, for
 * the growth bench: prints `listening postgres://...` once ready; stops on SIGTERM.
 */
import { startEmbedded } from '../../src/db/embedded.ts'

const server = await startEmbedded('memory://', { tcp: true })
console.log(`listening postgres://postgres@127.0.0.1:${server.port}/postgres`)
process.once('SIGTERM', async () => {
  await server.stop()
  process.exit(0)
})
