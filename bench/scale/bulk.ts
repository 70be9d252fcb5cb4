/**
 * The growth bench's two rows of bulk writes (issue 41), at each size:
 *
 * - `bulk statement`: one `insert ... select` of as many tickets as the size holds into the last
 *   project, one `update` of all their states, one `delete` of them, in a transaction rolled back
 *   (the data stay as filled): tickets a second over the three statements;
 * - `import`: a file of as many tickets, one comment each (test/support/import-file.ts), through
 *   the importer into a project of its own, deleted afterwards: tickets a second.
 *
 * Each statement's time grows with its tickets, so tickets a second that stay level from size to
 * size are linear time; falling, they are worse.
 */
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Sql } from '../../src/db/client.ts'
import { importTicketsFile } from '../../src/tickets/importer/import.ts'
import { writeImportFile } from '../../test/support/import-file.ts'
import { PROJECTS, projectId, userId } from './fill.ts'

export interface BulkFigures {
  perSecond: number
  /** The whole run's time, ms. */
  ms: number
}

/** Insert, state change and delete of `n` tickets, one statement each, rolled back. */
export async function bulkStatements(
  sql: Sql,
  n: number,
): Promise<BulkFigures & { insertMs: number; updateMs: number; deleteMs: number }> {
  const project = projectId(PROJECTS)
  const times = { insertMs: 0, updateMs: 0, deleteMs: 0 }
  const t0 = performance.now()
  await sql
    .begin(async (tx) => {
      let t = performance.now()
      await tx`
      insert into tickets (project_id, number, subject, state, author_id, created, updated)
      select ${project}, 1000000000 + i, 'Bulk ticket ' || i, (array['open', 'doing', 'review', 'done', 'dropped'])[1 + i % 5], ${userId(1)}, 1, 1
      from generate_series(1, ${n}::int) i`
      times.insertMs = performance.now() - t
      t = performance.now()
      await tx`update tickets set state = case state when 'open' then 'doing' else 'open' end where project_id = ${project} and number > 1000000000`
      times.updateMs = performance.now() - t
      t = performance.now()
      await tx`delete from tickets where project_id = ${project} and number > 1000000000`
      times.deleteMs = performance.now() - t
      throw new RolledBack()
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err
    })
  const ms = times.insertMs + times.updateMs + times.deleteMs
  return { ...times, ms: performance.now() - t0, perSecond: (3 * n) / (ms / 1000) }
}

class RolledBack extends Error {}

/** Imports a file of `n` tickets with a comment each into a new project, then deletes the project. */
export async function importRun(sql: Sql, n: number, firstNumber: number): Promise<BulkFigures> {
  const path = join(tmpdir(), `scale-import-${process.pid}-${n}.json`)
  const slug = `import-${n}`
  try {
    await writeImportFile(path, { slug, admin: userId(1), tickets: n, firstNumber })
    const t = performance.now()
    const result = await importTicketsFile(sql, path, { now: Date.now() })
    const ms = performance.now() - t
    if (!result.ok || result.report.imported !== n)
      throw new Error(`the import answered ${JSON.stringify(result).slice(0, 300)}`)
    return { ms, perSecond: n / (ms / 1000) }
  } finally {
    await sql`delete from projects where slug = ${slug}`
    await rm(path, { force: true })
  }
}
