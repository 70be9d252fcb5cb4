/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) stored in a folder and
 * served over a local socket, so the same `postgres` client and the same SQL run against it as
 * against a real server.
 *
 * PGlite is one session, shared here between the socket's connections: {@link serveConnection}
 * cuts each connection's bytes into whole protocol messages and {@link BatchQueue} hands them
 * to PGlite one at a time. A connection keeps the database from its first extended message
 * until its Sync, and for as long as it has a transaction open, so that two clients'
 * extended-protocol batches (Parse, Bind, Execute ... Sync) never interleave (one's unnamed
 * portal would replace the other's: "portal "" does not exist", the fault of
 * `@electric-sql/pglite-socket`'s own queue, electric-sql/pglite#1046,
 * https://github.com/electric-sql/pglite/issues/1046). Other connections' statements wait
 * meanwhile, which is why no code holds a transaction open across anything slow.
 *
 * The connections are served here rather than by pglite-socket's handler, which joined every
 * piece the socket read onto all the bytes before it (`Buffer.concat` per 64 kB read): a
 * message of 1.4 MB (a file's chunk, src/tickets/store/files.ts) was copied about twenty times
 * over, and that copying and its garbage were a third of the database's time in an upload
 * (docs/performance.md, "Files").
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import type { Writable } from 'node:stream'
import { writeOnlineBackup, type BackupOutcome } from './online-backup.ts'

export interface EmbeddedServer {
  /** Where clients connect: a unix socket path, or a TCP port on 127.0.0.1. */
  socketPath: string | null
  port: number | null
  /**
   * Writes a `.tar.gz` backup of the database to `out` while it serves (src/db/online-backup.ts);
   * refused while another runs, and for a database in memory.
   */
  backup(out: Writable): Promise<BackupOutcome>
  stop(): Promise<void>
}

interface Item {
  handlerId: number
  message: Uint8Array
  onData: (data: Uint8Array) => void
  resolve: (size: number) => void
  reject: (err: Error) => void
}

/** A statement of this process's own, run between the connections' batches and transactions. */
interface Task {
  handlerId: typeof OWN
  run: () => Promise<void>
}

/** The handler id of this process's own statements: never a connection's. */
const OWN = -1

// Extended-protocol messages that leave a batch open until the connection's Sync.
const BATCH_OPENERS = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((c) => c.charCodeAt(0)))
const SYNC = 'S'.charCodeAt(0)
const QUERY = 'Q'.charCodeAt(0)

/** The connections' messages, to PGlite one at a time (test/embedded-db.test.ts checks what it does). */
class BatchQueue {
  private items: (Item | Task)[] = []
  private owner: number | null = null
  private openBatch = new Set<number>()
  private running = false
  constructor(private readonly db: PGlite) {}

  enqueue(
    handlerId: number,
    message: Uint8Array,
    onData: (data: Uint8Array) => void,
  ): Promise<number> {
    return new Promise((resolve, reject) => {
      this.items.push({ handlerId, message, onData, resolve, reject })
      void this.pump()
    })
  }

  /**
   * Runs `statement` when no connection has a batch or a transaction open, before any further
   * connection's message: no statement runs beside it (the online backup's, src/db/online-backup.ts).
   */
  alone(statement: string): Promise<Record<string, unknown>[]> {
    return new Promise((resolve, reject) => {
      this.items.push({
        handlerId: OWN,
        run: async () => {
          try {
            resolve((await this.db.query<Record<string, unknown>>(statement)).rows)
          } catch (err) {
            reject(err)
          }
        },
      })
      void this.pump()
    })
  }

  /**
   * Drops the named prepared statements of a connection that closed: they live in the one
   * session, not in the connection, so without this every connection a pool ever opened would
   * leave its statements (and their plans) behind for as long as the database runs.
   */
  forget(names: Iterable<string>): void {
    const statements = [...names].map((name) => `deallocate "${name.replaceAll('"', '""')}"`)
    if (statements.length === 0) return
    this.items.push({
      handlerId: OWN,
      run: async () => {
        for (const statement of statements) await this.db.exec(statement).catch(() => {})
      },
    })
    void this.pump()
  }

  clearQueueForHandler(handlerId: number): void {
    this.items = this.items.filter((item) => {
      if (item.handlerId !== handlerId || 'run' in item) return true
      item.reject(new Error('connection closed'))
      return false
    })
    this.openBatch.delete(handlerId)
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK')
    this.owner = null
    void this.pump()
  }

  private next(): Item | Task | undefined {
    if (this.owner === null) return this.items.shift()
    const i = this.items.findIndex((item) => item.handlerId === this.owner)
    return i === -1 ? undefined : this.items.splice(i, 1)[0]
  }

  private async pump(): Promise<void> {
    if (this.running) return
    this.running = true
    try {
      for (let item = this.next(); item; item = this.next()) {
        if ('run' in item) {
          await item.run()
          continue
        }
        const current = item
        let size = 0
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(current.message, {
              onRawData: (data: Uint8Array) => {
                size += data.length
                current.onData(data)
              },
            }),
          )
        } catch (err) {
          current.reject(err as Error)
          continue
        }
        const type = current.message[0] as number
        if (BATCH_OPENERS.has(type)) this.openBatch.add(current.handlerId)
        else if (type === SYNC || type === QUERY) this.openBatch.delete(current.handlerId)
        this.owner =
          this.openBatch.has(current.handlerId) || this.db.isInTransaction()
            ? current.handlerId
            : null
        current.resolve(size)
      }
    } finally {
      this.running = false
    }
  }
}

