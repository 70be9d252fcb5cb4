/**
 * The online backup's packing when its reader goes away (src/db/online-backup.ts): the backup
 * ends with an error for its caller, and nothing else in the process hears of it.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { writeOnlineBackup, type Exclusive } from '../src/db/online-backup.ts'

const WAL = '000000010000000000000001'

/** A data directory of files of sizes from 1 KB to 4 MB, and one log file. */
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'online-backup-'))
  await mkdir(join(dir, 'base'), { recursive: true })
  await mkdir(join(dir, 'pg_wal'), { recursive: true })
  for (let i = 0; i < 60; i++)
    await writeFile(join(dir, 'base', `file-${i}`), Buffer.alloc(1000 * 2 ** (i % 13), i))
  await writeFile(join(dir, 'pg_wal', WAL), Buffer.alloc(1024))
  return dir
}

/** What the embedded database answers the backup's statements, without one. */
const statements: string[] = []
const exclusive: Exclusive = async (statement) => {
  statements.push(statement)
  if (statement.includes('pg_backup_start')) return [{ file: WAL }]
  if (statement.includes('pg_backup_stop(false)') && statement.includes('labelfile'))
    return [{ labelfile: 'label', file: WAL }]
  return []
}

test('a backup whose reader hangs up in the middle of a file ends with an error for its caller, and raises nothing else in the process', async () => {
  const uncaught: unknown[] = []
  const hear = (err: unknown) => uncaught.push(err)
  process.on('uncaughtException', hear)
  try {
    // The whole backup's size, then readers that take part of it and hang up, as clients that
    // went away, at several points.
    const dir = await dataDir()
    let whole = 0
    const all = new Writable({
      write(chunk: Buffer, _encoding, done) {
        whole += chunk.length
        done()
      },
    })
    await writeOnlineBackup(dir, exclusive, all)
    for (const part of [0, 0.1, 0.3, 0.5, 0.7, 0.9]) {
      let written = 0
      const out: Writable = new Writable({
        write(chunk: Buffer, _encoding, done) {
          written += chunk.length
          done()
          if (written >= Math.max(1, whole * part)) setImmediate(() => out.destroy())
        },
      })
      await assert.rejects(writeOnlineBackup(dir, exclusive, out), `cut at ${part} of ${whole}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.deepEqual(uncaught, [])
    // The backup was ended at the database as well.
    assert.ok(statements.some((s) => s.includes('select pg_backup_stop(false)')))
    assert.ok(statements.at(-1)!.includes('pg_drop_replication_slot'))
  } finally {
    process.off('uncaughtException', hear)
  }
})
