/**
 * One throw-away embedded database (PGlite, in memory) on a TCP port of 127.0.0.1, in a process
 * of its own: test/run.ts starts one per test file it runs at a time. Prints the port on a line
 * of its own once it listens; stops when its standard input closes (so it never outlives the
 * runner) or on SIGTERM.
 */
import { startEmbedded } from '../../src/db/embedded.ts'

const server = await startEmbedded('memory://', { tcp: true })
let stopping: Promise<void> | null = null
const stop = () => (stopping ??= server.stop().then(() => process.exit(0)))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.stdin.on('end', stop).on('close', stop).resume()
process.stdout.write(`${server.port}\n`)