// The first message of a connection has no type byte; these codes in its second word say what it is.
const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102

/**
 * Serves one client connection: its bytes cut into whole protocol messages (the pieces a
 * message arrived in are joined once, when it is whole), each handed to `queue` in order,
 * PGlite's answers written back. Encryption is declined ('N'), as a local socket needs none,
 * and a cancel request is ignored (PGlite cannot interrupt a statement). When the connection
 * closes, its waiting messages are dropped and a transaction it left open is rolled back.
 */
function serveConnection(socket: Socket, queue: BatchQueue, id: number): void {
  socket.setNoDelay(true)
  /** The names of the statements this connection prepared and did not close. */
  const prepared = new Set<string>()
  let pieces: Buffer[] = []
  let buffered = 0
  let started = false
  // A copy: PGlite's answer is a view of its memory, which its next statement overwrites.
  const send = (data: Uint8Array) => {
    if (data.length > 0 && socket.writable) socket.write(Buffer.from(data))
  }
  /** The first `n` bytes buffered, as one buffer, taken off the front. */
  const take = (n: number): Buffer => {
    const whole = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, buffered)
    pieces = whole.length > n ? [whole.subarray(n)] : []
    buffered -= n
    return whole.subarray(0, n)
  }
  socket.on('data', (piece: Buffer) => {
    pieces.push(piece)
    buffered += piece.length
    for (;;) {
      // A message's length: its first word before start-up, else the word after its type byte.
      const header = started ? 5 : 8
      if (buffered < header) return
      if (pieces[0]!.length < header) pieces = [Buffer.concat(pieces, buffered)]
      const first = pieces[0]!
      const length = started ? 1 + first.readInt32BE(1) : first.readInt32BE(0)
      if (length < header) return void socket.destroy()
      if (buffered < length) return
      const code = started ? 0 : first.readInt32BE(4)
      const message = take(length)
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) socket.write('N')
      else if (code === CANCEL_REQUEST) socket.end()
      else {
        if (started) notePrepared(prepared, message)
        started = true
        // A message PGlite could not take ends the connection, as a server's fatal error would.
        queue.enqueue(id, message, send).catch(() => socket.destroy())
      }
    }
  })
  socket.on('error', () => socket.destroy())
  socket.on('close', () => {
    queue.clearQueueForHandler(id)
    void queue.clearTransactionIfNeeded(id)
    queue.forget(prepared)
  })
}

const PARSE = 'P'.charCodeAt(0)
const CLOSE = 'C'.charCodeAt(0)
const STATEMENT = 'S'.charCodeAt(0)

/**
 * Keeps `prepared` up to date with a message of the extended protocol: a Parse with a name
 * prepares that statement, a Close of a statement forgets it.
 */
function notePrepared(prepared: Set<string>, message: Buffer): void {
  const type = message[0]
  if (type === PARSE) {
    const name = message.toString('utf8', 5, message.indexOf(0, 5))
    if (name !== '') prepared.add(name)
  } else if (type === CLOSE && message[5] === STATEMENT) {
    prepared.delete(message.toString('utf8', 6, message.indexOf(0, 6)))
  }
}

