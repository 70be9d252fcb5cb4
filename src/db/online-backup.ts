/**
 * A backup of the embedded database while it serves (docs/operations.md, "Backups and
 * restores"): PostgreSQL's low-level base backup, as `pg_basebackup` takes one, written as a
 * `.tar.gz` of the data directory.
 *
 * 1. A replication slot keeps the write-ahead log from now on, and `pg_backup_start(fast)` takes
 *    a checkpoint: the only moments other statements wait (PGlite runs one at a time).
 * 2. The data files are copied while writes go on. A page copied half-written is put right by
 *    the log: during a backup PostgreSQL writes whole pages into it.
 * 3. `pg_backup_stop()` answers the backup label and the log position that makes the copy
 *    consistent; the log's files from the start to that position are copied after it.
 * 4. The label goes into the copy as `backup_label`, so the first start of a restored copy
 *    replays the log from the checkpoint to that position (and on to the end of what was copied).
 *
 * Every write acknowledged before step 3 is in the backup. Only step 1, step 3 and the slot's
 * removal hold other statements, each for the time of one statement.
 */
import { once } from 'node:events'
import { open, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { Writable } from 'node:stream'
import { createGzip } from 'node:zlib'
import tar from 'tar-stream'

/** Runs `statement` alone on the database (no other connection's statement or transaction in between). */
export type Exclusive = (statement: string) => Promise<Record<string, unknown>[]>

/** How much of a file is read at a time. */
const CHUNK = 1 << 20

/** The slot that keeps the log for a backup while it runs. */
const SLOT = 'notes_tickets_backup'

/**
 * Folders whose files a copy leaves out (PostgreSQL's documentation, "Making a base backup using
 * the low level API"; `pg_wal` is copied apart, from the start to the end of the backup).
 */
const CONTENTS_LEFT_OUT = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
])
/** Files of the data directory's top level a copy leaves out. */
const FILES_LEFT_OUT = new Set([
  'postmaster.pid',
  'postmaster.opts',
  'backup_label',
  'backup_label.old',
  'tablespace_map',
])

export interface BackupOutcome {
  /** Files copied (data files and log files). */
  files: number
  /** Bytes of those files, before compression. */
  bytes: number
  /** The longest single statement the backup ran alone, in milliseconds. */
  longestHoldMs: number
}

/**
 * Writes a `.tar.gz` backup of the running database in `pgdata` to `out`, its statements run by
 * `exclusive`. Another backup running at the same time is refused by PostgreSQL ("a backup is
 * already in progress in this session"); the caller runs one at a time.
 */
export async function writeOnlineBackup(
  pgdata: string,
  exclusive: Exclusive,
  out: Writable,
  clock: () => number = () => performance.now(),
): Promise<BackupOutcome> {
  let longestHoldMs = 0
  const alone = async (statement: string) => {
    const started = clock()
    try {
      return await exclusive(statement)
    } finally {
      longestHoldMs = Math.max(longestHoldMs, clock() - started)
    }
  }
  const pack = tar.pack()
  const written = pipeline(pack, createGzip({ level: 6 }), out)
  // A failure of the output (the client gone, a full disk) ends the packing too, and stops the
  // copy wherever it waits, so the backup's end (pg_backup_stop, the slot's removal) comes.
  const abort = new AbortController()
  written.catch((err: unknown) => {
    abort.abort(err)
    pack.destroy(err as Error)
  })
  let started = false
  let files = 0
  let bytes = 0
  try {
    // A slot left by a backup a crash cut short would keep the log forever: it goes first.
    await alone(
      `select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = '${SLOT}'`,
    )
    await alone(`select pg_create_physical_replication_slot('${SLOT}', true)`)
    const [start] = await alone(
      `select pg_walfile_name(lsn) as file from pg_backup_start('npm run backup', true) as lsn`,
    )
    started = true
    const startFile = String(start!.file)

    for await (const entry of walk(pgdata, '')) {
      if (entry.dir) pack.entry({ name: entry.name, type: 'directory', mode: 0o700 })
      else {
        const copied = await addFile(pack, join(pgdata, entry.name), entry.name, abort.signal)
        if (copied !== null) {
          files += 1
          bytes += copied
        }
      }
    }

    const [stop] = await alone(
      `select labelfile, pg_walfile_name(lsn) as file from pg_backup_stop(false)`,
    )
    started = false
    const stopFile = String(stop!.file)
    const walNames = (await readdir(join(pgdata, 'pg_wal')))
      .filter((name) => /^[0-9A-F]{24}$/.test(name) && name >= startFile && name <= stopFile)
      .sort()
    if (walNames[0] !== startFile || walNames.at(-1) !== stopFile)
      throw new Error(`the log files ${startFile} to ${stopFile} are not all in ${pgdata}/pg_wal`)
    for (const name of walNames) {
      const copied = await addFile(
        pack,
        join(pgdata, 'pg_wal', name),
        `pg_wal/${name}`,
        abort.signal,
      )
      if (copied === null) throw new Error(`the log file ${name} went away during the backup`)
      files += 1
      bytes += copied
    }
    const label = Buffer.from(String(stop!.labelfile))
    await untilAborted(
      new Promise<void>((resolve, reject) =>
        pack.entry({ name: 'backup_label', mode: 0o600 }, label, (err) =>
          err ? reject(err) : resolve(),
        ),
      ),
      abort.signal,
    )
    pack.finalize()
    await written
  } catch (err) {
    pack.destroy(err as Error)
    await written.catch(() => {})
    throw err
  } finally {
    if (started) await alone(`select pg_backup_stop(false)`).catch(() => {})
    await alone(
      `select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = '${SLOT}'`,
    ).catch(() => {})
  }
  return { files, bytes, longestHoldMs }
}

