/**
 * One process per data directory. The embedded database is one process's database: a second
 * process on the same folder would write beside the first and lose its work at the next start.
 * So whoever opens it ({@link lockDataDir}) first takes a lock that the operating system drops
 * when the process ends, however it ends (a crash, `kill -9`, a power cut): nothing is left
 * behind to clean up, and no stale-lock guessing is needed.
 *
 * Node has no flock(). The lock is a listening unix socket: binding an address is atomic, and the
 * kernel frees it with the process. On Linux the address is in the abstract namespace (no file),
 * named after the folder's device and inode, so every path to the folder (relative, symlinked)
 * meets the same lock. Elsewhere it is a socket file `.lock` in the folder; a file left by a dead
 * process refuses connections and is replaced. The holder answers each connection with its
 * process id, which the refusal names.
 *
 * Limits: the lock is seen by processes on the same machine (and, on Linux, in the same network
 * namespace: two containers sharing a volume but not a network do not see each other's lock).
 */
import { mkdir, stat, unlink } from 'node:fs/promises'
import { connect, createServer, type Server } from 'node:net'
import { join, resolve } from 'node:path'

export interface DirLock {
  release(): Promise<void>
}

/** The refusal when another process holds the folder. */
export class DataDirInUse extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number | null,
  ) {
    super(
      `the data directory ${dir} is in use by another process${pid ? ` (pid ${pid})` : ''}. ` +
        'The embedded database serves one process at a time: stop the other process first, ' +
        'or set DATABASE_URL to a PostgreSQL server to run several processes on one database.',
    )
  }
}

/** Creates `dir` when missing and locks it for this process; throws {@link DataDirInUse} when held. */
export async function lockDataDir(dir: string): Promise<DirLock> {
  const shown = resolve(dir)
  await mkdir(dir, { recursive: true })
  const address = await lockAddress(dir)
  const server = createServer((socket) => {
    socket.on('error', () => {})
    socket.end(`${process.pid}\n`)
  })
  server.unref()
  try {
    await listen(server, address)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    const holder = await askHolder(address)
    if (holder === 'gone' && process.platform !== 'linux') {
      // A socket file left by a process that died: nobody listens behind it.
      await unlink(address).catch(() => {})
      try {
        await listen(server, address)
      } catch {
        throw new DataDirInUse(shown, null)
      }
    } else throw new DataDirInUse(shown, holder === 'gone' ? null : holder)
  }
  return {
    release: () => new Promise<void>((done) => server.close(() => done())),
  }
}

async function lockAddress(dir: string): Promise<string> {
  if (process.platform !== 'linux') return join(dir, '.lock')
  const { dev, ino } = await stat(dir, { bigint: true })
  return `\0notes-and-tickets-data-${dev}-${ino}`
}

function listen(server: Server, address: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail)
    server.listen(address, () => {
      server.off('error', fail)
      done()
    })
  })
}

/** The holder's process id, `'gone'` when nobody answers, or null when it answers something else. */
function askHolder(address: string): Promise<number | 'gone' | null> {
  return new Promise((done) => {
    const socket = connect(address)
    let text = ''
    socket.setTimeout(2000, () => socket.destroy())
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()))
    socket.on('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'gone' : null),
    )
    socket.on('close', () => {
      const pid = Number(text.trim())
      done(Number.isInteger(pid) && pid > 0 ? pid : null)
    })
  })
}