/**
 * The server's settings: PGlite's own, with 16 MB of shared buffers instead of PostgreSQL's
 * default 128 MB, which PGlite allocates inside its WebAssembly memory, so they count in full
 * towards the process's resident memory (docs/operations.md, "Memory"). The operating system's
 * page cache holds the files as well, so a small cache costs little speed.
 */
export const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB']

/**
 * Opens (or creates) the PGlite database in `dataDir` (`memory://` for a throw-away one) and
 * serves it on a private unix socket, or on 127.0.0.1 with `{ tcp: true }`.
 */
export async function startEmbedded(
  dataDir: string,
  options: { tcp?: boolean } = {},
): Promise<EmbeddedServer> {
  let loadDataDir: Blob | undefined
  const memory = dataDir === 'memory://'
  if (!memory) await mkdir(dataDir, { recursive: true })
  if (memory || !existsSync(join(dataDir, 'PG_VERSION'))) {
    // A throw-away database in memory starts from the template too: seconds instead of initdb's
    // tens of seconds on a busy machine (the test runner starts one per file run at a time).
    const template = await readFile(TEMPLATE).catch(() => null)
    if (template) loadDataDir = new Blob([template])
    else if (!memory) await createInChild(dataDir)
  }
  const db = await PGlite.create(dataDir === 'memory://' ? undefined : dataDir, {
    startParams: START_PARAMS,
    loadDataDir,
  })
  const queue = new BatchQueue(db)
  const sockets = new Set<Socket>()
  let connections = 0
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    serveConnection(socket, queue, ++connections)
  })
  let socketDir: string | null = null
  let socketPath: string | null = null
  if (options.tcp) {
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(0, '127.0.0.1', resolve),
    )
  } else {
    // A fresh 0700 folder: the socket is private to this user, and its path stays short.
    socketDir = await mkdtemp(join(tmpdir(), 'pglite-'))
    socketPath = join(socketDir, '.s.PGSQL.5432')
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(socketPath, resolve),
    )
  }
  const address = server.address()
  let backingUp = false
  return {
    socketPath,
    port: typeof address === 'object' && address ? address.port : null,
    async backup(out) {
      if (memory) throw new Error('a database in memory has no backup')
      if (backingUp) throw new Error('a backup is already running')
      backingUp = true
      try {
        return await writeOnlineBackup(dataDir, (statement) => queue.alone(statement), out)
      } finally {
        backingUp = false
      }
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      })
      await db.close()
      if (socketDir) await rm(socketDir, { recursive: true, force: true })
    },
  }
}

/** The installed PGlite's version: a data directory made by one version may not open in another. */
export const PGLITE_VERSION = (
  JSON.parse(
    readFileSync(new URL('../package.json', import.meta.resolve('@electric-sql/pglite')), 'utf8'),
  ) as { version: string }
).version

/**
 * A new, empty database as PGlite's initdb makes it, dumped by `npm run pglite-template`
 * (scripts/pglite-template.ts) for this PGlite version. A first start unpacks it (about 270 MB
 * resident, 3 s) instead of running initdb, which grows PGlite's WebAssembly memory, which never
 * shrinks, to about 0.8 GB (docs/operations.md, "Memory"). Without one for the installed
 * version, the database is made by initdb in a child process.
 */
export const TEMPLATE = fileURLToPath(
  new URL(`../../pglite-template/pglite-${PGLITE_VERSION}.tar.gz`, import.meta.url),
)

/**
 * Creates a new database in `dataDir` in a child process. PGlite's first start runs initdb in a
 * second WebAssembly instance, and the memory both instances grew to (about 0.8 GB) stayed with
 * the process that ran it for its whole life (a worker thread gave back only part of it); a
 * child's memory goes back to the system when it exits.
 */
async function createInChild(dataDir: string): Promise<void> {
  const code = `
    const { PGlite } = await import(process.env.PGLITE_MODULE)
    const db = await PGlite.create(process.env.PGLITE_DATA_DIR, { startParams: JSON.parse(process.env.PGLITE_START_PARAMS) })
    await db.close()
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      PGLITE_MODULE: import.meta.resolve('@electric-sql/pglite'),
      PGLITE_DATA_DIR: dataDir,
      PGLITE_START_PARAMS: JSON.stringify(START_PARAMS),
    },
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exit: number | null = await new Promise((resolve, reject) =>
    child.on('error', reject).on('exit', resolve),
  )
  if (exit !== 0)
    throw new Error(
      `creating the database in ${dataDir} failed: ${stderr.trim() || `exit ${exit}`}`,
    )
}
