/**
 * Imports a project's tickets from a JSON file, keeping each ticket's old global number
 * (format: docs/tickets-api.md, "Importing tickets"). Uses the same database settings as
 * `npm start` (DATABASE_URL, or the embedded database in DATA_DIR, which it locks as the server
 * does: stop the server first when using the embedded one).
 *
 *   npm run import-tickets -- tickets.json
 *
 * The file is read as a stream, so its size does not bound the memory the import needs. On a
 * terminal, progress (`12,000 of 80,000 tickets, 2,400 a second`) is shown on standard error.
 */
import { access } from 'node:fs/promises'
import { loadConfig, loadEnvFile } from '../src/config.ts'
import { openDatabase } from '../src/db/client.ts'
import { migrate } from '../src/db/migrate.ts'
import { importTicketsFile, progressLine } from '../src/tickets/importer/import.ts'

const path = process.argv[2]
if (!path || process.argv.length > 3) {
  console.error('usage: npm run import-tickets -- <file.json>')
  process.exit(2)
}

loadEnvFile()
await access(path).catch((err: Error) => {
  console.error(err.message)
  process.exit(1)
})
// An import's last statements (its relations, the parents' cycle check) read every ticket it
// wrote: on a large file they may take longer than a request's deadline for an answer.
const config = loadConfig()
const db = await openDatabase(config, { answerTimeout: null }).catch((err: Error) => {
  console.error(err.message)
  process.exit(1)
})
const started = performance.now()
const onProgress = process.stderr.isTTY
  ? (done: number, total: number) =>
      process.stderr.write(
        `\r${progressLine(done, total, (performance.now() - started) / 1000)}\u001b[K`,
      )
  : undefined
try {
  await migrate(db.sql)
  const result = await importTicketsFile(db.sql, path, {
    now: Date.now(),
    onProgress,
    uploadMaxMb: config.uploadMaxMb,
    projectFilesMaxMb: config.projectFilesMaxMb,
  })
  if (onProgress) process.stderr.write('\n')
  if (!result.ok) {
    console.error(`${path}: nothing imported: ${result.message}`)
    process.exitCode = 1
  } else {
    const { project, imported, skipped, warnings } = result.report
    for (const w of warnings) console.log(`note: ${w}`)
    console.log(`project ${project}: ${imported} tickets imported, ${skipped} already there`)
  }
} finally {
  await db.close()
}
