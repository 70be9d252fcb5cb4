/**
 * `npm run bench`: runs each benchmark in its own process, one after another, and prints their
 * figures. Each compares against a baseline measured in the same run. Benchmarks that need a
 * database use DATABASE_URL when set, else an embedded one they start themselves.
 * `npm run bench -- http` runs only the benchmarks whose file name contains `http`.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const dir = fileURLToPath(new URL('.', import.meta.url))
const filters = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()
console.log(
  `# ${new Date().toISOString()} node ${process.version}, database: ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded'}`,
)
let failed = 0
for (const file of files) {
  console.log(`\n## ${file}`)
  const run = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${file}`], {
    stdio: 'inherit',
  })
  if (run.status !== 0) {
    failed++
    console.log(`${file} failed (exit ${run.status})`)
  }
}
process.exit(failed === 0 ? 0 : 1)
