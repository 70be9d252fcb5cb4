/**
 * Schema migrations in the manner of postgres-shift: numbered, forward-only SQL files
 * `sql/NNNN_name.sql`, applied at start inside one transaction under an advisory lock and
 * recorded in the table `schema_migrations`.
 */
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Sql } from './client.ts'

/** The project's migrations folder. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../sql/', import.meta.url))

// Any constant will do; it only has to be the same for every process sharing the database.
const LOCK_KEY = 4_711_042

const FILE = /^(\d{4})_[a-z0-9_]+\.sql$/

/** The migration files of `dir` in order; throws on a gap or a repeated number. */
export async function migrationFiles(
  dir = MIGRATIONS_DIR,
): Promise<{ version: number; name: string }[]> {
  const files = (await readdir(dir)).filter((name) => FILE.test(name)).sort()
  return files.map((name, i) => {
    const version = Number(name.slice(0, 4))
    if (version !== i + 1) {
      throw new Error(
        `migrations: expected number ${String(i + 1).padStart(4, '0')} next, found ${name}; the numbering must have no gaps or repeats`,
      )
    }
    return { version, name }
  })
}

/** Applies the migrations not yet recorded; returns the names it applied. */
export async function migrate(sql: Sql, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = await migrationFiles(dir)
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`
    await tx`create table if not exists schema_migrations (
      version int primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`
    const done = new Set(
      (await tx`select version from schema_migrations`).map((row) => row.version as number),
    )
    const applied: string[] = []
    for (const file of files) {
      if (done.has(file.version)) continue
      await tx.unsafe(await readFile(`${dir}/${file.name}`, 'utf8'))
      await tx`insert into schema_migrations (version, name) values (${file.version}, ${file.name})`
      applied.push(file.name)
    }
    return applied
  })
}