/** The data directory's folders and files under `rel`, folders first, leaving out what a copy leaves out. */
async function* walk(root: string, rel: string): AsyncGenerator<{ name: string; dir: boolean }> {
  let entries
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true })
  } catch (err) {
    // A folder removed meanwhile (a dropped database) has nothing to copy.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1))
  for (const entry of entries) {
    const name = rel === '' ? entry.name : `${rel}/${entry.name}`
    if (entry.isDirectory()) {
      yield { name, dir: true }
      if (rel === '' && CONTENTS_LEFT_OUT.has(entry.name)) {
        if (entry.name === 'pg_wal') yield { name: 'pg_wal/archive_status', dir: true }
        continue
      }
      yield* walk(root, name)
    } else if (entry.isFile()) {
      if (rel === '' && FILES_LEFT_OUT.has(entry.name)) continue
      if (entry.name.startsWith('pgsql_tmp')) continue
      yield { name, dir: false }
    }
  }
}

/**
 * Adds the file at `path` as `name`: the bytes it had when opened, up to its size then (a file
 * that shrank meanwhile is padded with zeros, which the log's replay puts right). Null when the
 * file went away before it was opened (a table dropped meanwhile).
 */
async function addFile(
  pack: tar.Pack,
  path: string,
  name: string,
  signal: AbortSignal,
): Promise<number | null> {
  signal.throwIfAborted()
  let handle
  try {
    handle = await open(path, 'r')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  try {
    const { size, mtime } = await handle.stat()
    signal.throwIfAborted()
    let finished: (err?: Error | null) => void = () => {}
    const done = new Promise<void>((resolve, reject) => {
      finished = (err) => (err ? reject(err) : resolve())
    })
    // Rejected while a read is awaited, it is awaited below; never an unhandled rejection.
    done.catch(() => {})
    const entry = pack.entry({ name, size, mode: 0o600, mtime }, (err) => finished(err))
    // When the output goes away while this file is being written (the client hung up), the
    // packing destroys the entry with ERR_STREAM_PREMATURE_CLOSE, as an 'error' event the
    // callback above does not take: unheard, it was an uncaught exception that ended the
    // process serving the backup.
    entry.on('error', (err: Error) => finished(err))
    const buffer = Buffer.alloc(Math.min(CHUNK, Math.max(size, 1)))
    let at = 0
    while (at < size) {
      const want = Math.min(buffer.length, size - at)
      const { bytesRead } = await handle.read(buffer, 0, want, at)
      // A file that shrank meanwhile: zeros to the size it had.
      const chunk =
        bytesRead === 0 ? Buffer.alloc(want) : Buffer.from(buffer.subarray(0, bytesRead))
      at += chunk.length
      if (!entry.write(chunk)) await once(entry, 'drain', { signal })
    }
    // tar-stream's entries are streamx streams, whose end() the types do not list.
    ;(entry as unknown as { end(): void }).end()
    await untilAborted(done, signal)
    return size
  } finally {
    await handle.close()
  }
}

/** `promise`, or the abort's reason once `signal` aborts: nothing waits on a packing that ended. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted()
  let onAbort = () => {}
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error)
    signal.addEventListener('abort', onAbort, { once: true })
  })
  return Promise.race([promise, aborted]).finally(() =>
    signal.removeEventListener('abort', onAbort),
  )
}
