/**
 * The embedded database (PGlite) in a process of its own, served on a TCP port, for the growth
 * bench and others: in memory, or in the folder given as its argument; prints
 * `listening postgres://...` once ready; stops on SIGTERM.
 */
import { startEmbedded } from '../../src/db/embedded.ts'

const server = await startEmbedded(process.argv[2] ?? 'memory://', { tcp: true })
console.log(`listening postgres://postgres@127.0.0.1:${server.port}/postgres`)
process.once('SIGTERM', async () => {
  await server.stop()
  process.exit(0)
})
