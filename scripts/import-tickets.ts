/**
 * Imports a project's tickets from a JSON file, keeping each ticket's old global number
 * (format: docs/tickets-api.md, "Importing tickets"). Uses the same database settings as
 * `npm start` (DATABASE_URL, or the embedded database in DATA_DIR, which it locks as the server
 * does: stop the server first when using the embedded one).
 *
 *   npm run import-tickets -- tickets.json
 */
import { readFile } from 'node:fs/promises'
import { loadConfig, loadEnvFile } from '../src/config.ts'
import { openDatabase } from '../src/db/client.ts'
import { parseJsonBody } from '../src/http/json-validate.ts'
import { migrate } from '../src/db/migrate.ts'
import { importTickets } from '../src/tickets/importer/import.ts'

const path = process.argv[2]
if (!path || process.argv.length > 3) {
  console.error('usage: npm run import-tickets -- <file.json>')
  process.exit(2)
}

loadEnvFile()
const parsed = parseJsonBody(await readFile(path))
if (!parsed.ok) {
  console.error(`${path}: ${parsed.error}`)
  process.exit(1)
}
const db = await openDatabase(loadConfig()).catch((err: Error) => {
  console.error(err.message)
  process.exit(1)
})
try {
  await migrate(db.sql)
  const result = await importTickets(db.sql, parsed.value, Date.now())
  if (!result.ok) {
    console.error(`${path}: nothing imported: ${result.error}`)
    process.exitCode = 1
  } else {
    const { project, imported, skipped, warnings } = result.report
    for (const w of warnings) console.log(`note: ${w}`)
    console.log(`project ${project}: ${imported} tickets imported, ${skipped} already there`)
  }
} finally {
  await db.close()
}
