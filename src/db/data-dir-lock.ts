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
 * The holder also serves backups over it (docs/operations.md, "Backups and restores"): once it
 * offers them ({@link DirLock.serveBackups}) it keeps a random key in `<dir>/.backup-key`,
 * readable by its own user only, and a client that sends `backup <key>` after the process id
 * gets `ok` and the backup's bytes ({@link requestBackup}). The key file is what limits backups
 * to the user who runs the service: the socket itself has no file permissions on Linux.
 *
 * Limits: the lock is seen by processes on the same machine (and, on Linux, in the same network
 * namespace: two containers sharing a volume but not a network do not see each other's lock).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { chmod, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises'
import { connect, createServer, type Server } from 'node:net'
import { join, resolve } from 'node:path'
import type { Readable, Writable } from 'node:stream'

export interface DirLock {
  /**
   * Offers backups to whoever can read `<dir>/.backup-key`: `write` writes one to the socket;
   * a failure of it cuts the socket, so the client sees an unfinished backup.
   */
  serveBackups(write: (out: Writable) => Promise<void>): Promise<void>
  release(): Promise<void>
}

/** The file of the key a backup request must send. */
export const BACKUP_KEY_FILE = '.backup-key'
/** How long a connection to the lock may stay silent before it is closed. */
const IDLE_MS = 10_000

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
  let backups: { key: string; write: (out: Writable) => Promise<void> } | null = null
  const server = createServer((socket) => {
    socket.on('error', () => {})
    socket.setTimeout(IDLE_MS, () => socket.destroy())
    socket.write(`${process.pid}\n`)
    let line = ''
    const onData = (chunk: Buffer) => {
      line += chunk.toString('latin1')
      const end = line.indexOf('\n')
      if (end === -1) {
        if (line.length > 200) socket.destroy()
        return
      }
      socket.off('data', onData)
      const [command, key] = line.slice(0, end).split(' ')
      if (command !== 'backup' || backups === null)
        return void socket.end('error no backups here\n')
      if (!sameKey(key ?? '', backups.key)) return void socket.end('error wrong backup key\n')
      socket.setTimeout(0)
      socket.write('ok\n')
      backups.write(socket).then(
        () => socket.end(),
        (err: unknown) => socket.destroy(err as Error),
      )
    }
    socket.on('data', onData)
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
  const keyFile = join(dir, BACKUP_KEY_FILE)
  return {
    async serveBackups(write) {
      const key = randomBytes(32).toString('base64url')
      // Written with its mode from the start, then set again in case the file was there.
      await writeFile(keyFile, `${key}\n`, { mode: 0o600 })
      await chmod(keyFile, 0o600)
      backups = { key, write }
    },
    async release() {
      if (backups !== null) await unlink(keyFile).catch(() => {})
      backups = null
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}

function sameKey(given: string, key: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(key)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Asks the process that holds `dir` for a backup: its bytes (a `.tar.gz`) as a stream, or null
 * when no process holds the folder. Throws when the holder refuses, or the key cannot be read.
 */
export async function requestBackup(dir: string): Promise<Readable | null> {
  const address = await lockAddress(dir)
  const socket = connect(address)
  const connected = await new Promise<boolean>((done, fail) => {
    socket.once('connect', () => done(true))
    socket.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? done(false) : fail(err),
    )
  })
  if (!connected) return null
  let key: string
  try {
    key = (await readFile(join(dir, BACKUP_KEY_FILE), 'utf8')).trim()
  } catch (err) {
    socket.destroy()
    const code = (err as NodeJS.ErrnoException).code
    throw new Error(
      code === 'ENOENT'
        ? `the process holding ${resolve(dir)} does not serve backups (an older version?): stop it and back up again`
        : `cannot read ${join(resolve(dir), BACKUP_KEY_FILE)} (${code}): run the backup as the user who runs the service`,
      { cause: err },
    )
  }
  // Two lines come first: the holder's process id, then "ok" or "error <why>"; the backup's
  // bytes follow "ok".
  socket.write(`backup ${key}\n`)
  const lines = await new Promise<string[]>((done) => {
    let head = Buffer.alloc(0)
    const found: string[] = []
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      let end
      while (found.length < 2 && (end = head.indexOf(10)) !== -1) {
        found.push(head.subarray(0, end).toString())
        head = head.subarray(end + 1)
      }
      if (found.length < 2) return
      socket.off('data', onData)
      socket.off('close', onClose)
      socket.pause()
      if (head.length > 0) socket.unshift(head)
      done(found)
    }
    const onClose = () => done(found)
    socket.on('data', onData)
    socket.once('close', onClose)
  })
  if (lines[1] !== 'ok') {
    socket.destroy()
    throw new Error(
      lines[1]?.startsWith('error ')
        ? `the service refused: ${lines[1].slice(6)}`
        : 'the service closed the connection',
    )
  }
  return socket
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
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      // The process id is the first line; the holder waits for a request after it.
      if (text.includes('\n')) socket.end()
    })
    socket.on('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'gone' : null),
    )
    socket.on('close', () => {
      const pid = Number(text.trim())
      done(Number.isInteger(pid) && pid > 0 ? pid : null)
    })
  })
}
