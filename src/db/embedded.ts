/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) stored in a folder and
 * served over a local socket, so the same `postgres` client and the same SQL run against it as
 * against a real server.
 *
 * PGlite is one session. `@electric-sql/pglite-socket` shares it between connections by
 * queueing their protocol messages, but its queue switches connections between single
 * messages, so two clients' extended-protocol batches (Parse, Bind, Execute ... Sync)
 * interleave and one's unnamed portal replaces the other's ("portal "" does not exist";
 * electric-sql/pglite#1046, https://github.com/electric-sql/pglite/issues/1046). {@link BatchQueue} below keeps the library's
 * handler and replaces the queue: a connection keeps the database from its first extended
 * message until its Sync, and for as long as it has a transaction open. Other connections'
 * statements wait meanwhile, which is why no code holds a transaction open across anything slow.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket'
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

/**
 * The queue given to pglite-socket's handlers, in place of its own (same three methods; the
 * handler's `queryQueue` option). test/library-contracts.test.ts fails if an upgrade of
 * pglite-socket stops calling them; test/embedded-db.test.ts checks what the queue does.
 */
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
  const handlers = new Set<PGLiteSocketHandler>()
  const server: Server = createServer((socket) => {
    // The handler's type names the library's own queue class; ours has the same three methods.
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true })
    handlers.add(handler)
    socket.on('close', () => handlers.delete(handler))
    handler.attach(socket).catch(() => socket.destroy())
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
        for (const handler of handlers) void handler.detach(true)
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
